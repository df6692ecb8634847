"""The host role: who may create challenges, granted and revoked by staff.

One home for it: ``manage.py grant_host USERNAME`` (``--revoke``), the staff page
``/staff/hosts/`` and the refusal on ``/challenges/new/`` all go through here. The role is
Django's permission ``challenges.host_challenges`` on the user; staff may always host.
"""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db.models import Q, QuerySet
from django.urls import reverse

log = logging.getLogger(__name__)

# Staff named on the refusal page as the people to ask (the rest are not listed).
MAX_CONTACTS = 3


class HostError(Exception):
    """A grant or revoke that cannot be done; the message says why (an unknown username, a staff user)."""


def _permission() -> Permission:
    return Permission.objects.get(content_type__app_label="challenges", codename="host_challenges")


def _user(username: str):
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise HostError(f"There is no user {username.strip()!r}.")
    return user


def grant_host(username: str, *, by=None):
    """Let ``username`` create challenges; returns the user (granting twice is harmless)."""
    user = _user(username)
    user.user_permissions.add(_permission())
    log.info("host role granted to %s by %s", user.username, getattr(by, "username", "the command line"))
    return user


def revoke_host(username: str, *, by=None):
    """Take the host role back; the challenges the user organizes stay theirs. Staff cannot lose it this way."""
    user = _user(username)
    if user.is_staff:
        raise HostError(f"{user.username} is staff, and staff may always host; remove staff status in the admin.")
    user.user_permissions.remove(_permission())
    log.info("host role revoked from %s by %s", user.username, getattr(by, "username", "the command line"))
    return user


def hosts() -> QuerySet:
    """Every user who may host: granted the permission (directly or through a group), or staff."""
    permission = _permission()
    return (
        get_user_model()
        .objects.filter(Q(user_permissions=permission) | Q(groups__permissions=permission) | Q(is_staff=True))
        .filter(is_active=True)
        .distinct()
        .order_by("username")
    )


def contacts() -> list[str]:
    """The usernames of the staff who grant the role, as the refusal page names them."""
    staff = get_user_model().objects.filter(is_staff=True, is_active=True).order_by("username")
    return list(staff.values_list("username", flat=True)[:MAX_CONTACTS])


def refusal() -> str:
    """What a user without the role reads on the 403 page of the new-challenge and import pages."""
    names = contacts()
    who = f"a staff member ({', '.join(names)})" if names else "the site's staff"
    return (
        "Creating a challenge needs the host role. Ask "
        f"{who} to grant it to your account: on the staff page {reverse('organize:hosts')}, or with "
        "\u201cpython manage.py grant_host YOUR-USERNAME\u201d. "
        "Your profile then says \u201cYou can host challenges\u201d."
    )
