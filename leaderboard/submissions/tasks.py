"""Celery finds an app's tasks by importing ``<app>.tasks``; this app's tasks sit beside what they wrap.

``score_submission`` in ``runs`` (claim, score, store), ``sweep_submissions`` in ``sweeping``;
nothing imports this module back.
"""

from leaderboard.submissions.runs import score_submission
from leaderboard.submissions.sweeping import sweep_submissions

__all__ = ["score_submission", "sweep_submissions"]
