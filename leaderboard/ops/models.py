"""Operational state the site reports about itself."""

from django.db import models


class WorkerHeartbeat(models.Model):
    """The last time a Celery worker ran the periodic heartbeat task (one row per worker name)."""

    hostname = models.CharField(max_length=255, unique=True)
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["-last_seen"]

    def __str__(self) -> str:
        return f"{self.hostname} at {self.last_seen:%Y-%m-%d %H:%M:%S}"
