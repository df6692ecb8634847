"""Rate limits kept in the cache: sign-ups, teams, log-ins, and every mail a user can trigger.

One home for "how many of X per window": ``hit(scope, ident)`` counts an
attempt and says whether it is allowed; ``blocked(scope, ident)`` says whether
the limit is already used up without counting (log-ins count failures only,
after the attempt), and ``reset(scope, ident)`` forgets the window's count.
The limits are settings (``RATE_LIMITS``: scope -> (count, seconds)).

Failed log-ins of one account from one client address get a progressive
delay instead (``wait_for``, ``failed``, ``forget``; ``RATE_DELAYS``: scope ->
(free failures, first delay, longest delay)): the next attempt is refused
until the delay has passed, and the delay doubles with each further failure.
Nobody else's failures delay anyone, so a stranger cannot lock an owner out.

A cache outage fails open: a limit is a brake on abuse, not an access rule.
Identifiers that are user input (a username, an address) are hashed into the
key (``ident_of``).
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

DEFAULT_LIMITS: dict[str, tuple[int, int]] = {
    "signup-ip": (5, 3600),
    "team-create-user": (3, 86400),
    "verify-mail-user": (3, 3600),
    # Failed log-ins per client address, whatever the accounts (one address guessing many accounts);
    # one account's failures from one address get a progressive delay instead (DEFAULT_DELAYS).
    "login-ip": (20, 900),
    # Sign-up attempts with an address that already has an account: each mails its owner.
    "signup-mail-address": (3, 3600),
    # Password-reset mails: per address (silently not sent past it) and per client address (a message).
    "reset-mail-address": (3, 3600),
    "reset-mail-ip": (10, 3600),
    # Invitation mails: per sender (whichever of their teams), per team (invite/revoke cycles) and per
    # invited user (whichever teams invite them).
    "invite-mail-sender": (20, 3600),
    "invite-mail-team": (10, 3600),
    "invite-mail-user": (5, 3600),
}

DEFAULT_DELAYS: dict[str, tuple[int, int, int]] = {
    # One account's failed log-ins from one client address: 4 are free (typos), the 5th makes the next
    # attempt wait 30 s, each further one doubles it up to 15 minutes. Forgotten a day after the last.
    "login-account-ip": (4, 30, 900),
}
DELAY_MEMORY_SECONDS = 86400


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
    if seconds % 60 == 0:
        return "minute" if seconds == 60 else f"{seconds // 60} minutes"
    return f"{seconds} seconds"


def limit_for(scope: str) -> tuple[int, int]:
    limits = {**DEFAULT_LIMITS, **getattr(settings, "RATE_LIMITS", {})}
    return limits[scope]


def ident_of(text: str) -> str:
    """A cache-safe identifier for user input (usernames, addresses): case-insensitive, hashed."""
    return hashlib.sha256(text.strip().casefold().encode()).hexdigest()[:32]


def _window(scope: str) -> tuple[int, int, int, str]:
    """(limit, window, seconds into it, key prefix) of ``scope`` now."""
    limit, window = limit_for(scope)
    now = int(time.time())
    start = now - now % window
    return (
        limit,
        window,
        start + window - now,
        f"{getattr(settings, 'RATE_LIMIT_KEY_PREFIX', '')}rl:{scope}:{{}}:{start}",
    )


def blocked(scope: str, ident: str) -> Limited | None:
    """A ``Limited`` if the window's attempts already reached the limit (counts nothing), else None."""
    limit, window, left, key = _window(scope)
    try:
        count = cache.get(key.format(ident)) or 0
    except Exception:
        log.warning("rate limit %s: cache unavailable, not limiting", scope, exc_info=True)
        return None
    return Limited(scope, limit, window, left) if count >= limit else None


def reset(scope: str, ident: str) -> None:
    """Forget the attempts of the current window (a successful log-in clears its failures)."""
    _, _, _, key = _window(scope)
    try:
        cache.delete(key.format(ident))
    except Exception:
        log.warning("rate limit %s: cache unavailable, not reset", scope, exc_info=True)


def hit(scope: str, ident: str) -> Limited | None:
    """Count one attempt; None if allowed, a ``Limited`` if this attempt is over the limit."""
    limit, window, left, key_format = _window(scope)
    key = key_format.format(ident)
    try:
        cache.add(key, 0, timeout=window + 5)
        count = cache.incr(key)
    except Exception:  # the cache is down or the key vanished: let the request through
        log.warning("rate limit %s: cache unavailable, not limiting", scope, exc_info=True)
        return None
    if count > limit:
        return Limited(scope, limit, window, left)
    return None


# --- progressive delays ---------------------------------------------------------------


@dataclass(frozen=True)
class Delayed:
    scope: str
    failures: int
    retry_after: int

    def explain(self, what: str) -> str:
        wait = f"{self.retry_after} seconds" if self.retry_after < 120 else f"{round(self.retry_after / 60)} minutes"
        return f"{self.failures} {what}. Wait {wait} before the next try."


def delay_for(scope: str) -> tuple[int, int, int]:
    delays = {**DEFAULT_DELAYS, **getattr(settings, "RATE_DELAYS", {})}
    return delays[scope]


def _delay_keys(scope: str, ident: str) -> tuple[str, str]:
    base = f"{getattr(settings, 'RATE_LIMIT_KEY_PREFIX', '')}rd:{scope}:{ident}"
    return f"{base}:n", f"{base}:until"


def wait_for(scope: str, ident: str) -> Delayed | None:
    """A ``Delayed`` while the delay earned by earlier failures runs, else None (counts nothing)."""
    count_key, until_key = _delay_keys(scope, ident)
    try:
        until = cache.get(until_key)
        failures = cache.get(count_key) or 0
    except Exception:
        log.warning("rate delay %s: cache unavailable, not delaying", scope, exc_info=True)
        return None
    left = math.ceil(until - time.time()) if until else 0
    return Delayed(scope, failures, left) if left > 0 else None


def failed(scope: str, ident: str) -> Delayed | None:
    """Count one failure; the ``Delayed`` it earns the next attempt, or None while failures are free."""
    free, first, longest = delay_for(scope)
    count_key, until_key = _delay_keys(scope, ident)
    try:
        cache.add(count_key, 0, timeout=DELAY_MEMORY_SECONDS)
        failures = cache.incr(count_key)
        cache.touch(count_key, DELAY_MEMORY_SECONDS)
        if failures <= free:
            return None
        seconds = min(longest, first * 2 ** (failures - free - 1))
        cache.set(until_key, time.time() + seconds, timeout=seconds + 5)
    except Exception:
        log.warning("rate delay %s: cache unavailable, not counted", scope, exc_info=True)
        return None
    return Delayed(scope, failures, seconds)


def forget(scope: str, ident: str) -> None:
    """Clear the failures and the running delay (a successful log-in)."""
    try:
        cache.delete_many(list(_delay_keys(scope, ident)))
    except Exception:
        log.warning("rate delay %s: cache unavailable, not cleared", scope, exc_info=True)
