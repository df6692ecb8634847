"""manage.py import_challenge BUNDLE.zip: create an organized challenge from a bundle, all or nothing."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.challenges.bundles import BundleError, import_bundle


class Command(BaseCommand):
    help = (
        "Create an organized challenge, its phases and their truth files from a bundle .zip "
        "(challenge.yaml plus truth files; see docs/challenges.md). Nothing is created on any error."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("bundle", help="path of the bundle .zip")
        parser.add_argument("--slug", help="use this slug instead of the bundle's (to copy a challenge)")
        parser.add_argument("--organizer", help="username to add as an organizer (recorded as the truth uploader)")

    def handle(self, *args: Any, bundle: str, slug: str | None, organizer: str | None, **options: Any) -> None:
        user = None
        if organizer:
            user = get_user_model().objects.filter(username=organizer).first()
            if user is None:
                raise CommandError(f"no user {organizer!r}")
        try:
            with open(bundle, "rb") as handle:
                challenge = import_bundle(handle, slug=slug, imported_by=user)
        except OSError as error:
            raise CommandError(f"could not read {bundle}: {error.strerror or error}") from error
        except BundleError as error:
            raise CommandError(f"invalid bundle ({len(error.problems)} problem(s)):\n{error}") from error
        phases = challenge.phases.count()
        self.stdout.write(f"imported challenge {challenge.slug} with {phases} phase{'s' if phases != 1 else ''}")
