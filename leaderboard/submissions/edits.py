"""Changes an organizer or an owner makes to a submission: a re-run, public or private."""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.utils import timezone

from leaderboard.submissions.models import Result, Submission
from leaderboard.submissions.queueing import enqueue_on_commit
from leaderboard.submissions.signals import board_changed


def requeue(submission: Submission, *, enqueue: bool = True, notify: bool = True) -> Submission:
    """Send a submission back to the queue with its results cleared (organizer re-run, rescore).

    ``enqueue=False`` for a caller that runs the task itself (``rescore --now``); ``notify=False``
    sends no result e-mail when it is scored again (a truth fix, announced once per participant).
    """
    was_scored = Submission.objects.filter(pk=submission.pk, status=Submission.Status.SCORED).exists()
    now = timezone.now()
    fresh = {
        "status": Submission.Status.QUEUED,
        "error_kind": Submission.ErrorKind.NONE,
        "error_message": "",
        "primary_value": None,
        "report": None,
        "private_primary_value": None,
        "private_report": None,
        "scorer_version": "",
        "claim_token": None,
        "task_id": "",
        "attempts": 0,
        "queued_at": now,
        "enqueued_at": now,
        "started_at": None,
        "finished_at": None,
        "notify_result": notify,
    }
    with transaction.atomic():
        Submission.objects.filter(pk=submission.pk).update(**fresh)
        Result.objects.filter(submission_id=submission.pk).delete()
        if was_scored:
            transaction.on_commit(
                partial(board_changed.send, sender=Submission, phase=submission.phase, submission=submission)
            )
        if enqueue:
            enqueue_on_commit(submission.pk)
    for name, value in fresh.items():
        setattr(submission, name, value)
    return submission


def set_visibility(submission: Submission, is_public: bool) -> None:
    """Make a submission public or private; boards are told when a scored one changes."""
    if submission.is_public == is_public:
        return
    with transaction.atomic():
        submission.is_public = is_public
        submission.save(update_fields=["is_public"])
        if submission.status == Submission.Status.SCORED:
            transaction.on_commit(
                partial(board_changed.send, sender=Submission, phase=submission.phase, submission=submission)
            )
