"""manage.py import_truth TASK PATH_OR_URL: validate a truth file with scoring and store it privately."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

import scoring
from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import import_truth, sync_standing_challenges


class Command(BaseCommand):
    help = (
        "Validate TASK's truth file (a path or an http(s) URL) with scoring and store it in private storage "
        "as the test labels of the task's standing phase. For ChemicalX, --from-triples builds the truth "
        "from a labeled_triples.csv (path or URL) with the 10 documented splits."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("task", help="task slug (python -m scoring tasks lists them)")
        parser.add_argument("source", help="truth file path or http(s) URL")
        parser.add_argument("--synthetic", action="store_true", help="label this truth as synthetic demo data")
        parser.add_argument(
            "--from-triples", action="store_true", help="ChemicalX: SOURCE is labeled_triples.csv, not a truth file"
        )
        parser.add_argument("--threshold", type=float, help="with --from-triples: label > X is positive")

    def handle(
        self,
        *args: Any,
        task: str,
        source: str,
        synthetic: bool,
        from_triples: bool,
        threshold: float | None,
        **options: Any,
    ) -> None:
        if task not in scoring.TASKS:
            raise CommandError(f"unknown task {task!r}; valid tasks: {', '.join(scoring.TASKS)}")
        sync_standing_challenges()
        phase = Phase.objects.standing().get(task_slug=task)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                label = source
                if from_triples:
                    if not phase.task.kind_def.truth_from_triples:
                        raise CommandError("--from-triples is for ChemicalX tasks only")
                    built = Path(tmp) / f"{task}-truth.csv"
                    scoring.make_chemicalx_truth(source, seeds=phase.task.seeds, threshold=threshold, out=built)
                    rule = f", label > {threshold:g} positive" if threshold is not None else ""
                    label, source = f"{source} (splits 0-9{rule})", str(built)
                result = import_truth(phase, source, synthetic=synthetic, label=label)
        except scoring.ScoringError as error:
            raise CommandError(f"invalid truth file ({error.total} problem(s)):\n{error}") from error
        except OSError as error:
            raise CommandError(f"could not read {source}: {error}") from error
        state = "imported" if result.changed else "unchanged (same file already imported)"
        self.stdout.write(f"{task}: truth {state}; {result.n_rows:,} rows, sha256 {result.sha256[:16]}.")
        if result.changed and phase.submissions.scored().exists():
            self.stdout.write(f"Existing scores used the old truth: run manage.py rescore --task {task}.")
