"""Fixed-window rate limits kept in the cache: sign-ups per IP, teams per user, verification mails.

One home for "how many of X per window": ``hit(scope, ident)`` counts an
attempt and says whether it is allowed. The limits are settings
(``RATE_LIMITS``: scope -> (count, seconds)). A cache outage fails open: a
limit is a brake on abuse, not an access rule.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

log = logging.getLogger(__name__)

DEFAULT_LIMITS: dict[str, tuple[int, int]] = {
    "signup-ip": (5, 3600),
    "team-create-user": (3, 86400),
    "verify-mail-user": (3, 3600),
}


@dataclass(frozen=True)
class Limited:
    scope: str
    limit: int
    window: int
    retry_after: int

    def explain(self, what: str) -> str:
        minutes = max(1, round(self.retry_after / 60))
        return (
            f"Too many {what}: at most {self.limit} per {_span(self.window)}. Try again in about {minutes} minute(s)."
        )


def _span(seconds: int) -> str:
    if seconds % 86400 == 0:
        return "day" if seconds == 86400 else f"{seconds // 86400} days"
    if seconds % 3600 == 0:
        return "hour" if seconds == 3600 else f"{seconds // 3600} hours"
    return f"{seconds} seconds"


def limit_for(scope: str) -> tuple[int, int]:
    limits = {**DEFAULT_LIMITS, **getattr(settings, "RATE_LIMITS", {})}
    return limits[scope]


def hit(scope: str, ident: str) -> Limited | None:
    """Count one attempt; None if allowed, a ``Limited`` if this attempt is over the limit."""
    limit, window = limit_for(scope)
    now = int(time.time())
    start = now - now % window
    key = f"{getattr(settings, 'RATE_LIMIT_KEY_PREFIX', '')}rl:{scope}:{ident}:{start}"
    try:
        cache.add(key, 0, timeout=window + 5)
        count = cache.incr(key)
    except Exception:  # the cache is down or the key vanished: let the request through
        log.warning("rate limit %s: cache unavailable, not limiting", scope, exc_info=True)
        return None
    if count > limit:
        return Limited(scope, limit, window, start + window - now)
    return None


def client_ip(request: HttpRequest) -> str:
    """The client's address as Django sees it (behind a proxy, set it up to pass REMOTE_ADDR)."""
    return request.META.get("REMOTE_ADDR", "") or "unknown"
