"""The "indistinguishable from the leader" mark: the board's one rule, from stored statistics only."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from leaderboard.boards import matrix
from leaderboard.boards.compare import significance
from leaderboard.boards.models import Board, BoardRow
from leaderboard.boards.spec import direction_spec
from leaderboard.submissions.models import ReplicateSet, Result, Submission
from scoring.replicates import PAIR_LEVEL, pair_test, seed_interval, seed_pair_test
from tests.boards.conftest import (
    mudi_metrics,
    mudi_prediction_csv,
    mudi_truth_csv,
    pair_metrics,
    phase_for,
    scored,
    with_truth,
)

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def _marks(board):
    return {r.method_name: (r.tied_with_leader, r.p_value) for r in BoardRow.objects.filter(board=board)}


def test_the_board_marks_rows_from_stored_replicates_when_they_are_scored(client, standing, alice_lab, charlie, olga):
    phase = with_truth("mudi", mudi_truth_csv())
    leader = scored(phase, alice_lab, "Perfect", file=mudi_prediction_csv(wrong=0))
    close = scored(phase, charlie.personal_team, "OneWrong", file=mudi_prediction_csv(wrong=1), minutes=1)
    scored(phase, olga.personal_team, "AllWrong", file=mudi_prediction_csv(wrong=12), minutes=2)
    board = Board.objects.get(phase=phase, direction="aware")
    marks = _marks(board)
    assert marks["Perfect"] == (True, None)  # the leader is marked
    expected = pair_test(
        *(ReplicateSet.objects.get(submission=s, metric=board.metric).replicates() for s in (leader, close))
    )
    assert marks["OneWrong"] == (not expected.significant, expected.p_value)
    assert marks["AllWrong"][0] is False

    rows = list(csv.DictReader(io.StringIO(client.get("/tasks/mudi/leaderboard.csv").getvalue().decode())))
    assert [r["indistinguishable_from_leader"] for r in rows] == [
        "true",
        str(not expected.significant).lower(),
        "false",
    ]
    first = BoardRow.objects.get(board=board, submission=leader)
    assert float(rows[0]["interval_low"]) == first.low and float(rows[0]["interval_high"]) == first.high


def test_every_board_row_shows_its_95_percent_interval(client, standing, alice_lab, charlie):
    phase = with_truth("mudi", mudi_truth_csv())
    scored(phase, alice_lab, "A", file=mudi_prediction_csv(wrong=2))
    row = BoardRow.objects.get(board__direction="aware", method_name="A")
    assert row.low is not None and row.low <= row.value <= row.high
    html = client.get("/tasks/mudi/").content.decode()
    assert f'title="95% interval">[{row.low:.4f}, {row.high:.4f}]</span>' in html


def test_the_agnostic_view_tests_the_agnostic_metric(standing, alice_lab, charlie):
    phase = with_truth("mudi", mudi_truth_csv())
    a = scored(phase, alice_lab, "Reversed", file=mudi_prediction_csv(swap=12))
    b = scored(phase, charlie.personal_team, "Straight", file=mudi_prediction_csv(wrong=2), minutes=1)
    board = Board.objects.get(phase=phase, direction="agnostic")
    sets = [ReplicateSet.objects.get(submission=s, metric="agnostic/macro/f1").replicates() for s in (a, b)]
    outcome = pair_test(*sets)
    assert _marks(board)["Straight"] == (not outcome.significant, outcome.p_value)


def test_a_row_without_stored_statistics_is_not_marked_and_exports_no_verdict(client, standing, alice_lab, charlie):
    phase = with_truth("mudi", mudi_truth_csv())
    scored(phase, alice_lab, "A", file=mudi_prediction_csv())
    scored(phase, charlie.personal_team, "Bare", mudi_metrics(0.5), minutes=1)  # no file: no replicates
    marks = _marks(Board.objects.get(phase=phase, direction="aware"))
    assert marks == {"A": (True, None), "Bare": (False, None)}
    rows = list(csv.DictReader(io.StringIO(client.get("/tasks/mudi/leaderboard.csv").getvalue().decode())))
    assert rows[1]["method"] == "Bare" and rows[1]["indistinguishable_from_leader"] == ""
    assert rows[1]["interval_low"] == ""


def _seed_metrics(values: list[float]) -> dict[str, float]:
    metrics = pair_metrics(float(np.mean(values)), spread=0.0)
    for seed, value in enumerate(values):
        metrics[f"seed/{seed}/auroc"] = value
    return metrics


def test_multi_seed_boards_mark_rows_by_the_paired_t_test(standing, alice_lab, charlie, olga):
    phase = phase_for("chemicalx-twosides")
    lead = [0.80, 0.81, 0.79, 0.80, 0.82, 0.78, 0.80, 0.81, 0.79, 0.80]
    close = [0.79, 0.82, 0.78, 0.80, 0.81, 0.79, 0.79, 0.82, 0.78, 0.80]
    far = [v - 0.2 for v in lead]
    scored(phase, alice_lab, "Lead", _seed_metrics(lead))
    scored(phase, charlie.personal_team, "Close", _seed_metrics(close), minutes=1)
    scored(phase, olga.personal_team, "Far", _seed_metrics(far), minutes=2)
    marks = _marks(Board.objects.get(phase=phase))
    expected = seed_pair_test(lead, close)
    assert not expected.significant
    assert marks["Lead"] == (True, None)
    assert marks["Close"] == (True, expected.p_value)
    assert marks["Far"] == (False, None)  # beyond reach: told apart without a test
    row = BoardRow.objects.get(method_name="Close")
    low, high = seed_interval(close)
    assert (row.low, row.high) == (low, high)


def test_the_mark_the_matrix_and_compare_agree_on_every_pair_of_random_boards(standing, alice, charlie, olga):
    from leaderboard.accounts.services import create_team

    rng = np.random.default_rng(20)
    phase = phase_for("chemicalx-twosides")
    spec = direction_spec(phase.task)
    for round_ in range(4):
        Submission.objects.filter(phase=phase).delete()
        n = int(rng.integers(3, 9))
        centre = rng.uniform(0.6, 0.9, n)
        noise = rng.uniform(0.001, 0.05, n)
        for i in range(n):
            team = create_team(alice if i % 2 else charlie, f"R{round_} team {i}")
            values = list(centre[i] + rng.normal(0, noise[i], 10))
            scored(phase, team, f"M{i}", _seed_metrics(values), minutes=i, rebuild=i == n - 1)
        board = Board.objects.get(phase=phase)
        matrix.refresh_board(board.pk)
        board.refresh_from_db()
        stored = board.significance_matrix
        ids = stored["ids"]
        by_pair = {(ids[p["i"]], ids[p["j"]]): p["significant"] for p in stored["pairs"]}
        rows = {str(r.submission_id): r for r in BoardRow.objects.filter(board=board)}
        leader = ids[0]
        subs = {str(s.pk): s for s in Submission.objects.filter(phase=phase)}
        values = Result.objects.filter(submission__phase=phase).by_submission()
        for other in ids[1:]:
            assert rows[other].tied_with_leader == (not by_pair[(leader, other)])
        for (a, b), significant in by_pair.items():
            (test,) = significance(spec, [subs[a], subs[b]], values)
            assert test["significant"] == significant
            assert (test["p_value"] < PAIR_LEVEL) == significant
