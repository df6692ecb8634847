from django.apps import AppConfig
from django.conf import settings

from leaderboard.celery import register_periodic_task


class OpsConfig(AppConfig):
    """Operations: worker heartbeat, health checks, the plotly static finder, dev commands."""

    name = "leaderboard.ops"
    label = "ops"

    def ready(self) -> None:
        # Beat sends one to each job queue once a minute; /healthz reports when each was last run.
        every = settings.OPS_HEARTBEAT_SECONDS
        background, scoring = settings.BACKGROUND_QUEUE, settings.SCORING_QUEUE
        register_periodic_task("ops.heartbeat", "ops.heartbeat", every, args=(background,), queue=background)
        register_periodic_task(f"ops.heartbeat.{scoring}", "ops.heartbeat", every, args=(scoring,), queue=scoring)
