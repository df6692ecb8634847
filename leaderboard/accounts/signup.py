"""Sign-up in two steps, so the form never tells whether an address already has an account.

The form's answer is always "we sent a message to <address>". A new address
gets a link that creates the account (verified, since the link proves the
mailbox) when its owner confirms; an address that already has an account gets
a reminder of its username and the password-reset page instead. Both mails
count against the address's limit, so the form cannot flood a mailbox.
"""

from __future__ import annotations

import datetime
import hashlib
import secrets

from django.contrib.auth.hashers import make_password
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from leaderboard.accounts import ratelimit, services
from leaderboard.accounts.forms import lookalike
from leaderboard.accounts.models import PendingSignup, User
from leaderboard.links import absolute_reverse

MAX_AGE = datetime.timedelta(days=3)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def request_signup(username: str, email: str, password: str, next_url: str = "") -> None:
    """Mail ``email`` either a link that finishes the sign-up or, if it has an account, a reminder."""
    PendingSignup.objects.filter(created_at__lt=timezone.now() - MAX_AGE).delete()
    password_hash = make_password(password)  # hashed either way: the answer takes as long for both
    existing = User.objects.filter(email__iexact=email).first()
    if ratelimit.hit("signup-mail-address", ratelimit.ident_of(email)) is not None:
        return  # past the address's limit nothing is sent, and the page still says the same
    if existing is not None:
        context = {
            "user": existing,
            "reset_url": absolute_reverse("accounts:password_reset"),
            "login_url": absolute_reverse("accounts:login"),
        }
        subject = "You already have an account on the DDI Leaderboard"
        _mail(existing.email, subject, "accounts/email/signup_existing.txt", context)
        return
    token = secrets.token_urlsafe(32)
    PendingSignup.objects.create(
        username=username, email=email, password=password_hash, token_hash=_hash(token), next_url=next_url
    )
    context = {"username": username, "url": absolute_reverse("accounts:signup_confirm", token), "days": MAX_AGE.days}
    _mail(email, "Finish creating your DDI Leaderboard account", "accounts/email/signup_confirm.txt", context)


def _mail(to: str, subject: str, template: str, context: dict) -> None:
    send_mail(
        subject=subject,
        message=render_to_string(template, context),
        from_email=None,
        recipient_list=[to],
        fail_silently=True,  # an unreachable mail server must not make the page answer differently
    )


def pending_for(token: str) -> PendingSignup | None:
    """The unexpired sign-up a link's token belongs to, else None."""
    return PendingSignup.objects.filter(token_hash=_hash(token), created_at__gte=timezone.now() - MAX_AGE).first()


class SignupError(Exception):
    """The sign-up cannot be finished; the message says why and what to do."""


@transaction.atomic
def finish_signup(pending: PendingSignup) -> User:
    """Create the account (address verified) with its personal team; SignupError if the name or address was taken."""
    PendingSignup.objects.filter(pk=pending.pk).delete()
    if User.objects.filter(email__iexact=pending.email).exists():
        raise SignupError(f"{pending.email} already has an account: log in, or reset its password.")
    if User.objects.filter(username__iexact=pending.username).exists() or lookalike(
        pending.username, for_username=True
    ):
        raise SignupError(
            f"The username {pending.username} was taken while the link waited: sign up again with another name."
        )
    user = services.create_user(pending.username, pending.email, None, email_verified=True)
    user.password = pending.password
    user.save(update_fields=["password"])
    PendingSignup.objects.filter(email__iexact=pending.email).delete()
    return user
