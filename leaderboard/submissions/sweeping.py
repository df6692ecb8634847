"""The periodic sweep: the database, not the broker, says which work was lost."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field
from functools import partial

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard.submissions import queueing, staging
from leaderboard.submissions.models import Submission
from leaderboard.submissions.outcomes import WORKER_LOST_MESSAGE, lease_seconds, max_attempts, send_finished

log = logging.getLogger(__name__)


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
            queueing.enqueue(pk)
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
                transaction.on_commit(partial(queueing.enqueue, pk))
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
                transaction.on_commit(partial(send_finished, pk))
    if report.requeued or report.failed or report.recovered:
        log.info(
            "sweep: re-enqueued %d, recovered %d after a lost worker, failed %d (worker lost, attempts used)",
            len(report.requeued),
            len(report.recovered),
            len(report.failed),
        )
    return report


@shared_task(name="submissions.sweep", ignore_result=True)
def sweep_submissions() -> dict:
    """Periodic (Celery beat, every minute): re-send lost queued rows, fail abandoned running ones,
    and delete submit-form files kept past their hour."""
    report = sweep()
    return {
        "requeued": len(report.requeued),
        "recovered": len(report.recovered),
        "failed": len(report.failed),
        "staged_removed": staging.sweep_all(),
    }
