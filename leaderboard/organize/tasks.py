"""Celery finds an app's tasks by importing ``<app>.tasks``; this app's tasks sit beside their services."""

from leaderboard.organize.moderation import email_announcement_task, email_decision_task, rerun_phase_task
from leaderboard.organize.services import rescore_phase

__all__ = ["email_announcement_task", "email_decision_task", "rerun_phase_task", "rescore_phase"]
