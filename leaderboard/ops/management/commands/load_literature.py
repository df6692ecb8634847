"""manage.py load_literature PATH...: import published-results CSVs (a file, or every *.csv of a folder).

In ops, like load_benchmarks (which runs it with --demo): it writes the
literature app's rows from ``scoring.literature``'s reading of the files.

Each file replaces the rows an earlier import of the same file name made, so
re-running is idempotent and a corrected table replaces the old one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from leaderboard.literature.models import PublishedResult, bump, sync_phases
from scoring import ScoringError, literature


def import_file(path: Path) -> int:
    """Replace the rows of ``path``'s file name with its lines; the number of rows stored."""
    values = literature.read_table(path)
    with transaction.atomic():
        PublishedResult.objects.filter(file_name=path.name).delete()
        PublishedResult.objects.bulk_create(
            PublishedResult(
                task_slug=v.task, method=v.method, setting=v.setting, metric=v.metric, key=v.key, value=v.value,
                spread=v.spread, unit=v.unit, source=v.source, notes=v.notes, file_name=path.name, line=v.line,
            )
            for v in values
        )  # fmt: skip
        sync_phases()
        transaction.on_commit(bump)  # cached board pages and exports show the new rows
    return len(values)


class Command(BaseCommand):
    help = (
        "Import published results (CSV: benchmark_task, method, setting, metric, value, spread, unit, source, notes)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("paths", nargs="+", help="CSV files or folders of them")

    def handle(self, *args: Any, paths: list[str], **options: Any) -> None:
        files: list[Path] = []
        for raw in paths:
            path = Path(raw)
            if path.is_dir():
                files += sorted(path.glob("*.csv"))
            elif path.is_file():
                files.append(path)
            else:
                raise CommandError(f"{raw}: no such file or folder")
        for path in files:
            try:
                n = import_file(path)
            except ScoringError as error:
                raise CommandError(f"{path}: {error}") from error
            self.stdout.write(f"{path.name}: {n} published values")
