"""/api/v1/tasks/<slug>/leaderboard carries the CSV export's published rows, unranked, where they would rank."""

# ruff: noqa: F811 (fixtures imported from the board tests are test arguments)
from __future__ import annotations

import csv
import io

import pytest

from tests.boards.test_published_results import mudi_with_literature, table  # noqa: F401

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_the_json_board_carries_the_csvs_published_rows(client, mudi_with_literature):
    exported = list(csv.DictReader(io.StringIO(client.get("/tasks/mudi/leaderboard.csv").getvalue().decode())))
    body = client.get("/api/v1/tasks/mudi/leaderboard").json()
    assert [(r["method"], r["source"], r["rank"]) for r in body["rows"]] == [
        (r["method"], r["source"], int(r["rank"]) if r["rank"] else None) for r in exported
    ]
    assert body["count"] == 2  # ranked rows; the published ones are beside them
    hidden = client.get("/api/v1/tasks/mudi/leaderboard?published=0").json()
    assert [r["source"] for r in hidden["rows"]] == ["scored here", "scored here"]


def test_pages_split_the_same_sequence(client, mudi_with_literature):
    whole = [r["method"] for r in client.get("/api/v1/tasks/mudi/leaderboard").json()["rows"]]
    first = [r["method"] for r in client.get("/api/v1/tasks/mudi/leaderboard?page_size=1").json()["rows"]]
    second = [r["method"] for r in client.get("/api/v1/tasks/mudi/leaderboard?page_size=1&page=2").json()["rows"]]
    assert first + second == whole
