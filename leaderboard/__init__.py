# Load the Celery app whenever Django starts so that tasks enqueued by views use it.
from leaderboard.celery import app as celery_app

__all__ = ["celery_app"]
