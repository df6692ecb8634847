"""Submission quotas: per team, per phase, per UTC day and in total.

Only charged submissions count (``Submission.objects.charged()``: failures of
either kind never do). An upload locks the team's row (``lock``), inserts its
submission, then counts (``enforce``) and rolls back if that went over a limit.
On PostgreSQL the row lock serialises two uploads of one team, so the second
counts the first; on SQLite (no row locks) the insert takes the database's
write lock first, with the same effect.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from dataclasses import replace as dt_replace

from django.db import transaction
from django.utils import timezone

from leaderboard.accounts.models import Team
from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission


@dataclass(frozen=True)
class Quota:
    """How much of a team's quota on one phase is used, and when the daily part resets."""

    daily_limit: int
    daily_used: int
    total_limit: int
    total_used: int
    resets_at: dt.datetime  # next UTC midnight

    @property
    def daily_remaining(self) -> int:
        return max(0, self.daily_limit - self.daily_used)

    @property
    def total_remaining(self) -> int:
        return max(0, self.total_limit - self.total_used)

    @property
    def remaining(self) -> int:
        return min(self.daily_remaining, self.total_remaining)

    @property
    def exhausted(self) -> bool:
        return self.remaining == 0

    def explain(self) -> str:
        """A sentence for the form when no submission is left."""
        if self.total_remaining == 0:
            return f"Your team has used all {self.total_limit} submissions allowed on this task."
        return (
            f"Your team has used all {self.daily_limit} submissions allowed today on this task; "
            f"the count resets at {self.resets_at:%Y-%m-%d %H:%M} UTC."
        )


class QuotaExceeded(Exception):
    def __init__(self, quota: Quota) -> None:
        self.quota = quota
        super().__init__(quota.explain())


def utc_day_start(now: dt.datetime) -> dt.datetime:
    return now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def quota_for(team: Team, phase: Phase, now: dt.datetime | None = None) -> Quota:
    """The team's current usage on the phase (no lock; for display)."""
    now = now or timezone.now()
    day_start = utc_day_start(now)
    charged = Submission.objects.charged().for_team_phase(team, phase)
    return Quota(
        daily_limit=phase.daily_limit,
        daily_used=charged.filter(created_at__gte=day_start).count(),
        total_limit=phase.total_limit,
        total_used=charged.count(),
        resets_at=day_start + dt.timedelta(days=1),
    )


def lock(team: Team) -> None:
    """Serialise a team's uploads: lock its row until the transaction ends (PostgreSQL).

    Must run inside ``transaction.atomic()``, before the new submission is
    inserted and counted with ``enforce``.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("quotas.lock() must be called inside transaction.atomic()")
    if not transaction.get_connection().features.has_select_for_update:
        return  # SQLite: a read here would take a shared lock that the insert then fails to upgrade
    # FOR NO KEY UPDATE: serialises uploads of the team (it conflicts with itself) without blocking
    # the FOR KEY SHARE that inserting a row referencing the team takes (a board rebuild's rows);
    # plain FOR UPDATE deadlocked against a rebuild holding the phase (bench/api.py found it).
    list(Team.objects.select_for_update(no_key=True).filter(pk=team.pk).values_list("pk", flat=True))


def enforce(team: Team, phase: Phase, now: dt.datetime | None = None) -> Quota:
    """After inserting a new submission in this transaction: raise QuotaExceeded if it went over a limit.

    Counting after the insert makes the check race-free on SQLite too (the
    insert holds the database's write lock); on PostgreSQL ``lock`` serialises.
    The caller's transaction rolls the insert back on the exception.
    """
    quota = quota_for(team, phase, now)
    if quota.daily_used > quota.daily_limit or quota.total_used > quota.total_limit:
        before = dt_replace(quota, daily_used=quota.daily_used - 1, total_used=quota.total_used - 1)
        raise QuotaExceeded(before)
    return quota
