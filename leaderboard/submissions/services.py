"""Writes on submissions: create, claim, store a score, fail, re-run, sweep, and the Celery tasks.

Every write that touches several rows is one function under one transaction.
The Submission row is the state machine (queued -> running -> scored | failed);
only the holder of the current ``claim_token`` may write the outcome of a run.

The tasks sit beside the services they wrap (``score_submission`` beside
``claim``/``store_score``/``mark_failed``, ``sweep_submissions`` beside
``sweep``), so ``enqueue`` needs no import of a tasks module that imports this
one back. Thin on purpose: load the row -> call ``scoring`` -> store; see
docs/submissions.md for the failure cases each branch handles.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import math
import os
import random
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import IO, TYPE_CHECKING, Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.files import File
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F, Q
from django.utils import timezone

import scoring
from leaderboard.challenges.services import current_truth_version
from leaderboard.challenges.truth_cache import TruthMissing, phase_split, phase_truth
from leaderboard.submissions import quotas
from leaderboard.submissions.models import Result, Submission
from leaderboard.submissions.signals import board_changed, submission_scored
from scoring import submission_fields
from scoring.splits import ALL, PRIVATE, PUBLIC

if TYPE_CHECKING:
    from django.core.files.uploadedfile import UploadedFile

    from leaderboard.accounts.models import Team, User
    from leaderboard.challenges.models import Phase

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


# --- creating ------------------------------------------------------------------


class HashingFile(File):
    """A file whose sha256 is computed while a storage backend streams it (one pass)."""

    def __init__(self, file: IO[bytes], name: str) -> None:
        super().__init__(file, name)
        self.digest = hashlib.sha256()
        self.bytes_hashed = 0

    def chunks(self, chunk_size: int | None = None) -> Iterator[bytes]:
        for chunk in super().chunks(chunk_size):
            self.digest.update(chunk)
            self.bytes_hashed += len(chunk)
            yield chunk


def _sha256_of(upload: UploadedFile) -> str:
    upload.seek(0)
    digest = hashlib.sha256()
    for chunk in iter(lambda: upload.read(1024 * 1024), b""):
        digest.update(chunk)
    return digest.hexdigest()


class Metadata:
    """What a submitter says about the method (everything but the file).

    The model columns of the declared method fields (``scoring.submission_fields``),
    as stored (``stored_value``), plus the task's declarations. Fields left out take
    the model's defaults; the required ones (the method name) must be given.
    """

    def __init__(self, *, declarations: dict | None = None, **columns: Any) -> None:
        known = {f.column_name: f for f in submission_fields.FIELDS}
        if unknown := sorted(set(columns) - set(known)):
            raise TypeError(f"Metadata() got an unexpected keyword argument {unknown[0]!r}")
        if missing := [c for c, f in known.items() if f.required and c not in columns]:
            raise TypeError(f"Metadata() missing required keyword argument {missing[0]!r}")
        self.columns = columns
        self.declarations = declarations or {}

    def __repr__(self) -> str:
        return f"Metadata({self.columns!r}, declarations={self.declarations!r})"


def create_submission(
    *,
    phase: Phase,
    team: Team,
    user: User,
    upload: UploadedFile,
    metadata: Metadata,
    charge_quota: bool = True,
    is_baseline: bool = False,
    enqueue: bool = True,
) -> Submission:
    """Store an uploaded file privately and queue it for scoring.

    The file is written to storage first (hashing it as it streams), then the
    row is inserted under the team's lock after the quota check, and the
    scoring task is enqueued when that transaction commits. Raises
    ``quotas.QuotaExceeded`` or another ``quotas.SubmissionRefused`` (the stored file is removed). Validation is the
    caller's job (the form validates small files; the worker validates all).
    ``enqueue=False`` leaves the row queued for a caller that runs the task
    itself (``load_benchmarks``); the sweep would pick it up otherwise.
    A charged upload also needs a verified address and binds the user to
    ``team`` on the phase (``quotas.SubmissionRefused`` otherwise).
    """
    if charge_quota:
        # Cheap early refusals without writing the file; the locked checks below are the ones that count.
        # (A user's own count is checked under the lock only: bound to one team, it cannot pass the team's.)
        quotas.check_may_submit(user, team, phase)
        quota = quotas.quota_for(team, phase)
        if quota.exhausted:
            raise quotas.QuotaExceeded(quota)
    submission = Submission(
        id=uuid.uuid4(),
        phase=phase,
        team=team,
        user=user,
        file_name=(upload.name or "predictions.csv")[:255],
        file_size=upload.size or 0,
        declarations=metadata.declarations,
        **metadata.columns,
        is_baseline=is_baseline,
    )
    upload.seek(0)
    hashing = HashingFile(upload, submission.file_name)
    try:
        submission.file.save(_storage_name(submission.file_name), hashing, save=False)
    except OSError as error:  # ENOSPC, a read-only or vanished folder: a sentence for the user, the cause in the log
        log.error("could not store an upload of %s for phase %s: %s", user, phase, error)
        if submission.file.name:
            try:
                submission.file.delete(save=False)
            except OSError:
                log.exception("could not remove the partial upload %s", submission.file.name)
        raise quotas.StorageUnavailable() from error
    # A storage that does not stream through chunks() leaves the digest empty: hash again.
    submission.sha256 = hashing.digest.hexdigest() if hashing.bytes_hashed else _sha256_of(upload)
    try:
        with transaction.atomic():
            if charge_quota:
                quotas.lock(team)
                quotas.bind(user, team, phase)
            now = timezone.now()
            submission.status = Submission.Status.QUEUED
            submission.queued_at = now
            submission.enqueued_at = now
            # Insert first, then count including this row: on SQLite the insert takes the write
            # lock, so a concurrent upload waits instead of counting the same old total.
            submission.save(force_insert=True)
            if charge_quota:
                quotas.enforce(team, phase, user=user)
            if enqueue:
                enqueue_on_commit(submission.pk)
    except BaseException:
        submission.file.delete(save=False)
        raise
    return submission


def _storage_name(original: str) -> str:
    # Keep the extension (the worker detects gzip by content, but people download these).
    lowered = original.lower()
    for ext in (".csv.gz", ".tsv.gz", ".txt.gz", ".csv", ".tsv", ".txt", ".gz"):
        if lowered.endswith(ext):
            return f"predictions{ext}"
    return "predictions.csv"


# --- the broker -----------------------------------------------------------------

# Publishing gives up quickly: an upload must not hang because the broker is down
# (the sweep re-sends the row later).
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


def enqueue(submission_id: uuid.UUID) -> bool:
    """Send the scoring task for one submission; False (and a log line) if the broker refused."""
    try:
        score_submission.apply_async(args=[str(submission_id)], retry=True, retry_policy=PUBLISH_RETRY_POLICY)
    except Exception:  # any broker failure: the row stays queued and the sweep re-sends it
        log.exception("could not enqueue submission %s; the sweep will re-send it", submission_id)
        return False
    return True


def enqueue_on_commit(submission_id: uuid.UUID) -> None:
    """Enqueue after the current transaction commits (a worker must find the row)."""
    transaction.on_commit(partial(enqueue, submission_id))


# --- claiming and finishing -------------------------------------------------------


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


def _send_finished(submission_id: uuid.UUID | str) -> None:
    """After commit: tell other apps (boards re-rank) and email the submitter; neither may undo a stored score."""
    from leaderboard.submissions.emails import send_result_email

    submission = Submission.objects.select_related("user", "phase").get(pk=submission_id)
    if submission.status == Submission.Status.SCORED:
        for receiver, response in submission_scored.send_robust(sender=Submission, submission=submission):
            if isinstance(response, Exception):
                log.error("submission_scored receiver %r failed: %r", receiver, response, exc_info=response)
    send_result_email(submission)


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
    Replaces any earlier results of the submission.
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
        outcome["finished_at"] = timezone.now()
        Submission.objects.filter(pk=submission.pk).update(**outcome)
        transaction.on_commit(partial(_send_finished, submission.pk))
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
        transaction.on_commit(partial(_send_finished, submission_id))
    return True


# --- organizers and owners -----------------------------------------------------------


def requeue(submission: Submission, *, enqueue: bool = True) -> Submission:
    """Send a submission back to the queue with its results cleared (organizer re-run, rescore).

    ``enqueue=False`` for a caller that runs the task itself (``rescore --now``).
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


# --- the sweep ----------------------------------------------------------------------


@dataclass
class SweepReport:
    requeued: list = field(default_factory=list)
    failed: list = field(default_factory=list)
    # Running rows whose lease expired with attempts left: queued again (a whole worker was lost).
    recovered: list = field(default_factory=list)


def sweep(*, requeue_after: float | None = None, now: dt.datetime | None = None) -> SweepReport:
    """Re-send queued rows whose message may be lost; recover or fail running rows whose worker is gone.

    Queued rows last sent to the broker more than ``requeue_after`` seconds ago
    (setting SWEEP_REQUEUE_AFTER_SECONDS, default 120) are sent again; a
    duplicate message is harmless (the claim makes it a no-op). Running rows
    whose lease (the hard time limit plus a margin) expired are queued and sent
    again while they have attempts left (``SUBMISSION_MAX_ATTEMPTS`` claims),
    so a whole-worker loss ends scored within the lease plus one sweep; past
    that they are failed as "worker lost", kind platform (never charged).
    """
    now = now or timezone.now()
    if requeue_after is None:
        requeue_after = float(getattr(settings, "SWEEP_REQUEUE_AFTER_SECONDS", 120))
    report = SweepReport()
    cutoff = now - dt.timedelta(seconds=requeue_after)
    stale = Q(enqueued_at__lt=cutoff) | Q(enqueued_at__isnull=True, queued_at__lt=cutoff)
    for pk in Submission.objects.queued().filter(stale).values_list("pk", flat=True):
        # Conditional, so two sweeps running at once do not both re-send.
        if Submission.objects.queued().filter(stale).filter(pk=pk).update(enqueued_at=now):
            enqueue(pk)
            report.requeued.append(pk)
    lost_cutoff = now - dt.timedelta(seconds=lease_seconds())
    for pk in Submission.objects.running().filter(started_at__lt=lost_cutoff).values_list("pk", flat=True):
        with transaction.atomic():
            expired = Submission.objects.running().filter(pk=pk, started_at__lt=lost_cutoff)
            # Attempts left: queue it again (the claim counts attempts; the task gives up past the bound too).
            recovered = expired.filter(attempts__lt=max_attempts()).update(
                status=Submission.Status.QUEUED,
                claim_token=None,
                task_id="",
                started_at=None,
                enqueued_at=now,
            )
            if recovered:
                report.recovered.append(pk)
                transaction.on_commit(partial(enqueue, pk))
                continue
            updated = expired.update(
                status=Submission.Status.FAILED,
                error_kind=Submission.ErrorKind.PLATFORM,
                error_message=WORKER_LOST_MESSAGE,
                finished_at=now,
                claim_token=None,
            )
            if updated:
                report.failed.append(pk)
                transaction.on_commit(partial(_send_finished, pk))
    if report.requeued or report.failed or report.recovered:
        log.info(
            "sweep: re-enqueued %d, recovered %d after a lost worker, failed %d (worker lost, attempts used)",
            len(report.requeued),
            len(report.recovered),
            len(report.failed),
        )
    return report


# --- the Celery tasks ---------------------------------------------------------------

# Errors worth retrying: the database or the file storage was briefly unavailable.
TRANSIENT_ERRORS = (OperationalError, InterfaceError, OSError)
MAX_RETRIES = 3


def scoring_limits() -> scoring.Limits:
    """The size cap of uploads, applied by scoring to the uncompressed content as well."""
    return scoring.Limits(max_bytes=int(settings.SUBMISSION_MAX_BYTES))


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


def _score_file(submission: Submission) -> scoring.Score | dict[str, scoring.Score]:
    """Score the stored file: one Score, or a split phase's public, private and all-rows Scores.

    A split phase validates the file once against the whole truth (participants
    predict every test row without knowing which are public), then scores each part.
    """
    phase = submission.phase
    truth = phase_truth(phase)
    with submission.file.open("rb") as handle:
        if phase.split_spec is None:
            return scoring.score_files(phase.task, truth, handle, limits=scoring_limits())
        return scoring.score_parts(phase.task, truth, handle, phase_split(phase), limits=scoring_limits())


def score_claimed(submission_id: str, token) -> str:
    """Score a submission this run has claimed; always ends the row in scored or failed (or raises transient)."""
    submission = Submission.objects.select_related("phase").get(pk=submission_id)
    _test_delay()
    try:
        score = _score_file(submission)
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
    stored = store_score(submission, score, claim_token=token)
    return "scored" if stored else "stale"


@shared_task(
    bind=True,
    name="submissions.score_submission",
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


@shared_task(name="submissions.sweep", ignore_result=True)
def sweep_submissions() -> dict:
    """Periodic (Celery beat, every minute): re-send lost queued rows, fail abandoned running ones,
    and delete submit-form files kept past their hour."""
    from leaderboard.submissions import staging

    report = sweep()
    return {
        "requeued": len(report.requeued),
        "recovered": len(report.recovered),
        "failed": len(report.failed),
        "staged_removed": staging.sweep_all(),
    }
