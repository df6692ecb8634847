"""manage.py rescore --task SLUG: score a task's submissions again after a scorer or truth change."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

import scoring
from leaderboard.submissions import edits, runs
from leaderboard.submissions.models import Submission


class Command(BaseCommand):
    help = (
        "Queue every finished submission of a task for scoring again (results are cleared and rewritten, "
        "with the current scorer version). --now scores them in this process instead of the workers."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--task", required=True, help="task slug")
        parser.add_argument("--outdated", action="store_true", help="only those scored by another scorer version")
        parser.add_argument("--now", action="store_true", help="score in this process (no worker needed)")

    def handle(self, *args: Any, task: str, outdated: bool, now: bool, **options: Any) -> None:
        if task not in scoring.TASKS:
            raise CommandError(f"unknown task {task!r}")
        finished = Submission.objects.for_task(task).filter(
            status__in=[Submission.Status.SCORED, Submission.Status.FAILED]
        )
        if outdated:
            finished = finished.exclude(status=Submission.Status.SCORED, scorer_version=scoring.__version__)
        count = 0
        for submission in finished.order_by("created_at"):
            edits.requeue(submission, enqueue=not now)
            if now:
                runs.score_submission.apply(args=[str(submission.pk)])
            count += 1
        where = "in this process" if now else "by the workers"
        self.stdout.write(f"{count} submission(s) of {task} re-queued, scored {where} (scorer {scoring.__version__}).")
