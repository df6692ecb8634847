"""Taking an upload in: store the file privately (hashing it as it streams), insert the row under the
team's quota lock, and queue it for scoring once the transaction commits."""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

from django.core.files import File
from django.db import transaction
from django.utils import timezone

from leaderboard.submissions import quotas
from leaderboard.submissions.models import Submission
from leaderboard.submissions.queueing import enqueue_on_commit, scoring_queue_for
from scoring import submission_fields

if TYPE_CHECKING:
    from django.core.files.uploadedfile import UploadedFile

    from leaderboard.accounts.models import Team, User
    from leaderboard.challenges.models import Phase

log = logging.getLogger(__name__)


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
        scoring_queue=scoring_queue_for(upload, upload.size or 0),
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
