"""Caching of board pages, charts and exports.

Keys contain the board's ``version``, a UUID replaced on every recompute, so a
new score makes every cached view of its phase unreachable at once; nothing has
to enumerate keys to delete them. The cache is Django's default one: a file
cache shared by the web server and the worker locally, Redis in production.
The /benchmarks/ summary spans all boards and is deleted explicitly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache

T = TypeVar("T")

# Unreachable entries of an old version expire on their own after this long.
TIMEOUT = 24 * 3600
SUMMARY_KEY = "boards:benchmarks:v1"


def key(*parts: object) -> str:
    """A cache key from any parts (hashed: memcached-safe length and characters)."""
    raw = "\x1f".join(str(p) for p in parts)
    return "boards:" + hashlib.sha256(raw.encode()).hexdigest()


def get_or_compute(cache_key: str, compute: Callable[[], T], timeout: int = TIMEOUT) -> T:
    """The cached value, or compute it and store it."""
    value = cache.get(cache_key)
    if value is None:
        value = compute()
        cache.set(cache_key, value, timeout)
    return value


def invalidate_summaries() -> None:
    """Forget the /benchmarks/ summary (called after every recompute commits)."""
    cache.delete(SUMMARY_KEY)
