"""Celery finds an app's tasks by importing ``<app>.tasks``; this app's task sits beside its service."""

from leaderboard.organize.services import rescore_phase

__all__ = ["rescore_phase"]
