"""Periodic chores run by the Celery worker, and the worker's own heartbeat."""

from celery import shared_task
from celery.signals import worker_ready
from django.db import connection
from django.utils import timezone

from leaderboard.ops.models import WorkerHeartbeat


def record_heartbeat(hostname: str) -> None:
    """Store that the worker ``hostname`` is alive now."""
    WorkerHeartbeat.objects.update_or_create(hostname=hostname, defaults={"last_seen": timezone.now()})


@shared_task(name="ops.heartbeat", bind=True)
def heartbeat(self) -> None:
    """Record that the worker which picked up this task is alive (beat sends it every minute)."""
    record_heartbeat(self.request.hostname or "unknown")


@worker_ready.connect
def _on_worker_ready(sender, **kwargs) -> None:
    # Beat's first heartbeat comes a full period after it starts; record the worker
    # at once so /healthz shows it from the first second.
    try:
        record_heartbeat(sender.hostname)
    finally:
        connection.close()  # the pool forks from this process: leave it no open connection
