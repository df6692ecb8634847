"""Celery tasks of the boards: one board update per changed submission (marks and intervals included).

Both take ids and are enqueued after the commit that changed the data
(``enqueue_update``), so no web request ranks anything.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import transaction

from leaderboard.boards.matrix import enqueue_stale
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


def enqueue_update(phase_id: int, submission_id=None) -> None:
    """Send ``update_boards`` once the current transaction commits (at once outside one)."""

    def send() -> None:
        try:
            update_boards.delay(phase_id, str(submission_id) if submission_id is not None else None)
        except Exception:  # a broker outage must not fail the caller; `recompute_boards` repairs a board
            log.exception("could not enqueue the board update of phase %s", phase_id)

    transaction.on_commit(send)
