"""Checks behind ``/healthz``: the database, the broker, file storage, the last worker heartbeat.

Each check writes, not just connects: a read-only database, a full disk or a
broker refusing new messages make every POST fail while reads still work, and a
probe that only reads would call that healthy. Each returns None when healthy or
the exception's class name when not. The name is safe to show publicly; the full
error (which may carry host names) goes to the log only.
"""

from __future__ import annotations

import logging
import os
import tempfile
import uuid
from datetime import datetime
from pathlib import Path
from urllib.parse import urlparse

import redis
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from kombu import Connection

from leaderboard.ops.models import WorkerHeartbeat

logger = logging.getLogger(__name__)

# Short enough that a load balancer's probe never hangs on a dead service.
BROKER_TIMEOUT_SECONDS = 2.0

# The WorkerHeartbeat row the web process writes to prove the database takes writes.
# It is not a worker: ``last_worker_heartbeat`` leaves it out.
PROBE_HOSTNAME = "healthz-probe"

# The storages a request writes to (uploads, kept files); static files are read-only.
WRITABLE_STORAGES = ("default", "private")

# About the size of one broker message: a full disk refuses this as it refuses a message.
BROKER_PROBE_BYTES = 4096


def check_database() -> str | None:
    """Run ``SELECT 1``, then commit a write of the probe heartbeat row."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        with transaction.atomic():
            now = timezone.now()
            if not WorkerHeartbeat.objects.filter(hostname=PROBE_HOSTNAME).update(last_seen=now):
                try:
                    with transaction.atomic():
                        WorkerHeartbeat.objects.create(hostname=PROBE_HOSTNAME, last_seen=now)
                except IntegrityError:
                    pass  # a concurrent probe created it first: that was a write too
    except Exception as exc:  # any failure means "not usable"; the probe must still answer
        logger.warning("health check: database unreachable or read-only: %r", exc)
        return type(exc).__name__
    return None


def check_storages() -> dict[str, str]:
    """Save and delete a small file in each writable storage; ``{alias: error class}`` for those that fail."""
    errors = {}
    for alias in WRITABLE_STORAGES:
        if alias not in settings.STORAGES:
            continue
        try:
            storage = storages[alias]
            name = storage.save(f"healthz/{uuid.uuid4().hex}.txt", ContentFile(b"ok\n"))
            storage.delete(name)
        except Exception as exc:  # bad credentials, an unreachable bucket, a full or read-only disk
            logger.warning("health check: %s storage not writable: %r", alias, exc)
            errors[alias] = type(exc).__name__
    return errors


def broker_transport(url: str | None = None) -> str:
    """The broker's transport name from its URL: ``filesystem``, ``redis``, ``amqp``..."""
    url = url if url is not None else settings.CELERY_BROKER_URL
    return urlparse(url).scheme or "unknown"


def check_broker() -> str | None:
    """Connect to the configured broker with a short timeout.

    For kombu's filesystem transport there is no server: the queue folders must
    exist and be writable by this process (a worker process reads the same ones).
    """
    url = settings.CELERY_BROKER_URL
    try:
        transport = broker_transport(url)
        if transport == "filesystem":
            _check_filesystem_broker(settings.CELERY_BROKER_TRANSPORT_OPTIONS)
        elif transport in {"redis", "rediss"}:
            client = redis.Redis.from_url(
                url, socket_connect_timeout=BROKER_TIMEOUT_SECONDS, socket_timeout=BROKER_TIMEOUT_SECONDS
            )
            try:
                # A write: a replica, a full memory (noeviction) or a failed snapshot
                # (stop-writes-on-bgsave-error) refuse it while PING still answers.
                client.set(f"healthz:{PROBE_HOSTNAME}", "1", ex=60)
            finally:
                client.close()
        else:
            with Connection(url, connect_timeout=BROKER_TIMEOUT_SECONDS) as conn:
                conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
    except Exception as exc:  # any failure means "not reachable"; the probe must still answer
        logger.warning("health check: broker unreachable: %r", exc)
        return type(exc).__name__
    return None


class BrokerFolderMissing(OSError):
    """A folder of the filesystem broker is missing or not writable."""


def _check_filesystem_broker(options: dict) -> None:
    for key in ("data_folder_in", "data_folder_out", "control_folder"):
        folder = options.get(key)
        if not folder:
            continue
        path = Path(folder)
        if not path.is_dir() or not os.access(path, os.W_OK | os.X_OK):
            raise BrokerFolderMissing(f"{key} {path} is missing or not writable")
    # The disk may still be full: write and sync a message-sized file where messages go.
    folder = options.get("data_folder_out") or options.get("data_folder_in")
    if folder:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".healthz-", suffix=".tmp")
        try:
            os.write(fd, b"\0" * BROKER_PROBE_BYTES)
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(name)


def last_worker_heartbeat() -> datetime | None:
    """When any worker last ran the heartbeat task, or None (never, or the table is unreachable)."""
    try:
        rows = WorkerHeartbeat.objects.exclude(hostname=PROBE_HOSTNAME).order_by("-last_seen")
        row = rows.values_list("last_seen", flat=True).first()
    except Exception as exc:  # the database check reports the real problem
        logger.warning("health check: heartbeat unreadable: %r", exc)
        return None
    return row


def _age_seconds(moment: datetime | None, now: datetime) -> float | None:
    return None if moment is None else max(0.0, (now - moment).total_seconds())


def queue_report(now: datetime | None = None) -> tuple[dict, list[str]]:
    """Per job queue, how old its newest worker heartbeat and its oldest queued job are; and what lags.

    The second value lists, as sentences, each bound of settings that is exceeded: a queue whose newest
    heartbeat is older than HEALTH_MAX_HEARTBEAT_AGE_SECONDS (a queue no worker ever answered is
    not judged: the queued-job bound catches a worker that never started), and the oldest queued
    submission waiting longer than HEALTH_MAX_QUEUE_WAIT_SECONDS.
    """
    from django.db.models import Max

    from leaderboard.ops.models import WorkerHeartbeat
    from leaderboard.submissions.models import Submission

    now = now or timezone.now()
    report: dict = {}
    lagging: list[str] = []
    heartbeat_bound = settings.HEALTH_MAX_HEARTBEAT_AGE_SECONDS
    for queue in (settings.SCORING_QUEUE, settings.BACKGROUND_QUEUE):
        seen = WorkerHeartbeat.objects.filter(hostname__endswith=f"/{queue}").aggregate(last=Max("last_seen"))["last"]
        age = _age_seconds(seen, now)
        report[queue] = {"worker_last_seen": seen.isoformat() if seen else None}
        if age is not None and age > heartbeat_bound:
            lagging.append(f"the {queue} workers' last heartbeat is {age:.0f} s old (bound {heartbeat_bound} s)")
    waiting = _age_seconds(Submission.objects.oldest_queued_at(), now)
    report[settings.SCORING_QUEUE]["oldest_queued_seconds"] = None if waiting is None else round(waiting, 1)
    wait_bound = settings.HEALTH_MAX_QUEUE_WAIT_SECONDS
    if waiting is not None and waiting > wait_bound:
        lagging.append(f"the oldest queued submission has waited {waiting:.0f} s (bound {wait_bound} s)")
    return report, lagging
