"""Wording that says what a number is: per-task quotas, metric names, p-value floors, the leader's row."""

from __future__ import annotations

import re

import pytest

from leaderboard.boards.templatetags.board_format import p_text
from scoring.replicates import N_RESAMPLES as BOOTSTRAP_RESAMPLES
from tests.boards.conftest import mudi_metrics, mudi_prediction_csv, mudi_truth_csv, phase_for, scored, with_truth


@pytest.mark.parametrize(
    "p, expected",
    [(1 / 1001, "p ≤ 0.001"), (0.0009990009990009, "p ≤ 0.001"), (0.002, "p=0.002"), (0.5, "p=0.500"), (None, "")],
)
def test_a_p_value_at_the_bootstrap_floor_is_written_as_at_most(p, expected):
    assert p_text(p, BOOTSTRAP_RESAMPLES) == expected


def test_the_compare_style_p_value_is_spaced_with_four_digits():
    assert p_text(0.04204, digits=4, spaced=True) == "p = 0.0420"
    assert p_text(1 / 1001, digits=4, spaced=True) == "p ≤ 0.001"


@pytest.fixture
def tested_board(standing, alice_lab, charlie, olga):
    phase = with_truth("mudi", mudi_truth_csv())
    leader = scored(phase, alice_lab, "Perfect", file=mudi_prediction_csv(wrong=0))
    close = scored(phase, charlie.personal_team, "OneWrong", file=mudi_prediction_csv(wrong=1), minutes=1)
    far = scored(phase, olga.personal_team, "AllWrong", file=mudi_prediction_csv(wrong=12), minutes=2)
    return leader, close, far


def _mark(html: str, submission) -> str:
    row = re.search(rf'data-submission="{submission.pk}"[^>]*>(.*?)</tr>', html, re.S).group(1)
    return re.search(r'<td class="mark">(.*?)</td>', row, re.S).group(1)


@pytest.mark.storage
def test_the_leaders_own_row_is_marked_as_the_leader(client, tested_board):
    leader, close, far = tested_board
    html = client.get("/tasks/mudi/").content.decode()
    assert 'title="the leader">≈' in _mark(html, leader)
    assert "≈" in _mark(html, close)
    assert "p" in _mark(html, far) and "≈" not in _mark(html, far)


@pytest.mark.storage
def test_a_far_row_beyond_reach_says_p_below_the_rules_level(client, tested_board):
    _, _, far = tested_board
    mark = _mark(client.get("/tasks/mudi/").content.decode(), far)
    assert "p &lt; 0.0011" in mark


@pytest.mark.storage
def test_the_compare_charts_name_the_compared_submissions_not_the_top_methods(client, tested_board):
    leader, close, far = tested_board
    html = client.get(f"/compare/?ids={leader.pk},{close.pk},{far.pk}").content.decode()
    assert "top 3 methods" not in html
    assert "Per-class F1 of the 3 compared submissions" in html


@pytest.mark.storage
def test_home_and_benchmarks_name_the_mudi_metric_alike(client, standing, alice_lab):
    scored(phase_for("mudi"), alice_lab, "GraphOnly", mudi_metrics(0.7))
    for page in ("/", "/benchmarks/"):
        assert "Macro F1 (direction-aware)" in client.get(page).content.decode(), page


@pytest.mark.storage
def test_the_profile_lists_tasks_by_name_with_the_metric_and_the_rank(client, standing, alice, alice_lab, charlie):
    phase = phase_for("mudi")
    scored(phase, charlie.personal_team, "Best", mudi_metrics(0.9))
    scored(phase, alice_lab, "GraphOnly", mudi_metrics(0.7), minutes=1)
    client.force_login(alice)
    html = client.get("/accounts/profile/").content.decode()
    row = re.search(r"<tr>\s*<td><a[^>]*>GraphOnly</a></td>(.*?)</tr>", html, re.S).group(1)
    assert "MUDI" in row and ">mudi<" not in row
    assert "Macro F1 (direction-aware)" in row and "0.7000" in row
    assert "#2" in row


def test_the_quota_says_it_is_per_task(client, standing, alice):
    client.force_login(alice)
    html = client.get("/tasks/mudi/submit/").content.decode()
    assert "Your quota on this task" in html
    assert "Each task has its own quota" in html
