"""Reveal an organized phase now: close it, resolve final selections, publish its private board."""

from django.core.management.base import BaseCommand, CommandError

from leaderboard.boards.reveal import RevealRefused, reveal_phase
from leaderboard.challenges.models import Phase


class Command(BaseCommand):
    help = (
        "Reveal phase PHASE of challenge CHALLENGE (both slugs): what beat does at the reveal time. "
        "Running it again on a revealed phase changes nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("challenge", help="the challenge's slug")
        parser.add_argument("phase", help="the phase's slug")

    def handle(self, *args, challenge: str, phase: str, **options) -> None:
        found = Phase.objects.filter(challenge__slug=challenge, slug=phase).select_related("challenge").first()
        if found is None:
            raise CommandError(f"No phase {phase!r} in challenge {challenge!r}.")
        try:
            outcome = reveal_phase(found)
        except RevealRefused as refused:
            raise CommandError(str(refused)) from None
        if not outcome.revealed:
            when = f"{found.revealed_at:%Y-%m-%d %H:%M}"
            self.stdout.write(f"{found} was already revealed on {when} UTC; nothing changed.")
            return
        self.stdout.write(
            f"revealed {found}: {outcome.n_final} final submission{'s' if outcome.n_final != 1 else ''} "
            f"of {outcome.n_teams} team{'s' if outcome.n_teams != 1 else ''}"
        )
