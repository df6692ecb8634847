"""Fixtures of the browser tests: a scored MUDI board, a page that answers the favicon request."""

from __future__ import annotations

import pytest

from tests.boards.conftest import mudi_prediction_csv, mudi_truth_csv, scored, with_truth

# (method, wrong classes, pairs written in reverse): A is perfect only when direction is ignored.
METHODS = [
    ("OrientationFree", 0, 6),
    ("GraphDDI", 3, 0),
    ("TextDDI", 5, 1),
    ("FormulaNet", 7, 0),
    ("ImageDDI", 9, 2),
]


@pytest.fixture
def mudi_board(transactional_db, alice, alice_lab, charlie, olga):
    from leaderboard.boards.recompute import recompute_phase
    from leaderboard.challenges.services import sync_standing_challenges

    sync_standing_challenges()
    phase = with_truth("mudi", mudi_truth_csv())
    teams = [alice_lab, charlie.personal_team, olga.personal_team]
    subs = {}
    for i, (method, wrong, swap) in enumerate(METHODS):
        subs[method] = scored(
            phase,
            teams[i % len(teams)],
            method,
            file=mudi_prediction_csv(wrong=wrong, swap=swap),
            minutes=i,
            declarations={"modalities": ["graph"] if i % 2 else ["text", "graph"]},
            is_baseline=method == "FormulaNet",
            paper_url="https://example.org/paper" if i == 1 else "",
        )
    recompute_phase(phase)
    return subs


@pytest.fixture
def no_favicon(page):
    """The site has no favicon yet; answer the browser's automatic request so it logs no 404."""
    page.route("**/favicon.ico", lambda route: route.fulfill(status=204, body=b""))
    return page
