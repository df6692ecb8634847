"""Sending a submission to the scoring workers.

The task is sent by its registered name, so this module (imported by everything that queues work)
never imports the worker code that scores and stores.
"""

from __future__ import annotations

import logging
import uuid
from functools import partial

from celery import current_app
from django.db import transaction

log = logging.getLogger(__name__)

SCORE_TASK = "submissions.score_submission"

# Publishing gives up quickly: an upload must not hang because the broker is down
# (the sweep re-sends the row later).
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


def enqueue(submission_id: uuid.UUID) -> bool:
    """Send the scoring task for one submission; False (and a log line) if the broker refused."""
    try:
        current_app.send_task(SCORE_TASK, args=[str(submission_id)], retry=True, retry_policy=PUBLISH_RETRY_POLICY)
    except Exception:  # any broker failure: the row stays queued and the sweep re-sends it
        log.exception("could not enqueue submission %s; the sweep will re-send it", submission_id)
        return False
    return True


def enqueue_on_commit(submission_id: uuid.UUID) -> None:
    """Enqueue after the current transaction commits (a worker must find the row)."""
    transaction.on_commit(partial(enqueue, submission_id))
