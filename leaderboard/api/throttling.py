"""Rate limits per token (per client address without one); rates in settings.API_RATE_LIMITS."""

from __future__ import annotations

import logging

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

log = logging.getLogger(__name__)


class TokenRateThrottle(SimpleRateThrottle):
    """Requests per token; anonymous callers share a limit per address."""

    scope = "token"

    def allow_request(self, request, view) -> bool:
        # A cache outage fails open, as leaderboard.accounts.ratelimit does: a limit is a brake on abuse, not an
        # access rule, and a Redis restart must not turn every API call into a 500 (bench/faults.py found it).
        try:
            return super().allow_request(request, view)
        except Exception:  # noqa: BLE001 (whatever the cache backend raises)
            log.warning("API rate limit: cache unavailable, not limiting", exc_info=True)
            return True

    def get_rate(self) -> str:
        # Read at call time, so a deployment (or a test) can change it without a restart of the class.
        return settings.API_RATE_LIMITS[self.scope]

    def get_cache_key(self, request, view) -> str:
        token = request.auth
        if token is not None:
            return f"api-throttle:{self.scope}:{token.token_hash[:24]}"
        return f"api-throttle:{self.scope}:anon:{self.get_ident(request)}"


class UploadRateThrottle(TokenRateThrottle):
    """Uploads per token: a tighter limit on the expensive request (besides the daily quota)."""

    scope = "upload"

    def allow_request(self, request, view) -> bool:
        if request.method != "POST":
            return True
        return super().allow_request(request, view)
