"""The login backend: Django's, with the demo account shut outside development."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.backends import ModelBackend

from leaderboard.ops.demo import DEMO_USERNAME


class DemoOnlyInDevelopment(ModelBackend):
    """Django's login, except that the demo user can only log in (or stay logged in) with DEBUG on.

    A database made by ``make run`` and then deployed keeps the demo row and its
    printed password; with DEBUG off that account is refused like an inactive one.
    """

    def user_can_authenticate(self, user) -> bool:
        if user is not None and user.get_username() == DEMO_USERNAME and not settings.DEBUG:
            return False
        return super().user_can_authenticate(user)
