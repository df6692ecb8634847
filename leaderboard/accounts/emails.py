"""Emails about accounts and teams (console backend by default, SMTP when EMAIL_HOST is set)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.mail import send_mail
from django.template.loader import render_to_string

from leaderboard.links import absolute_reverse

if TYPE_CHECKING:
    from leaderboard.accounts.models import Invitation


def send_invitation_email(invitation: Invitation) -> None:
    """Tell the invited user about a team invitation and where to answer it."""
    user = invitation.invited_user
    if not user.email:
        return
    context = {"invitation": invitation, "profile_url": absolute_reverse("accounts:profile")}
    send_mail(
        subject=f"{invitation.invited_by.username} invited you to join {invitation.team.name}",
        message=render_to_string("accounts/email/invitation.txt", context),
        from_email=None,  # DEFAULT_FROM_EMAIL
        recipient_list=[user.email],
        # An unreachable mail server must not turn an invitation into an error page.
        fail_silently=True,
    )
