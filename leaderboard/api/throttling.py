"""Rate limits per token (per client address without one); rates in settings.API_RATE_LIMITS."""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle


class TokenRateThrottle(SimpleRateThrottle):
    """Requests per token; anonymous callers share a limit per address."""

    scope = "token"

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
