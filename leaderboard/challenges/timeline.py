"""A challenge's phase timeline for its page: states, dates and the "ends in 3 days" wording.

The same wording is computed in the browser by ``static/js/challenge_timeline.js`` (which
also shows the viewer's own UTC offset); this server-side text is what a page without
JavaScript, a test or a crawler reads.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils import timezone

if TYPE_CHECKING:
    from leaderboard.challenges.models import Phase

# The largest unit that fits, as in "in 3 days" (at least one of it).
UNITS = (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400), ("hour", 3600), ("minute", 60))


def span(seconds: float) -> str:
    """``3 days``, ``5 hours``, ``1 minute``: the largest whole unit (``less than a minute`` below one)."""
    seconds = abs(seconds)
    for name, size in UNITS:
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {name}{'' if n == 1 else 's'}"
    return "less than a minute"


@dataclass(frozen=True)
class TimelineEntry:
    phase: Phase
    state: str  # upcoming | open | closed
    # "opens in 5 hours", "ends in 3 days", "ended 2 days ago", "open with no end date"
    relative: str
    # The moment ``relative`` counts to or from (None: no end date); the script recomputes from it.
    moment: dt.datetime | None
    # Which verb the script uses: opens | ends | ended.
    verb: str


def entry_for(phase: Phase, now: dt.datetime | None = None) -> TimelineEntry:
    now = now or timezone.now()
    state = phase.state(now)
    if state == "upcoming":
        wait = span((phase.starts_at - now).total_seconds())
        return TimelineEntry(phase, state, f"opens in {wait}", phase.starts_at, "opens")
    if state == "open":
        if phase.ends_at is None:
            return TimelineEntry(phase, state, "open with no end date", None, "")
        left = span((phase.ends_at - now).total_seconds())
        return TimelineEntry(phase, state, f"ends in {left}", phase.ends_at, "ends")
    assert phase.ends_at is not None  # closed implies an end
    ago = span((now - phase.ends_at).total_seconds())
    return TimelineEntry(phase, state, f"ended {ago} ago", phase.ends_at, "ended")


def timeline(phases, now: dt.datetime | None = None) -> list[TimelineEntry]:
    """The phases in their running order (``Phase.Meta.ordering``), each with its state and wording."""
    now = now or timezone.now()
    return [entry_for(phase, now) for phase in phases]
