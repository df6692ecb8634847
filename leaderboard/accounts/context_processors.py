"""What every page's header needs about the user: the number of invitations waiting for an answer."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from leaderboard.accounts.models import Invitation


def pending_invitations(request: HttpRequest) -> dict:
    """``pending_invitations``: counted only when a page shows it, i.e. for logged-in users."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"pending_invitations": 0}
    return {
        "pending_invitations": SimpleLazyObject(
            lambda: Invitation.objects.filter(invited_user=user, status=Invitation.Status.PENDING).count()
        )
    }
