from django.apps import AppConfig
from django.conf import settings

from leaderboard.celery import register_periodic_task


class OpsConfig(AppConfig):
    """Operations: worker heartbeat, health checks, the plotly static finder, dev commands."""

    name = "leaderboard.ops"
    label = "ops"

    def ready(self) -> None:
        # Beat sends this once a minute; /healthz reports when a worker last ran it.
        register_periodic_task("ops.heartbeat", "ops.heartbeat", every_seconds=settings.OPS_HEARTBEAT_SECONDS)
