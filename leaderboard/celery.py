"""The Celery application shared by the web process, workers and beat.

Configuration lives in Django settings under the ``CELERY_`` namespace (JSON only,
``acks_late``, time limits: see settings.py and docs/configuration.md).

Periodic jobs: an app registers its own in ``AppConfig.ready()`` with
``register_periodic_task``; beat picks them up at start. Keeping the entries
next to the task they run means no app has to edit settings.py.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")

app = Celery("leaderboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def register_periodic_task(name: str, task: str, every_seconds: float, args: tuple = (), **options) -> None:
    """Add (or replace) the beat schedule entry ``name`` that sends ``task(*args)`` every ``every_seconds``.

    Call it from ``AppConfig.ready()``. The message expires after one period, so a
    backlog of identical chores never piles up while no worker is running.
    """
    entry: dict = {
        "task": task,
        "schedule": float(every_seconds),
        "options": {"expires": float(every_seconds), **options},
    }
    if args:
        entry["args"] = list(args)
    app.conf.beat_schedule[name] = entry
