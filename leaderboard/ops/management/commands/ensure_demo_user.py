"""Create the demo user, or reset its password, and print its login (DEBUG only)."""

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from leaderboard.ops.demo import ensure_demo_user


class Command(BaseCommand):
    help = "Create the demo user (or reset its password) and print its login. Refuses with DEBUG off."

    def handle(self, *args, **options) -> None:
        try:
            username, password, created = ensure_demo_user()
        except ImproperlyConfigured as exc:
            raise CommandError(str(exc)) from exc
        verb = "Created" if created else "Kept"
        self.stdout.write(self.style.SUCCESS(f"{verb} the demo user. Demo login: {username} / {password}"))
