"""manage.py load_benchmarks [--demo]: the standing challenges, and with --demo, truths and baselines.

It lives in ops, above the apps it drives: challenges (phases and truths) and
submissions (baselines scored through the real task), so neither of those
imports the other the wrong way.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

import scoring
from leaderboard.challenges.demo_truths import demo_truth
from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import import_truth, sync_standing_challenges
from leaderboard.drugs.loader import default_source as default_drug_source
from leaderboard.kinds import mudi
from leaderboard.ops.demo_challenge import SLUG, ensure_demo_challenge
from leaderboard.submissions.baselines import ensure_baselines
from leaderboard.submissions.runs import score_submission

if TYPE_CHECKING:
    from leaderboard.submissions.models import Submission


def run_scoring_task(submission_id: uuid.UUID) -> str:
    """Run the worker's task function in this process (same code path, no broker round trip)."""
    return score_submission.apply(args=[str(submission_id)]).get(propagate=False)


class Command(BaseCommand):
    help = (
        "Create or update one standing challenge per scoring family with one phase per task (idempotent). "
        "With --demo, also import the real MUDI test set when found, synthetic truths (labelled as such) "
        "for tasks without real data, baseline submissions scored through the real task, and the organized "
        "demo challenge (MUDI held-out pairs 2027) in every state."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--demo", action="store_true", help="also load demo truths and baseline submissions")
        parser.add_argument("--no-baselines", action="store_true", help="with --demo: truths only")
        parser.add_argument("--task", action="append", help="with --demo: only this task (repeatable)")
        parser.add_argument("--no-challenge", action="store_true", help="with --demo: not the organized demo challenge")

    def handle(
        self,
        *args: Any,
        demo: bool = False,
        no_baselines: bool = False,
        task: str | None = None,
        no_challenge: bool = False,
        **options: Any,
    ) -> None:
        report = sync_standing_challenges()
        self.stdout.write(
            f"Standing challenges: {report.challenges_created} challenge(s) and {report.phases_created} phase(s) "
            f"created, {report.phases_updated} phase(s) updated."
        )
        if not demo:
            return
        started = time.monotonic()
        slugs = task or list(scoring.TASKS)
        for slug in slugs:
            phase = Phase.objects.standing().get(task_slug=slug)
            with tempfile.TemporaryDirectory() as tmp:
                if phase.has_truth and not phase.truth_is_synthetic:
                    source = None  # a real truth imported by an operator is never replaced by demo data
                else:
                    source = demo_truth(phase.task, Path(tmp))
                    result = import_truth(phase, source.path, synthetic=source.synthetic, label=source.source)
                    kind = "synthetic" if source.synthetic else "real"
                    state = "imported" if result.changed else "unchanged"
                    self.stdout.write(f"  {slug}: {kind} truth {state} ({source.source})")
                if no_baselines:
                    continue
                created = ensure_baselines(phase, phase.truth_file, run=run_scoring_task)
                if created:
                    states = ", ".join(f"{s.method_name}: {_state(s)}" for s in created)
                    self.stdout.write(f"    baselines {states}")
        # The organized demo challenge is one of MUDI's task, with scored entries (so not with --no-baselines).
        if not (no_challenge or no_baselines) and (task is None or mudi.TASK_SLUG in task):
            outcome = ensure_demo_challenge(run_scoring_task)
            state = "created" if outcome.created else "unchanged"
            self.stdout.write(f"  demo challenge {SLUG}: {state}, {len(outcome.scored)} entries scored")
        literature_dir = Path(settings.SHARED_DATA_DIR) / "data" / "literature"
        if literature_dir.is_dir():  # published results beside the boards (every file of the folder)
            call_command("load_literature", str(literature_dir), stdout=self.stdout)
        # MUDI's drug pages: after the truths, so each drug's test pairs are counted from the loaded one.
        if mudi.TASK_SLUG in slugs and (Path(default_drug_source()).exists() or "://" in default_drug_source()):
            call_command("load_drugs", stdout=self.stdout)
        self.stdout.write(f"Demo data ready in {time.monotonic() - started:.1f} s.")


def _state(submission: Submission) -> str:
    submission.refresh_from_db()
    if submission.status == "scored":
        return f"{submission.primary_value:.4f}" if submission.primary_value is not None else "scored"
    return f"{submission.status} ({submission.error_message[:80]})"
