"""Celery finds an app's tasks by importing ``<app>.tasks``; this app's tasks sit in ``services``.

Each task lives beside the service it wraps (pretix's habit), which keeps the
import one way: this module imports ``services``, nothing imports this module back.
"""

from leaderboard.submissions.services import score_submission, sweep_submissions

__all__ = ["score_submission", "sweep_submissions"]
