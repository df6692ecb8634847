"""Rate limits per token (per client address without one); rates in settings.API_RATE_LIMITS.

The address is ``leaderboard.middleware.client_ip`` (``TRUSTED_PROXIES``), never
DRF's own reading of X-Forwarded-For, which takes any client's word for it.
"""

from __future__ import annotations

import functools
import logging

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from leaderboard.api.problems import ApiProblem
from leaderboard.middleware import client_ip
from leaderboard.submissions.uploads import (
    SLOT_RETRY_AFTER,
    acquire_slot,
    release_slot,
    slots_taken_message,
    uploader_of,
)

log = logging.getLogger(__name__)


class TokenRateThrottle(SimpleRateThrottle):
    """Requests per token; anonymous callers share a limit per address."""

    scope = "token"

    def allow_request(self, request, view) -> bool:
        # A cache outage fails open, as leaderboard.accounts.ratelimit does: a limit is a brake on abuse, not an
        # access rule, and a Redis restart must not turn every API call into a 500 (bench/faults.py found it).
        try:
            allowed = super().allow_request(request, view)
        except Exception:  # noqa: BLE001 (whatever the cache backend raises)
            log.warning("API rate limit: cache unavailable, not limiting", exc_info=True)
            return True
        if self.rate is not None and self.scope == "token":
            request._request.rate_limit = self._state()
        return allowed

    def _state(self) -> tuple[int, int, int]:
        """(limit, remaining, seconds until the oldest counted request leaves the window)."""
        limit = self.num_requests or 0
        remaining = max(0, limit - len(self.history))
        reset = int(self.duration - (self.now - self.history[-1]) + 0.999) if self.history else int(self.duration or 0)
        return limit, remaining, max(0, reset)

    def get_rate(self) -> str:
        # Read at call time, so a deployment (or a test) can change it without a restart of the class.
        return settings.API_RATE_LIMITS[self.scope]

    def get_ident(self, request) -> str:
        return client_ip(request._request)

    def get_cache_key(self, request, view) -> str:
        prefix = f"{getattr(settings, 'RATE_LIMIT_KEY_PREFIX', '')}api-throttle:{self.scope}"
        token = request.auth
        if token is not None:
            return f"{prefix}:{token.token_hash[:24]}"
        return f"{prefix}:anon:{self.get_ident(request)}"


class UploadRateThrottle(TokenRateThrottle):
    """Uploads per token: a tighter limit on the expensive request (besides the daily quota)."""

    scope = "upload"

    def allow_request(self, request, view) -> bool:
        if request.method != "POST":
            return True
        return super().allow_request(request, view)


def upload_slot(view):
    """An upload endpoint holds one of its user's concurrent-upload slots while it runs (429 when none is free).

    It runs after the token is authenticated and before the body is read, so the
    slot belongs to the token's user: the same slots as their uploads on the site.
    """

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        uploader = uploader_of(request.user)
        if not acquire_slot(uploader):
            raise ApiProblem(
                429, "rate-limited", "Too many requests", slots_taken_message(),
                headers={"Retry-After": SLOT_RETRY_AFTER},
            )  # fmt: skip
        try:
            return view(request, *args, **kwargs)
        finally:
            release_slot(uploader)

    return wrapped


class RateLimitHeadersMiddleware:
    """``RateLimit-Limit``, ``RateLimit-Remaining`` and ``RateLimit-Reset`` on every API response the limit counted.

    The IETF RateLimit header fields (draft 7's three): a script can slow down before it gets a 429.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        state = getattr(request, "rate_limit", None)
        if state is not None:
            limit, remaining, reset = state
            response["RateLimit-Limit"] = str(limit)
            response["RateLimit-Remaining"] = str(remaining)
            response["RateLimit-Reset"] = str(reset)
        return response
