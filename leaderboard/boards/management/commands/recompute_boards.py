"""Rebuild precomputed leaderboards (after a change of the ranking rule or of scoring)."""

from django.core.management.base import BaseCommand

from leaderboard.boards.matrix import enqueue_stale, refresh_phase
from leaderboard.boards.recompute import recompute_phase
from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission


class Command(BaseCommand):
    help = "Rebuild the boards of every phase with scored submissions (or of the given task slugs)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("tasks", nargs="*", help="task slugs (default: all)")
        parser.add_argument(
            "--tests", action="store_true", help="also compute the significance matrices here (not in a worker)"
        )

    def handle(self, *args, tasks, tests, **options) -> None:
        phases = Phase.objects.filter(pk__in=Submission.objects.scored().values("phase_id"))
        if tasks:
            phases = Phase.objects.filter(task_slug__in=tasks)
        for phase in phases:
            recompute_phase(phase)
            if tests:
                refresh_phase(phase.pk)
            else:
                enqueue_stale(phase.pk)
            self.stdout.write(f"rebuilt {phase}")
