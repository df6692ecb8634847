"""docs/api.md's error table lists exactly the API's problem types, each with its status."""

from __future__ import annotations

import re

from leaderboard.api.problems import TYPES
from tests.conftest import REPO


def test_the_error_table_matches_the_problem_types():
    text = (REPO / "docs" / "api.md").read_text()
    rows = re.findall(r"^\| `/api/v1/problems/([a-z-]+)` \| (\d{3}) \|", text, flags=re.M)
    assert len(rows) == len({kind for kind, _ in rows}), "a type listed twice"
    assert {kind: int(status) for kind, status in rows} == {kind: entry[0] for kind, entry in TYPES.items()}
