"""The demo account that ``make run`` creates so a newcomer can log in at once."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from leaderboard.accounts.models import User
from leaderboard.accounts.services import create_user

DEMO_USERNAME = "demo"
DEMO_EMAIL = "demo@example.org"
# A fixed, printed password is fine for a local demo; ensure_demo_user refuses to run with DEBUG off.
DEFAULT_DEMO_PASSWORD = "demo-leaderboard"


def demo_password() -> str:
    """The demo password: ``DEMO_PASSWORD`` from the environment, or the documented default."""
    return os.environ.get("DEMO_PASSWORD", "").strip() or DEFAULT_DEMO_PASSWORD


def ensure_demo_user() -> tuple[str, str, bool]:
    """Create the demo user (with its personal team) or reset its password; return (username, password, created).

    Refuses with DEBUG off: a known password must never exist on a public deployment.
    """
    if not settings.DEBUG:
        raise ImproperlyConfigured("Refusing to create the demo user with DEBUG off.")
    password = demo_password()
    user = User.objects.filter(username=DEMO_USERNAME).first()
    if user is None:
        create_user(DEMO_USERNAME, DEMO_EMAIL, password, email_verified=True)
        return DEMO_USERNAME, password, True
    # Reset it, so the login that make run prints always works.
    user.set_password(password)
    user.is_active = True
    user.email_verified = True  # the demo can submit at once (it has no mailbox)
    user.save(update_fields=["password", "is_active", "email_verified"])
    return DEMO_USERNAME, password, False


def demo_login_exists() -> bool:
    """Whether the demo user is there (runall prints its login only then)."""
    return User.objects.filter(username=DEMO_USERNAME).exists()
