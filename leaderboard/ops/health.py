"""Reachability checks behind ``/healthz``: the database, the broker, file storage, the last worker heartbeat.

Each check returns None when healthy or the exception's class name when not. The
name is safe to show publicly; the full error (which may carry host names) goes
to the log only.
"""

from __future__ import annotations

import logging
import os
from datetime import datetime
from pathlib import Path
from urllib.parse import urlparse

from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)

# Short enough that a load balancer's probe never hangs on a dead service.
BROKER_TIMEOUT_SECONDS = 2.0


def check_database() -> str | None:
    """Run ``SELECT 1`` on the default database."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means "not reachable"; the probe must still answer
        logger.warning("health check: database unreachable: %r", exc)
        return type(exc).__name__
    return None


def check_storage() -> str | None:
    """Ask private storage about a name (a HEAD request on a bucket): reachable and allowed in."""
    from leaderboard.storage import private_storage

    try:
        private_storage().exists("healthz-probe")
    except Exception as exc:  # bad credentials or an unreachable bucket alike
        logger.warning("health check: file storage unreachable: %r", exc)
        return type(exc).__name__
    return None


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
            import redis

            client = redis.Redis.from_url(
                url, socket_connect_timeout=BROKER_TIMEOUT_SECONDS, socket_timeout=BROKER_TIMEOUT_SECONDS
            )
            try:
                client.ping()
            finally:
                client.close()
        else:
            from kombu import Connection

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


def last_worker_heartbeat() -> datetime | None:
    """When any worker last ran the heartbeat task, or None (never, or the table is unreachable)."""
    from leaderboard.ops.models import WorkerHeartbeat

    try:
        row = WorkerHeartbeat.objects.order_by("-last_seen").values_list("last_seen", flat=True).first()
    except Exception as exc:  # the database check reports the real problem
        logger.warning("health check: heartbeat unreadable: %r", exc)
        return None
    return row
