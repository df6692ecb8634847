"""The scoring task: claim a submission, score its stored file with ``scoring``, store the outcome.

Thin on purpose: load the row -> call ``scoring`` -> store; see docs/submissions.md for the
failure cases each branch handles.
"""

from __future__ import annotations

import logging
import os
import random
import time
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError

import scoring
from leaderboard.challenges.truth_cache import TruthMissing, phase_split, phase_truth
from leaderboard.submissions import replicates
from leaderboard.submissions.models import Submission
from leaderboard.submissions.outcomes import PLATFORM_ERROR_MESSAGE, claim, mark_failed, max_attempts, store_score
from leaderboard.submissions.queueing import SCORE_TASK

log = logging.getLogger(__name__)

# Errors worth retrying: the database or the file storage was briefly unavailable.
TRANSIENT_ERRORS = (OperationalError, InterfaceError, OSError)
MAX_RETRIES = 3


def cells_per_row(task: scoring.registry.Task) -> int:
    """How many cells one test row of ``task`` takes in a full prediction file: every column, every seed."""
    columns = {*task.truth_columns, *task.prediction_columns, *task.optional_prediction_columns}
    return (len(columns) + 1) * max(1, len(task.seeds))  # + 1: a seed or split column


def read_bound(truth=None, task: scoring.registry.Task | None = None) -> int:
    """How many uncompressed bytes of an upload are read at most: proportional to the cells a file can hold.

    ``SUBMISSION_MAX_BYTES_PER_CELL`` per cell of a full prediction file (the truth's rows times
    ``cells_per_row``), at least ``SUBMISSION_MIN_READ_BYTES``, never more than the upload cap
    ``SUBMISSION_MAX_BYTES``. Scoring stops decompressing there, so a small gzip bomb is refused
    after reading the bound, not after filling the worker's memory.
    """
    cap = int(settings.SUBMISSION_MAX_BYTES)
    rows = int(getattr(truth, "n_rows", 0) or 0)
    if rows <= 0 or task is None:
        return cap
    cells = rows * cells_per_row(task)
    return min(cap, max(int(settings.SUBMISSION_MIN_READ_BYTES), cells * int(settings.SUBMISSION_MAX_BYTES_PER_CELL)))


def scoring_limits(truth=None, task: scoring.registry.Task | None = None) -> scoring.Limits:
    """The read bound of uploads (``read_bound``), applied by scoring to the uncompressed content as well."""
    return scoring.Limits(max_bytes=read_bound(truth, task))


def _test_delay() -> None:
    # Lets integration tests kill a worker mid-scoring; ignored outside the test suite.
    if getattr(settings, "TESTING", False):
        delay = float(os.environ.get("LEADERBOARD_TEST_SCORING_DELAY", "0") or 0)
        if delay > 0:
            time.sleep(delay)


def describe_problems(error: scoring.ScoringError) -> str:
    """The first problems of an invalid file as text, with the total count."""
    total = f"{error.total} problem{'s' if error.total != 1 else ''} found in the file"
    shown = "\n".join(p.message for p in error.problems[:20])
    more = error.total - min(len(error.problems), 20)
    return f"{total}:\n{shown}" + (f"\n... and {more} more." if more > 0 else "")


def _score_file(submission: Submission) -> tuple[scoring.Score | dict[str, scoring.Score], Any]:
    """Score the stored file: one Score, or a split phase's public, private and all-rows Scores; and the
    prediction aligned to the public rows (what the stored replicates resample).

    A split phase validates the file once against the whole truth (participants
    predict every test row without knowing which are public), then scores each part.
    """
    phase = submission.phase
    truth = phase_truth(phase)
    with submission.file.open("rb") as handle:
        if phase.split_spec is None:
            aligned, n_rows = scoring.align_counted(phase.task, truth, handle, limits=scoring_limits(truth, phase.task))
            return scoring.score_aligned(phase.task, aligned, n_rows), aligned
        limits = scoring_limits(truth, phase.task)
        return scoring.score_parts_aligned(phase.task, truth, handle, phase_split(phase), limits=limits)


def score_claimed(submission_id: str, token) -> str:
    """Score a submission this run has claimed; always ends the row in scored or failed (or raises transient)."""
    submission = Submission.objects.select_related("phase").get(pk=submission_id)
    _test_delay()
    try:
        score, aligned = _score_file(submission)
        found = replicates.compute(submission, aligned)
    except scoring.ScoringError as error:
        mark_failed(
            submission_id,
            Submission.ErrorKind.INVALID,
            describe_problems(error),
            claim_token=token,
            problems=error.to_dict(),
        )
        return "invalid"
    except SoftTimeLimitExceeded:
        message = (
            f"Scoring took longer than the {settings.CELERY_TASK_SOFT_TIME_LIMIT} s limit and was stopped. "
            "This does not count against your quota."
        )
        mark_failed(submission_id, Submission.ErrorKind.PLATFORM, message, claim_token=token)
        return "timeout"
    except TruthMissing:
        log.error("submission %s: phase %s has no truth file", submission_id, submission.phase)
        mark_failed(submission_id, Submission.ErrorKind.PLATFORM, PLATFORM_ERROR_MESSAGE, claim_token=token)
        return "platform"
    except TRANSIENT_ERRORS:
        raise
    except Exception:
        # A bug or an unforeseen input: the traceback goes to the log, a sentence to the submitter.
        log.exception("unexpected error scoring submission %s", submission_id)
        mark_failed(submission_id, Submission.ErrorKind.PLATFORM, PLATFORM_ERROR_MESSAGE, claim_token=token)
        return "platform"
    stored = store_score(submission, score, claim_token=token, replicates=found)
    return "scored" if stored else "stale"


@shared_task(
    bind=True,
    name=SCORE_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT,
    time_limit=settings.CELERY_TASK_TIME_LIMIT,
    max_retries=MAX_RETRIES,
)
def score_submission(self, submission_id: str) -> str:
    """Claim, score and store one submission; a duplicate delivery is a no-op.

    Returns what happened ("scored", "invalid", "platform", "timeout",
    "duplicate", "stale", "gave-up") for logs and tests.
    """
    delivery = self.request.delivery_info or {}
    host = f"{self.request.hostname or 'local'} pid {os.getpid()}"
    token = claim(
        submission_id, redelivered=bool(delivery.get("redelivered")), task_id=self.request.id or "", host=host
    )
    if token is None:
        log.info("submission %s is not claimable (duplicate delivery or finished); skipping", submission_id)
        return "duplicate"
    attempts = Submission.objects.filter(pk=submission_id).values_list("attempts", flat=True).first() or 0
    # Retries of transient errors claim again too; only claims beyond those mean a dead worker.
    if attempts > max_attempts() + self.request.retries:
        # The worker died this many times on this file: stop the loop, not our users' quota.
        mark_failed(
            submission_id,
            Submission.ErrorKind.PLATFORM,
            f"Scoring was interrupted {attempts - 1 - self.request.retries} times (worker lost); it was stopped "
            "to protect the queue. This does not count against your quota, and an organizer can re-run it.",
            claim_token=token,
        )
        return "gave-up"
    try:
        return score_claimed(submission_id, token)
    except TRANSIENT_ERRORS as exc:
        if self.request.retries >= MAX_RETRIES:
            log.exception("submission %s: giving up after %d retries", submission_id, self.request.retries)
            mark_failed(
                submission_id,
                Submission.ErrorKind.PLATFORM,
                "The database or file storage was unavailable while scoring. " + PLATFORM_ERROR_MESSAGE,
                claim_token=token,
            )
            return "platform"
        countdown = min(60, 2 ** (self.request.retries + 1)) + random.random()
        log.warning("submission %s: transient error %r, retry in %.1fs", submission_id, exc, countdown)
        # The retry keeps this task id, so it may claim the row this run leaves running.
        raise self.retry(exc=exc, countdown=countdown) from exc
