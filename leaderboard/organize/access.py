"""Who may manage an organized challenge: the one check every organizer page and endpoint goes through."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404

from leaderboard.challenges.models import HOST_PERMISSION, Challenge


def get_managed_challenge(user, slug: str) -> Challenge:
    """The organized challenge ``slug`` if ``user`` organizes it (or is staff); 404 for everyone else.

    A 404, not a 403: a participant or an outsider learns nothing about a challenge's
    management (and an unpublished challenge stays unknown). Anonymous users are sent to
    the login page by ``login_required`` before this runs.
    """
    challenge = Challenge.objects.organized().filter(slug=slug).first()
    if challenge is None or not challenge.is_organizer(user):
        raise Http404("No such challenge.")
    return challenge


def can_host(user) -> bool:
    """Whether ``user`` may create challenges: the permission staff grant in the admin (staff may always)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_staff) or user.has_perm(HOST_PERMISSION)


def require_host(user) -> None:
    """PermissionDenied (the site's 403 page, saying how to get the role and whom to ask) unless ``user`` may host."""
    from leaderboard.organize.hosts import refusal

    if not can_host(user):
        raise PermissionDenied(refusal())
