"""manage.py export_challenge SLUG: write an organized challenge as a bundle .zip that import_challenge reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.challenges.bundles import export_bundle
from leaderboard.challenges.models import Challenge


class Command(BaseCommand):
    help = "Write challenge SLUG (definition and current truth files) as a bundle .zip."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--out", help="output path (default: SLUG.zip in the current directory)")

    def handle(self, *args: Any, slug: str, out: str | None, **options: Any) -> None:
        challenge = Challenge.objects.organized().filter(slug=slug).first()
        if challenge is None:
            raise CommandError(f"no organized challenge {slug!r}")
        target = Path(out or f"{slug}.zip")
        target.write_bytes(export_bundle(challenge))
        self.stdout.write(f"wrote {target}")
