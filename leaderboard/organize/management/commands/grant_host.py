"""manage.py grant_host USERNAME [--revoke]: give (or take back) the role that lets a user create challenges."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from leaderboard.organize.hosts import HostError, grant_host, revoke_host


class Command(BaseCommand):
    help = "Let a user create challenges (the host role); --revoke takes it back."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--revoke", action="store_true", help="take the host role back")

    def handle(self, *args, username: str, revoke: bool, **options) -> None:
        try:
            user = revoke_host(username) if revoke else grant_host(username)
        except HostError as error:
            raise CommandError(str(error)) from None
        if revoke:
            self.stdout.write(f"{user.username} can no longer create challenges (the ones they organize stay).")
        else:
            new, bundle = reverse("organize:new"), reverse("organize:import")
            self.stdout.write(f"{user.username} can host challenges: {new} or {bundle}.")
