"""Creating, checking and revoking API tokens.

A token is ``ddi_`` + 43 url-safe characters (256 random bits); the database
keeps its sha256 only, so a leaked database yields no usable token.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from django.shortcuts import get_object_or_404
from django.utils import timezone

from leaderboard.api.models import ApiToken

PREFIX = "ddi_"
SCOPE_ORDER = (ApiToken.Scope.READ, ApiToken.Scope.SUBMIT, ApiToken.Scope.ORGANIZE)
# last_used_at is written at most this often per token (one UPDATE, not one per request).
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def create_token(user, name: str, scope: str, expires_at: dt.datetime | None = None) -> tuple[ApiToken, str]:
    """A new token row and the raw token (returned once, never stored)."""
    raw = PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name, scope=scope, prefix=raw[:10], token_hash=hash_token(raw), expires_at=expires_at
    )
    return token, raw


def revoke(token: ApiToken) -> None:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])


def grants(token_scope: str, needed: str) -> bool:
    """Whether a token of ``token_scope`` may do what needs ``needed`` (scopes are nested)."""
    return SCOPE_ORDER.index(token_scope) >= SCOPE_ORDER.index(needed)


def touch(token: ApiToken) -> None:
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now


def get_token_for(user, token_id: int) -> ApiToken:
    """The user's own token (404 for anyone else's)."""
    return get_object_or_404(ApiToken, pk=token_id, user=user)
