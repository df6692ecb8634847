"""Celery tasks of the boards: the coalesced refresh of a phase's boards (marks and intervals included).

All run on the background queue (settings.BACKGROUND_QUEUE), never where scoring runs. A change
(a new score, a visibility edit, a moderation) is recorded as a ``PendingBoardUpdate`` row by
``enqueue_update`` after its commit; the first pending row of a phase sends ``refresh_boards``,
which waits ``BOARD_REFRESH_DELAY_SECONDS`` and then takes in every pending change of the phase at
once. So a burst of scores on one phase costs one or two refreshes, and no web request ranks anything.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.db import transaction

from leaderboard.boards.matrix import enqueue_stale
from leaderboard.boards.models import PendingBoardUpdate
from leaderboard.boards.recompute import recompute_phase, update_board
from leaderboard.challenges.models import Phase

log = logging.getLogger(__name__)


@shared_task(acks_late=True, ignore_result=True)
def update_boards(phase_id: int, submission_id: str | None = None) -> None:
    """Bring a phase's boards up to date after ``submission_id`` changed (None: rebuild them from scratch).

    Idempotent: the update reads the submission's current state, so a duplicate
    or late delivery writes the same rows again.
    """
    phase = Phase.objects.filter(pk=phase_id).first()
    if phase is None:
        return
    if submission_id is None:
        recompute_phase(phase)
    else:
        update_board(phase, submission_id)
    enqueue_stale(phase.pk)  # the top-10 significance matrices, in their own task if the top changed


@shared_task(name="boards.refresh_boards", acks_late=True, ignore_result=True)
def refresh_boards(phase_id: int) -> int:
    """Take in every pending change of a phase's boards; returns how many changes were taken.

    Idempotent: each update reads the submissions' current state, and the pending rows are deleted
    only after the work committed, so a duplicate or redelivered run writes the same rows again.
    Rows added while it ran are sent to a next run.
    """
    pending = list(
        PendingBoardUpdate.objects.filter(phase_id=phase_id).order_by("pk").values_list("pk", "submission_id")
    )
    if not pending:
        return 0
    phase = Phase.objects.filter(pk=phase_id).first()
    if phase is not None:
        changed = {sid for _, sid in pending}
        if None in changed:
            recompute_phase(phase)  # a rebuild covers every single change too
        else:
            for submission_id in sorted(changed, key=str):
                update_board(phase, str(submission_id))
        enqueue_stale(phase.pk)  # the top-10 significance matrices, in their own task if the top changed
    PendingBoardUpdate.objects.filter(phase_id=phase_id, pk__lte=pending[-1][0]).delete()
    if PendingBoardUpdate.objects.filter(phase_id=phase_id).exists():
        _send_refresh(phase_id)
    return len(pending)


def _send_refresh(phase_id: int) -> None:
    try:
        refresh_boards.apply_async((phase_id,), countdown=settings.BOARD_REFRESH_DELAY_SECONDS)
    except Exception:  # a broker outage must not fail the caller; the pending rows wait for the next change
        log.exception("could not enqueue the board refresh of phase %s", phase_id)


def request_update(phase_id: int, submission_id=None) -> None:
    """Record a change of a phase's boards now; send the refresh unless one is already waiting for it."""
    row = PendingBoardUpdate.objects.create(
        phase_id=phase_id, submission_id=submission_id if submission_id is not None else None
    )
    if not PendingBoardUpdate.objects.filter(phase_id=phase_id, pk__lt=row.pk).exists():
        _send_refresh(phase_id)


def enqueue_update(phase_id: int, submission_id=None) -> None:
    """``request_update`` once the current transaction commits (at once outside one)."""

    def send() -> None:
        try:
            request_update(phase_id, submission_id)
        except Exception:  # e.g. the database went away after the commit; `recompute_boards` repairs a board
            log.exception("could not record the board update of phase %s", phase_id)

    transaction.on_commit(send)
