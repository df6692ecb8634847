"""Periodic chores run by the Celery worker, and the worker's own heartbeat."""

from celery import shared_task
from celery.signals import worker_ready
from django.db import connection
from django.utils import timezone

from leaderboard.ops.models import WorkerHeartbeat


def heartbeat_name(hostname: str, queue: str = "") -> str:
    """The WorkerHeartbeat key of a worker, per queue it consumes (``celery@host/scoring``)."""
    return f"{hostname}/{queue}" if queue else hostname


def record_heartbeat(hostname: str, queue: str = "") -> None:
    """Store that the worker ``hostname`` is alive now (and took a message from ``queue``)."""
    WorkerHeartbeat.objects.update_or_create(
        hostname=heartbeat_name(hostname, queue)[:255], defaults={"last_seen": timezone.now()}
    )


@shared_task(name="ops.heartbeat", bind=True)
def heartbeat(self, queue: str = "") -> None:
    """Record that the worker which picked up this task from ``queue`` is alive.

    Beat sends one to each job queue every OPS_HEARTBEAT_SECONDS, so /healthz can tell a stuck
    scoring worker from a stuck background worker.
    """
    record_heartbeat(self.request.hostname or "unknown", queue)


@worker_ready.connect
def _on_worker_ready(sender, **kwargs) -> None:
    # Beat's first heartbeat comes a full period after it starts; record the worker
    # at once so /healthz shows it from the first second.
    try:
        record_heartbeat(sender.hostname)
        try:
            consumed = list(sender.app.amqp.queues.consume_from or {})
        except AttributeError:
            consumed = []
        for queue in consumed:
            record_heartbeat(sender.hostname, queue)
    finally:
        connection.close()  # the pool forks from this process: leave it no open connection
