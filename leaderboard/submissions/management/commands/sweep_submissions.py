"""manage.py sweep_submissions: what Celery beat runs every minute, by hand."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from leaderboard.submissions import sweeping


class Command(BaseCommand):
    help = (
        "Re-enqueue submissions queued longer than SWEEP_REQUEUE_AFTER_SECONDS (default 120) and fail, as "
        "'worker lost' (not charged), those running past the hard time limit plus a margin with no attempts "
        "left (SUBMISSION_MAX_ATTEMPTS); with attempts left they are queued and sent again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--requeue-after", type=float, help="seconds a queued row waits before re-sending")

    def handle(self, *args: Any, requeue_after: float | None = None, **options: Any) -> None:
        report = sweeping.sweep(requeue_after=requeue_after)
        self.stdout.write(
            f"Re-enqueued {len(report.requeued)}; failed {len(report.failed)} as worker lost. "
            f"Recovered {len(report.recovered)} after a lost worker."
        )
