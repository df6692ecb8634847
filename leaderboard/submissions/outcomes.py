"""The run of a submission as rows: claim it for one delivery, then store its score or its failure.

The Submission row is the state machine (queued -> running -> scored | failed); only the holder of
the current ``claim_token`` may write the outcome of a run. Every write is one transaction.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import uuid
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

import scoring
from leaderboard.challenges.services import current_truth_version
from leaderboard.submissions.emails import email_result_later
from leaderboard.submissions.models import Result, Submission
from leaderboard.submissions.replicates import replace_sets
from leaderboard.submissions.signals import submission_scored
from scoring import replicates as scoring_replicates
from scoring.splits import ALL, PRIVATE, PUBLIC

log = logging.getLogger(__name__)

# Extra time past the hard time limit before a running row counts as abandoned.
LEASE_MARGIN_SECONDS = 60
# A submission whose worker dies this many times is failed instead of retried forever.
DEFAULT_MAX_ATTEMPTS = 3

WORKER_LOST_MESSAGE = (
    "The worker scoring this submission stopped responding (worker lost). This was the platform's fault: "
    "it does not count against your quota, and an organizer can re-run it."
)
PLATFORM_ERROR_MESSAGE = (
    "Scoring failed because of an error on our side, not in your file. It does not count against your "
    "quota; the organizers have the details and can re-run it."
)


def hard_time_limit() -> int:
    return int(getattr(settings, "CELERY_TASK_TIME_LIMIT", 660))


def lease_seconds() -> int:
    """How long a claim is honoured before the row counts as abandoned."""
    return hard_time_limit() + int(getattr(settings, "SUBMISSION_LEASE_MARGIN_SECONDS", LEASE_MARGIN_SECONDS))


def max_attempts() -> int:
    return int(getattr(settings, "SUBMISSION_MAX_ATTEMPTS", DEFAULT_MAX_ATTEMPTS))


def claim(
    submission_id: uuid.UUID | str, *, redelivered: bool = False, task_id: str = "", host: str = ""
) -> uuid.UUID | None:
    """Mark a submission running for this delivery; None if another delivery has it or it is finished.

    A queued row is always claimable. A running row is claimable only by a
    redelivery of the message that claimed it (the broker says so, or the
    same task id arrives again: kombu's filesystem transport does not flag
    redeliveries, and a Celery retry keeps its id) or once its lease has
    expired. A second, different message for the same submission (a double
    publish, a sweep re-send) is a no-op while the row runs. One conditional
    UPDATE: of two racing deliveries, one wins.
    """
    now = timezone.now()
    claimable = Q(status=Submission.Status.QUEUED) | Q(
        status=Submission.Status.RUNNING, started_at__lt=now - dt.timedelta(seconds=lease_seconds())
    )
    if redelivered:
        claimable |= Q(status=Submission.Status.RUNNING)
    if task_id:
        claimable |= Q(status=Submission.Status.RUNNING, task_id=task_id)
    token = uuid.uuid4()
    updated = (
        Submission.objects.filter(pk=submission_id)
        .filter(claimable)
        .update(
            status=Submission.Status.RUNNING,
            started_at=now,
            attempts=F("attempts") + 1,
            claim_token=token,
            task_id=task_id[:255],
            worker_host=host[:255],
        )
    )
    return token if updated else None


def _finite(value: Any) -> Any:
    """JSON-safe copy of a report: NaN and infinities become None (PostgreSQL's jsonb rejects them)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return _finite(value.tolist())
    return value


def send_finished(submission_id: uuid.UUID | str) -> None:
    """After commit: tell other apps (boards re-rank) and queue the submitter's e-mail; neither may undo a score.

    Both only enqueue background jobs, so the scoring process is free for the next upload at once.
    """
    submission = Submission.objects.select_related("user", "phase").get(pk=submission_id)
    if submission.status == Submission.Status.SCORED:
        for receiver, response in submission_scored.send_robust(sender=Submission, submission=submission):
            if isinstance(response, Exception):
                log.error("submission_scored receiver %r failed: %r", receiver, response, exc_info=response)
    if submission.notify_result:
        email_result_later(submission.pk)


def _claimed(submission_id: uuid.UUID | str, claim_token: uuid.UUID | None) -> bool:
    """The row, if the claim is still current (or no claim was given); as a write, so SQLite locks early."""
    rows = Submission.objects.filter(pk=submission_id)
    if claim_token is not None:
        rows = rows.filter(status=Submission.Status.RUNNING, claim_token=claim_token)
    # A no-op write first: on SQLite it takes the write lock before any read (no lock upgrade to fail);
    # on PostgreSQL it locks the row like select_for_update.
    return rows.update(claim_token=F("claim_token")) == 1


def _primary(score: scoring.Score) -> float | None:
    value = score.primary_value
    return value if value is not None and math.isfinite(value) else None


def store_score(
    submission: Submission,
    score: scoring.Score | dict[str, scoring.Score],
    *,
    claim_token: uuid.UUID | None = None,
    replicates: list[scoring_replicates.Replicates] | None = None,
) -> bool:
    """Write a ``scoring.Score`` as the submission's outcome, in one transaction.

    ``score`` is one Score (a phase without a split: stored as part
    ``public``) or ``scoring.score_parts``' ``{"public", "private", "all"}``
    Scores of a split phase: every part's results are stored, the public one
    is the submission's ``primary_value`` and ``report``, the private one its
    ``private_primary_value`` and ``private_report`` (shown to organizers
    only until the reveal). Results (long format), primary value, report,
    scorer version and status ``scored`` are written together;
    ``submission_scored`` is sent and the submitter emailed after commit.
    With ``claim_token``, the write happens only if that claim is still
    current (a stale claimant's result is discarded and False returned).
    Replaces any earlier results of the submission, and its stored bootstrap
    ``replicates`` (``leaderboard.submissions.replicates``) when given.
    """
    parts = score if isinstance(score, dict) else {PUBLIC: score}
    public = parts[PUBLIC]
    private = parts.get(PRIVATE)
    outcome = {
        "primary_value": _primary(public),
        "report": _finite(public.report),
        "private_primary_value": _primary(private) if private is not None else None,
        "private_report": _finite(private.report) if private is not None else None,
        "scorer_version": str(public.scorer_version)[:20],
        # The phase's current truth: the one the worker loaded (a replaced truth re-scores every submission).
        "truth_version": current_truth_version(submission.phase_id),
        "status": Submission.Status.SCORED,
        "error_kind": Submission.ErrorKind.NONE,
        "error_message": "",
        "claim_token": None,
    }
    with transaction.atomic():
        if not _claimed(submission.pk, claim_token):
            log.warning("discarding a stale result for submission %s", submission.pk)
            return False
        Result.objects.filter(submission_id=submission.pk).delete()
        rows = []
        for part in (PUBLIC, PRIVATE, ALL):
            if part in parts:
                rows += Result.rows_for(submission, parts[part].metrics, part=part)
        Result.objects.bulk_create(rows)
        if replicates is not None:
            replace_sets(submission.pk, replicates)
        outcome["finished_at"] = timezone.now()
        Submission.objects.filter(pk=submission.pk).update(**outcome)
        transaction.on_commit(partial(send_finished, submission.pk))
    for name, value in outcome.items():
        setattr(submission, name, value)
    return True


def mark_failed(
    submission_id: uuid.UUID | str,
    kind: str,
    message: str,
    *,
    claim_token: uuid.UUID | None = None,
    problems: dict[str, Any] | None = None,
) -> bool:
    """End a run as failed with a kind and a human-readable message.

    With ``claim_token``, only if that claim is still current; without, only
    if the submission is not finished already.
    """
    with transaction.atomic():
        if claim_token is None:
            rows = Submission.objects.filter(pk=submission_id).exclude(
                status__in=[Submission.Status.SCORED, Submission.Status.FAILED]
            )
            if not rows.update(claim_token=None):
                return False
        elif not _claimed(submission_id, claim_token):
            return False
        Result.objects.filter(submission_id=submission_id).delete()
        Submission.objects.filter(pk=submission_id).update(
            status=Submission.Status.FAILED,
            error_kind=kind,
            error_message=message,
            report=_finite(problems) if problems else None,
            primary_value=None,
            private_primary_value=None,
            private_report=None,
            finished_at=timezone.now(),
            claim_token=None,
        )
        transaction.on_commit(partial(send_finished, submission_id))
    return True
