"""manage.py load_drugs [PATH_OR_URL]: the drug pages' data, structures drawn and test pairs counted at import."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.drugs.depict import SECONDS_PER_DRAWING
from leaderboard.drugs.loader import TIME_LIMIT_SECONDS, DrugInfoError, default_source, load


class Command(BaseCommand):
    help = (
        "Import MUDI's drug information (name, formula, SMILES, description) from a path or an http(s) URL "
        "(default: settings.DRUG_INFO_SOURCE, else drug_info.json in MUDI's shared data folder). Draws each structure "
        "with RDKit once and counts each drug's test pairs by class from the loaded MUDI truth."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source", nargs="?", help="a path or URL of drug_info.json")
        parser.add_argument(
            "--time-limit", type=float, default=TIME_LIMIT_SECONDS, metavar="SECONDS",
            help="stop drawing after this long; the structures left are drawn by the next import (default 900)",
        )  # fmt: skip
        parser.add_argument(
            "--seconds-per-drawing", type=float, default=SECONDS_PER_DRAWING, metavar="SECONDS",
            help="a structure RDKit has not drawn by then gets a placeholder message instead (default 10)",
        )  # fmt: skip

    def handle(self, *args: Any, source: str | None = None, **options: Any) -> None:
        source = source or default_source()
        try:
            report = load(source, options["time_limit"], options["seconds_per_drawing"])
        except DrugInfoError as error:
            raise CommandError(str(error)) from error
        counted = (
            f"test pairs counted for {report.counted} from truth {report.truth[:12]}"
            if report.truth
            else "no MUDI truth loaded, so no test pairs counted"
        )
        self.stdout.write(
            f"Drugs from {source}: {report.created} created, {report.updated} updated, {report.drawn} drawn, "
            f"{len(report.unreadable)} SMILES RDKit could not read or draw in time; {counted}."
        )
        if report.unreadable:
            self.stdout.write(f"  no drawing: {', '.join(report.unreadable[:20])}")
        if report.postponed:
            self.stdout.write(
                f"  the time limit ran out: {len(report.postponed)} structure(s) left for the next import "
                f"({', '.join(report.postponed[:20])})"
            )
