"""Sending a submission to the scoring workers.

The task is sent by its registered name, so this module (imported by everything that queues work)
never imports the worker code that scores and stores.
"""

from __future__ import annotations

import logging
import uuid
from functools import partial
from typing import IO

from celery import current_app
from django.conf import settings
from django.db import transaction

from leaderboard.submissions.models import Submission
from scoring.readers import GZIP_MAGIC

log = logging.getLogger(__name__)

SCORE_TASK = "submissions.score_submission"

# Publishing gives up quickly: an upload must not hang because the broker is down
# (the sweep re-sends the row later).
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


def scoring_queue_for(upload: IO[bytes], size: int) -> str:
    """The scoring queue of an upload: large or gzip-compressed files wait apart from small plain ones.

    A compressed file's real size is known only once the worker reads it (a 0.6 MB gzip may hold
    hundreds of MB), so it counts as large. The scoring workers read the large queue apart from (or
    in turn with) the small one, so a run of large uploads never holds a small one (docs/deploy.md).
    """
    upload.seek(0)
    head = upload.read(2)
    upload.seek(0)
    if size > settings.SCORING_LARGE_UPLOAD_BYTES or head == GZIP_MAGIC:
        return settings.SCORING_LARGE_QUEUE
    return settings.SCORING_QUEUE


def enqueue(submission_id: uuid.UUID) -> bool:
    """Send the scoring task for one submission to its queue; False (and a log line) if the broker refused."""
    queue = Submission.objects.filter(pk=submission_id).values_list("scoring_queue", flat=True).first()
    try:
        current_app.send_task(
            SCORE_TASK,
            args=[str(submission_id)],
            queue=queue or settings.SCORING_QUEUE,
            retry=True,
            retry_policy=PUBLISH_RETRY_POLICY,
        )
    except Exception:  # any broker failure: the row stays queued and the sweep re-sends it
        log.exception("could not enqueue submission %s; the sweep will re-send it", submission_id)
        return False
    return True


def enqueue_on_commit(submission_id: uuid.UUID) -> None:
    """Enqueue after the current transaction commits (a worker must find the row)."""
    transaction.on_commit(partial(enqueue, submission_id))
