from django.apps import AppConfig

from leaderboard.celery import register_periodic_task

# How often Celery beat runs the sweep (see docs/submissions.md).
SWEEP_EVERY_SECONDS = 60


class SubmissionsConfig(AppConfig):
    name = "leaderboard.submissions"
    label = "submissions"

    def ready(self) -> None:
        register_periodic_task("sweep-submissions", "submissions.sweep", SWEEP_EVERY_SECONDS)
