"""E-mail verification: a signed link by mail; submitting needs a verified address.

The token signs the user's id and the address it was sent to, so a link stops
working when the address changes; it expires after ``EMAIL_VERIFICATION_MAX_AGE``
seconds (3 days by default). No table: the signature is the state.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.template.loader import render_to_string

from leaderboard.accounts.models import User
from leaderboard.links import absolute_reverse

SALT = "leaderboard.accounts.verify-email"
NOT_VERIFIED_MESSAGE = (
    "Verify your e-mail address before submitting: open the link we mailed you (your profile page can send it again)."
)


def max_age() -> int:
    return int(getattr(settings, "EMAIL_VERIFICATION_MAX_AGE", 3 * 86400))


def make_token(user: User) -> str:
    return signing.dumps({"u": user.pk, "e": user.email.lower()}, salt=SALT, compress=True)


def user_for_token(token: str) -> User | None:
    """The user a valid, unexpired token was made for (and whose address is unchanged), else None."""
    try:
        data = signing.loads(token, salt=SALT, max_age=max_age())
    except signing.BadSignature:  # includes SignatureExpired
        return None
    user = User.objects.filter(pk=data.get("u")).first()
    if user is None or user.email.lower() != data.get("e"):
        return None
    return user


def mark_verified(user: User) -> None:
    if not user.email_verified:
        user.email_verified = True
        user.save(update_fields=["email_verified"])


def send_verification_email(user: User) -> None:
    """Mail the user a link that verifies their address (console backend in development)."""
    if not user.email:
        return
    context = {
        "user": user,
        "url": absolute_reverse("accounts:verify_email", make_token(user)),
        "days": max_age() // 86400,
    }
    send_mail(
        subject="Confirm your e-mail address for the DDI Leaderboard",
        message=render_to_string("accounts/email/verify_email.txt", context),
        from_email=None,
        recipient_list=[user.email],
        fail_silently=True,
    )
