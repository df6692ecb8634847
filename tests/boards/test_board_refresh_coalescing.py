"""The board refresh: a burst of scores on one phase is taken in by one run on the background queue."""

from __future__ import annotations

import pytest

from leaderboard.boards import tasks
from leaderboard.boards.models import BoardRow, PendingBoardUpdate
from leaderboard.submissions.models import Submission
from leaderboard.submissions.signals import submission_scored
from tests.boards.conftest import pair_metrics, phase_for, scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_a_burst_of_scores_on_one_phase_sends_one_refresh(
    standing, alice_lab, charlie, monkeypatch, django_capture_on_commit_callbacks
):
    phase = phase_for("chemicalx-twosides")
    sent = []
    monkeypatch.setattr(tasks.refresh_boards, "apply_async", lambda args, **options: sent.append((args, options)))
    subs = [scored(phase, alice_lab, f"M{i}", pair_metrics(0.7 + i / 100), minutes=i, rebuild=False) for i in range(5)]
    for sub in subs:
        with django_capture_on_commit_callbacks(execute=True):
            submission_scored.send(sender=Submission, submission=sub)

    assert [args for args, _ in sent] == [(phase.pk,)]
    assert sent[0][1]["countdown"] >= 0
    assert PendingBoardUpdate.objects.filter(phase=phase).count() == 5

    assert tasks.refresh_boards(phase.pk) == 5
    assert BoardRow.objects.filter(board__phase=phase, is_public=True).count() == 5
    assert not PendingBoardUpdate.objects.exists()
    assert len(sent) == 1  # nothing left over, so no second run


def test_a_duplicate_refresh_is_a_no_op(
    standing, alice_lab, board_updates_run_at_once, django_capture_on_commit_callbacks
):
    phase = phase_for("chemicalx-twosides")
    sub = scored(phase, alice_lab, "A", pair_metrics(0.9), rebuild=False)
    with django_capture_on_commit_callbacks(execute=True):
        submission_scored.send(sender=Submission, submission=sub)
    before = list(BoardRow.objects.values_list("submission_id", "value"))

    assert tasks.refresh_boards(phase.pk) == 0
    assert list(BoardRow.objects.values_list("submission_id", "value")) == before == [(sub.pk, 0.9)]


def test_changes_recorded_while_a_refresh_runs_are_sent_to_the_next_one(
    standing, alice_lab, monkeypatch, django_capture_on_commit_callbacks
):
    phase = phase_for("chemicalx-twosides")
    first = scored(phase, alice_lab, "A", pair_metrics(0.8), rebuild=False)
    late = scored(phase, alice_lab, "B", pair_metrics(0.9), minutes=1, rebuild=False)
    sent = []
    monkeypatch.setattr(tasks.refresh_boards, "apply_async", lambda args, **options: sent.append(tuple(args)))
    tasks.request_update(phase.pk, first.pk)
    real_update = tasks.update_board

    def update_and_meanwhile_score_another(phase_, submission_id, **kwargs):
        tasks.request_update(phase.pk, late.pk)  # arrives while this run works: not the first row, so not sent
        return real_update(phase_, submission_id, **kwargs)

    monkeypatch.setattr(tasks, "update_board", update_and_meanwhile_score_another)
    assert tasks.refresh_boards(phase.pk) == 1
    assert sent == [(phase.pk,), (phase.pk,)]  # the first change's run, then the leftover's
    assert list(PendingBoardUpdate.objects.values_list("submission_id", flat=True)) == [late.pk]
