"""Fill in the stored bootstrap replicates of scored submissions that lack current ones.

A chore for the worker host (it reads stored prediction files, which no board job or page does):
after an upgrade that introduced replicates, after ``REPLICATES_VERSION`` changed, or after a
phase's truth was replaced. Boards of the phases it touched are rebuilt afterwards, in the
background, through the board update task.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction
from django.db.models import Exists, OuterRef

import scoring
from leaderboard.boards.tasks import enqueue_update
from leaderboard.challenges.truth_cache import TruthMissing
from leaderboard.submissions import replicates
from leaderboard.submissions.models import ReplicateSet, Submission
from leaderboard.submissions.runs import _score_file
from scoring import replicates as stats


def stale(submissions):
    """The submissions among ``submissions`` whose replicates are missing, of another version or another truth."""
    current = ReplicateSet.objects.filter(submission=OuterRef("pk"), version=stats.REPLICATES_VERSION)
    return submissions.annotate(has_current=Exists(current)).filter(has_current=False)


class Command(BaseCommand):
    help = "Compute missing stored bootstrap replicates (single-seed tasks) and rebuild the boards they change."

    def add_arguments(self, parser) -> None:
        parser.add_argument("tasks", nargs="*", help="task slugs (default: all)")
        parser.add_argument("--all", action="store_true", help="recompute every scored submission's replicates")

    def handle(self, *args, tasks, all, **options) -> None:
        subs = Submission.objects.scored().select_related("phase")
        if tasks:
            subs = subs.filter(phase__task_slug__in=tasks)
        if not all:
            subs = stale(subs)
        phases = {}
        done = skipped = 0
        for sub in subs.iterator(chunk_size=200):
            if not stats.uses_bootstrap(sub.phase.task):
                continue
            try:
                _, aligned = _score_file(sub)
            except (scoring.ScoringError, OSError, TruthMissing) as error:
                self.stderr.write(f"{sub.pk}: skipped ({error})")
                skipped += 1
                continue
            found = replicates.compute(sub, aligned)
            with transaction.atomic():
                replicates.replace_sets(sub.pk, found)
            phases[sub.phase_id] = sub.phase
            done += 1
        for phase_id in phases:
            enqueue_update(phase_id)
        self.stdout.write(
            f"replicates stored for {done} submission(s), {skipped} skipped; {len(phases)} phase(s) queued"
        )
