"""The "indistinguishable from the leader" mark: paired bootstrap (MUDI) and seed intervals."""

from __future__ import annotations

import csv
import io

import pytest

from leaderboard.boards.models import Board, BoardRow, PairTest
from leaderboard.boards.pair_tests import run_pending_tests
from leaderboard.boards.tasks import run_board_tests
from tests.boards.conftest import (
    mudi_prediction_csv,
    mudi_truth_csv,
    pair_metrics,
    phase_for,
    ranked,
    scored,
    with_truth,
)

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_the_board_task_runs_the_leader_bootstraps_and_marks_rows(client, standing, alice_lab, charlie, olga):
    phase = with_truth("mudi", mudi_truth_csv())
    leader = scored(phase, alice_lab, "Perfect", file=mudi_prediction_csv(wrong=0))
    close = scored(phase, charlie.personal_team, "OneWrong", file=mudi_prediction_csv(wrong=1), minutes=1)
    far = scored(phase, olga.personal_team, "AllWrong", file=mudi_prediction_csv(wrong=12), minutes=2)
    assert Board.objects.get(phase=phase, direction="aware").pending_tests == 2

    assert run_board_tests(phase.pk) == 4  # two rows, two views
    board = Board.objects.get(phase=phase, direction="aware")
    assert board.pending_tests == 0
    marks = {r.submission_id: (r.tied_with_leader, r.p_value) for r in BoardRow.objects.filter(board=board)}
    assert marks[leader.pk] == (True, None)
    assert marks[close.pk][0] is True and marks[close.pk][1] >= 0.05
    assert marks[far.pk][0] is False and marks[far.pk][1] < 0.05
    test = PairTest.objects.get(submission_a=leader, submission_b=far, metric="aware/macro/f1")
    assert test.n_resamples == 1000 and test.observed_a == 1.0

    rows = list(csv.DictReader(io.StringIO(client.get("/tasks/mudi/leaderboard.csv").getvalue().decode())))
    assert [r["indistinguishable_from_leader"] for r in rows] == ["true", "true", "false"]
    assert float(rows[2]["p_value_vs_leader"]) < 0.05


def test_the_agnostic_view_tests_the_agnostic_metric(standing, alice_lab, charlie):
    phase = with_truth("mudi", mudi_truth_csv())
    scored(phase, alice_lab, "Reversed", file=mudi_prediction_csv(swap=12))
    scored(phase, charlie.personal_team, "Straight", file=mudi_prediction_csv(wrong=2), minutes=1)
    run_board_tests(phase.pk)
    assert Board.objects.filter(phase=phase, direction="agnostic").exists()
    assert next(r for r in ranked("mudi", "agnostic") if r.position == 1).method_name == "Reversed"
    assert PairTest.objects.filter(metric="agnostic/macro/f1").count() == 1
    assert PairTest.objects.filter(metric="aware/macro/f1").count() == 1


def test_a_stored_test_is_reused_and_not_recomputed(standing, alice_lab, charlie):
    phase = with_truth("mudi", mudi_truth_csv())
    scored(phase, alice_lab, "A", file=mudi_prediction_csv())
    scored(phase, charlie.personal_team, "B", file=mudi_prediction_csv(wrong=3), minutes=1)
    run_board_tests(phase.pk)
    assert run_pending_tests(phase) == 0
    assert PairTest.objects.count() == 2


def test_a_row_whose_file_is_gone_stays_untested_without_blocking_others(standing, alice_lab, charlie, olga):
    phase = with_truth("mudi", mudi_truth_csv())
    scored(phase, alice_lab, "A", file=mudi_prediction_csv())
    gone = scored(phase, charlie.personal_team, "Gone", file=mudi_prediction_csv(wrong=3), minutes=1)
    scored(phase, olga.personal_team, "C", file=mudi_prediction_csv(wrong=4), minutes=2)
    gone.file.delete(save=False)
    run_board_tests(phase.pk)
    rows = {r.method_name: r for r in BoardRow.objects.filter(board__direction="aware")}
    assert rows["Gone"].p_value is None and rows["Gone"].tied_with_leader is False
    assert rows["C"].p_value is not None
    assert Board.objects.get(phase=phase, direction="aware").pending_tests == 1


def test_multi_seed_boards_mark_rows_whose_interval_overlaps_the_leaders(standing, alice_lab, charlie, olga):
    phase = phase_for("chemicalx-twosides")
    scored(phase, alice_lab, "Lead", pair_metrics(0.80, spread=0.01))
    scored(phase, charlie.personal_team, "Close", pair_metrics(0.785, spread=0.01), minutes=1)
    scored(phase, olga.personal_team, "Far", pair_metrics(0.70, spread=0.01), minutes=2)
    marks = {r.method_name: r.tied_with_leader for r in BoardRow.objects.all()}
    assert marks == {"Lead": True, "Close": True, "Far": False}
    assert Board.objects.get(phase=phase).pending_tests == 0
