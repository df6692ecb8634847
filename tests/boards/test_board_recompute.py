"""Rebuilding boards from scored submissions, and the signals that trigger it."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from leaderboard.boards.models import Board, BoardRow, PendingBoardUpdate
from leaderboard.boards.recompute import recompute_phase
from leaderboard.submissions.models import Submission
from leaderboard.submissions.signals import board_changed, submission_scored
from tests.boards.conftest import T0, mudi_metrics, pair_metrics, phase_for, ranked, scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def rows(task_slug: str, direction: str = "default", public: bool | None = True) -> list:
    return ranked(task_slug, direction, public)


def test_a_board_has_one_row_per_team_and_method_holding_its_best_submission(standing, alice_lab, charlie):
    phase = phase_for("chemicalx-twosides")
    scored(phase, alice_lab, "DeepSynergy", pair_metrics(0.80))
    best = scored(phase, alice_lab, "DeepSynergy", pair_metrics(0.85), minutes=1)
    scored(phase, alice_lab, "MatchMaker", pair_metrics(0.70), minutes=2)
    scored(phase, charlie.personal_team, "DeepSynergy", pair_metrics(0.90), minutes=3)
    board = rows("chemicalx-twosides")
    assert [(r.team_name, r.method_name, r.rank) for r in board] == [
        ("charlie", "DeepSynergy", 1),
        ("Alice Lab", "DeepSynergy", 2),
        ("Alice Lab", "MatchMaker", 3),
    ]
    assert board[1].submission_id == best.pk
    assert board[1].metrics["auroc"] == 0.85 and board[1].spread == 0.0
    summary = Board.objects.get(phase=phase)
    assert (summary.n_rows, summary.n_submissions, summary.best_value) == (3, 4, 0.90)
    assert summary.last_activity == T0.replace(minute=3)
    assert [step["value"] for step in summary.progression] == [0.80, 0.85, 0.90]


def test_a_latest_board_keeps_each_methods_newest_submission(standing, alice_lab):
    phase = phase_for("chemicalx-twosides")
    phase.board_mode = phase.BoardMode.LATEST
    phase.save(update_fields=["board_mode"])
    scored(phase, alice_lab, "DeepSynergy", pair_metrics(0.9))
    newest = scored(phase, alice_lab, "DeepSynergy", pair_metrics(0.6), minutes=1)
    assert [r.submission_id for r in rows("chemicalx-twosides")] == [newest.pk]


def test_private_rows_are_stored_apart_with_the_rank_they_would_have(standing, alice_lab, charlie):
    phase = phase_for("chemicalx-twosides")
    scored(phase, charlie.personal_team, "Public", pair_metrics(0.8))
    scored(phase, alice_lab, "Secret", pair_metrics(0.95), minutes=1, is_public=False)
    public = rows("chemicalx-twosides")
    private = rows("chemicalx-twosides", public=False)
    assert [(r.method_name, r.rank, r.position) for r in public] == [("Public", 1, 1)]
    assert [(r.method_name, r.rank, r.position) for r in private] == [("Secret", 1, 1)]
    summary = Board.objects.get(phase=phase)
    assert (summary.n_rows, summary.n_submissions, summary.best_value) == (1, 1, 0.8)


def test_mudi_gets_two_boards_ranked_by_their_own_setting(standing, alice_lab, charlie):
    phase = phase_for("mudi")
    scored(phase, alice_lab, "Aware", mudi_metrics(0.7, 0.6))
    scored(phase, charlie.personal_team, "Agnostic", mudi_metrics(0.5, 0.9), minutes=1)
    assert [r.method_name for r in rows("mudi", "aware")] == ["Aware", "Agnostic"]
    assert [r.method_name for r in rows("mudi", "agnostic")] == ["Agnostic", "Aware"]


def test_failed_and_queued_submissions_never_reach_a_board(standing, alice_lab):
    phase = phase_for("chemicalx-twosides")
    sub = scored(phase, alice_lab, "Broken", pair_metrics(0.9), rebuild=False)
    Submission.objects.filter(pk=sub.pk).update(status=Submission.Status.FAILED)
    recompute_phase(phase)
    assert rows("chemicalx-twosides") == []


def test_every_recompute_gets_a_new_version(standing, alice_lab):
    phase = phase_for("chemicalx-twosides")
    scored(phase, alice_lab, "A", pair_metrics(0.9))
    first = Board.objects.get(phase=phase).version
    recompute_phase(phase)
    assert Board.objects.get(phase=phase).version != first


def test_the_scored_signal_refreshes_the_phases_boards_through_the_background_queue(
    standing, alice_lab, board_updates_run_at_once, django_capture_on_commit_callbacks
):
    phase = phase_for("chemicalx-twosides")
    sub = scored(phase, alice_lab, "A", pair_metrics(0.9), rebuild=False)
    assert not BoardRow.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        submission_scored.send(sender=Submission, submission=sub)  # in the worker, after the scoring commit
    assert board_updates_run_at_once == [(phase.pk,)]
    assert [r.submission_id for r in rows("chemicalx-twosides")] == [sub.pk]


def test_making_a_submission_private_rebuilds_the_board(
    standing, alice_lab, board_updates_run_at_once, django_capture_on_commit_callbacks
):
    from leaderboard.submissions.edits import set_visibility

    phase = phase_for("chemicalx-twosides")
    sub = scored(phase, alice_lab, "A", pair_metrics(0.9))
    with django_capture_on_commit_callbacks(execute=True):
        set_visibility(sub, False)
    assert rows("chemicalx-twosides") == []
    assert [r.method_name for r in rows("chemicalx-twosides", public=False)] == ["A"]


def test_a_visibility_change_in_a_request_only_enqueues_the_update(
    client, standing, alice_lab, board_updates_run_at_once, django_capture_on_commit_callbacks
):
    from leaderboard.boards import tasks

    phase = phase_for("chemicalx-twosides")
    sub = scored(phase, alice_lab, "A", pair_metrics(0.9))
    sent = []
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        board_changed.send(sender=Submission, phase=phase, submission=sub)
    assert [r.method_name for r in rows("chemicalx-twosides")] == ["A"] and len(callbacks) == 1
    tasks.refresh_boards.apply_async = lambda args, **options: sent.append(tuple(args))
    callbacks[0]()
    assert sent == [(phase.pk,)]
    assert list(PendingBoardUpdate.objects.values_list("phase_id", "submission_id")) == [(phase.pk, sub.pk)]


def test_the_changed_signal_rebuilds_the_board(
    standing, alice_lab, board_updates_run_at_once, django_capture_on_commit_callbacks
):
    phase = phase_for("chemicalx-twosides")
    sub = scored(phase, alice_lab, "A", pair_metrics(0.9))
    Submission.objects.filter(pk=sub.pk).update(is_public=False)
    with django_capture_on_commit_callbacks(execute=True):
        board_changed.send(sender=Submission, phase=phase)
    assert rows("chemicalx-twosides") == []


@pytest.mark.django_db
def test_the_recompute_boards_command_rebuilds_every_phase_with_scores(standing, alice_lab):
    phase = phase_for("chemicalx-twosides")
    scored(phase, alice_lab, "A", pair_metrics(0.9), rebuild=False)
    call_command("recompute_boards")
    assert len(rows("chemicalx-twosides")) == 1
