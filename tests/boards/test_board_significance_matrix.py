"""The pairwise significance matrix of a board's top 10 entries (computed by the worker from stored numbers)."""

from __future__ import annotations

from itertools import combinations

import pytest
from scipy import stats  # reference only (installed with scikit-learn, requirements-dev.txt)

from leaderboard.boards import matrix
from leaderboard.boards.models import Board
from leaderboard.boards.tasks import update_boards
from leaderboard.submissions.models import ReplicateSet
from scoring.replicates import PAIR_LEVEL, pair_test
from tests.boards.conftest import (
    classification_metrics,
    mudi_prediction_csv,
    mudi_truth_csv,
    phase_for,
    scored,
    with_truth,
)

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def _mudi_board_of_three(alice_lab, charlie, olga):
    phase = with_truth("mudi", mudi_truth_csv())
    scored(phase, alice_lab, "Perfect", file=mudi_prediction_csv(wrong=0))
    scored(phase, charlie.personal_team, "OneWrong", file=mudi_prediction_csv(wrong=1), minutes=1)
    scored(phase, olga.personal_team, "AllWrong", file=mudi_prediction_csv(wrong=12), minutes=2)
    return phase


def test_the_worker_tests_every_pair_of_a_mudi_board_from_stored_replicates(standing, alice_lab, charlie, olga):
    phase = _mudi_board_of_three(alice_lab, charlie, olga)

    assert matrix.update_matrices(phase.pk) == 2  # both views

    board = Board.objects.get(phase=phase, direction="aware")
    stored = board.significance_matrix
    assert [e["method"] for e in stored["entries"]] == ["Perfect", "OneWrong", "AllWrong"]
    assert [(p["i"], p["j"]) for p in stored["pairs"]] == [(0, 1), (0, 2), (1, 2)]
    assert all(p["significant"] == (p["p"] < PAIR_LEVEL) for p in stored["pairs"])
    assert stored["pairs"][1]["delta"] > 0  # the perfect entry minus the all-wrong one
    assert stored["pairs"][1]["low"] <= stored["pairs"][1]["delta"] <= stored["pairs"][1]["high"]
    # Each pair is the paired bootstrap of the two stored replicate vectors.
    ids = [str(board.rows.get(method_name=name).submission_id) for name in ("Perfect", "OneWrong")]
    a, b = (ReplicateSet.objects.get(submission_id=i, metric="aware/macro/f1").replicates() for i in ids)
    assert stored["pairs"][0]["p"] == pair_test(a, b).p_value


def test_a_current_matrix_is_not_recomputed(standing, alice_lab, charlie, olga):
    phase = _mudi_board_of_three(alice_lab, charlie, olga)
    matrix.update_matrices(phase.pk)
    version = Board.objects.get(phase=phase, direction="aware").version

    assert matrix.update_matrices(phase.pk) == 0
    assert Board.objects.get(phase=phase, direction="aware").version == version


def test_the_board_page_shows_the_heatmap_and_the_table(client, standing, alice_lab, charlie, olga):
    phase = _mudi_board_of_three(alice_lab, charlie, olga)
    matrix.update_matrices(phase.pk)

    response = client.get("/tasks/mudi/")

    assert response.status_code == 200
    content = response.content.decode()
    assert 'id="significance-matrix"' in content
    assert "Each pair is tested by the board's rule" in content
    assert "Bonferroni for the 45 pairs" in content
    assert "1. Perfect (Alice Lab)" in content and "3. AllWrong" in content


def test_the_page_never_computes_the_matrix_itself(client, standing, alice_lab, charlie, olga):
    _mudi_board_of_three(alice_lab, charlie, olga)

    response = client.get("/tasks/mudi/")

    assert response.status_code == 200
    assert 'id="significance-matrix"' not in response.content.decode()


def test_a_multi_seed_board_uses_a_paired_t_test_over_the_seeds(standing, alice_lab, charlie, olga):
    phase = phase_for("imdrug-hiv-random")
    values = {}
    for minutes, (team, name, ba, std) in enumerate(
        [(alice_lab, "A", 0.80, 0.01), (charlie.personal_team, "B", 0.78, 0.03), (olga.personal_team, "C", 0.6, 0.02)]
    ):
        metrics = classification_metrics(ba, std)
        metrics["seed/2/balanced_accuracy"] += 0.004 * minutes  # not the same difference on every seed
        scored(phase, team, name, metrics, minutes=minutes)
        values[name] = [metrics[f"seed/{s}/balanced_accuracy"] for s in range(3)]

    matrix.update_matrices(phase.pk)

    stored = Board.objects.get(phase=phase).significance_matrix
    assert stored["method"] == "seeds"
    names = ["A", "B", "C"]
    expected = [stats.ttest_rel(values[names[i]], values[names[j]]).pvalue for i, j in combinations(range(3), 2)]
    assert [p["p"] for p in stored["pairs"]] == pytest.approx(expected)
    assert all(p["significant"] == (p["p"] < PAIR_LEVEL) for p in stored["pairs"])


def test_only_the_top_ten_entries_are_compared(standing, alice, charlie):
    from leaderboard.accounts.services import create_team

    phase = phase_for("imdrug-hiv-random")
    for i in range(12):
        team = create_team(alice if i % 2 else charlie, f"Team {i}")
        scored(phase, team, f"M{i}", classification_metrics(0.9 - 0.01 * i, 0.01 + 0.001 * i), minutes=i, rebuild=False)
    update_boards.apply(args=(phase.pk, None))
    matrix.update_matrices(phase.pk)

    stored = Board.objects.get(phase=phase).significance_matrix
    assert [e["method"] for e in stored["entries"]] == [f"M{i}" for i in range(10)]
    assert len(stored["pairs"]) == 45


def test_the_board_update_enqueues_the_matrix_only_when_the_top_changed(
    standing, alice_lab, charlie, monkeypatch, django_capture_on_commit_callbacks
):
    phase = phase_for("imdrug-hiv-random")
    sent = []
    monkeypatch.setattr(matrix.update_matrices, "delay", lambda *args: sent.append(args))
    first = scored(phase, alice_lab, "A", classification_metrics(0.8), rebuild=False)
    second = scored(phase, charlie.personal_team, "B", classification_metrics(0.7), minutes=1, rebuild=False)

    with django_capture_on_commit_callbacks(execute=True):
        update_boards.apply(args=(phase.pk, str(first.pk)))
        update_boards.apply(args=(phase.pk, str(second.pk)))
    assert sent == [(phase.pk,), (phase.pk,)]

    matrix.update_matrices(phase.pk)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        update_boards.apply(args=(phase.pk, str(second.pk)))  # the same top two
    assert sent == []


def test_a_phase_with_private_test_rows_compares_entries_on_their_public_rows_only(standing, alice_lab, charlie):
    from leaderboard.submissions.replicates import truth_identity

    phase = with_truth("mudi", mudi_truth_csv())
    sub = scored(phase, alice_lab, "Perfect", file=mudi_prediction_csv(wrong=0))
    # The replicates resample the public rows: their seed is derived from the truth and the public part.
    assert truth_identity(sub).startswith(phase.truth_sha256)
    assert ReplicateSet.objects.filter(submission=sub).count() == 2
