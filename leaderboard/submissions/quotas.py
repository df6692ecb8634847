"""Submission quotas: per team and per user, per phase, per UTC day and in total; who may submit and when.

A user submits to a phase through one team only (``PhaseEntry``: the first
team they used there; an organizer changes it in the admin), needs a verified
e-mail address, and the limits count both the team's and the user's
submissions. ``check_may_submit`` refuses early with a sentence;
``create_submission`` applies the same rules again under the lock. The web
form and the API both go through these functions.

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

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.accounts.models import Team
from leaderboard.accounts.verification import NOT_VERIFIED_MESSAGE
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.registration import registration_of_user, submission_refusal
from leaderboard.submissions.models import PhaseEntry, Submission


@dataclass(frozen=True)
class Quota:
    """How much of a team's quota on one phase is used, and when the daily part resets."""

    daily_limit: int
    daily_used: int
    total_limit: int
    total_used: int
    resets_at: dt.datetime  # next UTC midnight
    who: str = "Your team"  # whose count this is, for the sentence
    # What the limits apply to, for the sentence: a standing task's phase, or one phase of a challenge.
    where: str = "on this task"

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
    def _have(self) -> str:
        return "have" if self.who == "You" else "has"

    @property
    def exhausted(self) -> bool:
        return self.remaining == 0

    def explain(self) -> str:
        """A sentence for the form when no submission is left."""
        if self.total_remaining == 0:
            return f"{self.who} {self._have} used all {self.total_limit} submissions allowed {self.where}."
        return (
            f"{self.who} {self._have} used all {self.daily_limit} submissions allowed today {self.where}; "
            f"the count resets at {self.resets_at:%Y-%m-%d %H:%M} UTC."
        )


class SubmissionRefused(Exception):
    """A rule forbids this submission; the message is shown to the submitter as is."""


class QuotaExceeded(SubmissionRefused):
    def __init__(self, quota: Quota) -> None:
        self.quota = quota
        super().__init__(quota.explain())


class EmailNotVerified(SubmissionRefused):
    def __init__(self) -> None:

        super().__init__(NOT_VERIFIED_MESSAGE)


class TeamLocked(SubmissionRefused):
    """The user already submits to this phase through another team."""

    def __init__(self, entry_team: Team, phase: Phase) -> None:
        self.entry_team = entry_team
        super().__init__(
            f"You submit to this task through the team {entry_team.name} (the first team you used here): "
            f"each person submits to a task through one team only. Choose {entry_team.name}, "
            f"or ask {phase.challenge.contact} to move you to another team."
        )


def team_refusals(user, teams, phase: Phase) -> dict[int, str]:
    """Why each of ``teams`` cannot take the user's next submission to the phase (team id -> reason).

    For the form, which offers such teams disabled with the reason: another team already
    holds the user's entry on the phase, or the team's quota is used up. The upload checks
    the same rules again (``check_may_submit``, ``create_submission``).
    """
    bound = entry_team(user, phase) if user.is_authenticated else None
    refusals: dict[int, str] = {}
    for team in teams:
        if bound is not None and bound.pk != team.pk:
            refusals[team.pk] = f"you submit to this task through {bound.name}"
        elif (quota := quota_for(team, phase)).exhausted:
            refusals[team.pk] = quota.explain()
    return refusals


class PhaseNotOpen(SubmissionRefused):
    """The phase has not started yet, or has ended; the message gives the date."""


class StorageUnavailable(SubmissionRefused):
    """The uploaded file could not be written to storage (a full disk, unreachable storage): nothing is kept."""

    def __init__(self) -> None:
        super().__init__(
            "The site could not store your file just now (its storage is full or unreachable). Nothing was "
            "kept and nothing counts against your quota; please try again in a few minutes."
        )


class NotRegistered(SubmissionRefused):
    """An organized phase: the team has no approved registration for the challenge (or is too large now)."""


class WorkerTimeExhausted(SubmissionRefused):
    """The account's invalid uploads took more worker time today than ``SUBMISSION_INVALID_WORKER_SECONDS_PER_DAY``."""

    def __init__(self, message: str, resets_at: dt.datetime) -> None:
        self.resets_at = resets_at
        super().__init__(message)


def _utc(moment: dt.datetime) -> str:
    return f"{moment.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC"


def window_refusal(phase: Phase, now: dt.datetime | None = None) -> str | None:
    """Why the phase takes no submission at ``now`` (with the date), or None while it is open.

    Phases of a challenge run in order because their windows do: the next phase opens when
    its start comes, and submitting to a phase outside its window is refused here.
    """
    state = phase.state(now)
    if state == "upcoming":
        return f"{phase.title} opens {_utc(phase.starts_at)}: it does not take submissions yet."
    if state == "closed" and phase.ends_at is not None:
        return f"{phase.title} closed on {_utc(phase.ends_at)}: it no longer takes submissions."
    return None


def registration_refusal(user, team: Team, phase: Phase) -> str | None:
    """Why ``team`` may not submit to an organized phase (its registration), or None; standing phases: None.

    The challenge's organizers (and staff) submit without a registration: their baselines,
    which the moderation page can mark as such.
    """
    refusal = submission_refusal(phase, team)
    if refusal is None or phase.challenge.is_organizer(user):
        return None
    own = registration_of_user(phase.challenge, user)
    if own is not None and own.team_id != team.pk and own.status == own.Status.APPROVED:
        refusal += f" Submit as {own.team.name}, the team you registered."
    return refusal


def entry_team(user, phase: Phase) -> Team | None:
    """The team the user submits through on the phase, or None before their first submission."""
    entry = PhaseEntry.objects.filter(user=user, phase=phase).select_related("team").first()
    return entry.team if entry else None


def check_may_submit(user, team: Team, phase: Phase) -> None:
    """Raise ``SubmissionRefused`` if the user may not submit as ``team`` (no lock; the early check).

    The one list of rules, for the web form and the API alike: the phase's window (with its
    dates), a verified address, an approved registration of ``team`` on organized phases,
    and one team per person and phase.
    """
    if refusal := window_refusal(phase):
        raise PhaseNotOpen(refusal)
    if not user.email_verified:
        raise EmailNotVerified()
    if refusal := worker_time_refusal(user):
        raise WorkerTimeExhausted(refusal, utc_day_start(timezone.now()) + dt.timedelta(days=1))
    if refusal := registration_refusal(user, team, phase):
        raise NotRegistered(refusal)
    bound = entry_team(user, phase)
    if bound is not None and bound.pk != team.pk:
        raise TeamLocked(bound, phase)


def invalid_worker_seconds(user, now: dt.datetime | None = None) -> float:
    """Worker seconds taken today (UTC) by the user's uploads that failed as invalid, on every phase."""
    day_start = utc_day_start(now or timezone.now())
    runs = (
        Submission.objects.failed()
        .filter(
            user=user, error_kind=Submission.ErrorKind.INVALID, finished_at__gte=day_start, started_at__isnull=False
        )
        .values_list("started_at", "finished_at")
    )
    return sum(max(0.0, (finished - started).total_seconds()) for started, finished in runs)


def _wait(until: dt.datetime, now: dt.datetime) -> str:
    minutes = max(1, int((until - now).total_seconds() // 60))
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


def worker_time_refusal(user, now: dt.datetime | None = None) -> str | None:
    """Why the user may not upload until tomorrow (UTC): their invalid files used today's worker time; or None.

    Invalid files never cost quota, but each one a worker had to read takes its time from everyone's
    uploads: past the daily budget, uploads wait for the reset (docs/submissions.md "Quotas").
    """
    now = now or timezone.now()
    budget = settings.SUBMISSION_INVALID_WORKER_SECONDS_PER_DAY
    used = invalid_worker_seconds(user, now)
    if used < budget:
        return None
    resets_at = utc_day_start(now) + dt.timedelta(days=1)
    return (
        f"Your uploads that failed as invalid took {used:.0f} s of scoring time today, the daily budget for invalid "
        f"files being {budget} s, so uploads are paused until the budget resets at {_utc(resets_at)} "
        f"(in {_wait(resets_at, now)}). Check a file offline first with `ddi-leaderboard validate` or "
        "`python -m scoring validate`: a file that passes is accepted."
    )


def bind(user, team: Team, phase: Phase) -> None:
    """Inside the upload's transaction: record ``team`` as the user's team on the phase, or refuse another.

    The unique constraint makes two racing first uploads with different teams
    end with one entry; the loser reads the winner's row and is refused.
    """
    entry, _ = PhaseEntry.objects.get_or_create(user=user, phase=phase, defaults={"team": team})
    if entry.team_id != team.pk:
        raise TeamLocked(entry.team, phase)


def utc_day_start(now: dt.datetime) -> dt.datetime:
    return now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def quota_for(team: Team, phase: Phase, now: dt.datetime | None = None) -> Quota:
    """The team's current usage on the phase (no lock; for display)."""
    return _usage(Submission.objects.charged().for_team_phase(team, phase), phase, now)


def user_quota_for(user, phase: Phase, now: dt.datetime | None = None) -> Quota:
    """The user's own usage on the phase over all their teams (a team switched by an organizer keeps it)."""
    return _usage(Submission.objects.charged().for_user_phase(user, phase), phase, now, who="You")


def _usage(charged, phase: Phase, now: dt.datetime | None, **extra) -> Quota:
    """The phase's limits against the charged submissions ``charged`` (today's and in total)."""
    day_start = utc_day_start(now or timezone.now())
    return Quota(
        daily_limit=phase.daily_limit,
        daily_used=charged.filter(created_at__gte=day_start).count(),
        total_limit=phase.total_limit,
        total_used=charged.count(),
        resets_at=day_start + dt.timedelta(days=1),
        where=_where(phase),
        **extra,
    )


def _where(phase: Phase) -> str:
    """A per-phase quota says which phase: an organized challenge's phases each have their own."""
    if phase.challenge.kind == Challenge.Kind.ORGANIZED:
        return f"in the phase \u201c{phase.title}\u201d"
    return "on this task"


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


def _over(quota: Quota) -> None:
    if quota.daily_used > quota.daily_limit or quota.total_used > quota.total_limit:
        before = dt_replace(quota, daily_used=quota.daily_used - 1, total_used=quota.total_used - 1)
        raise QuotaExceeded(before)


def enforce(team: Team, phase: Phase, now: dt.datetime | None = None, *, user=None) -> Quota:
    """After inserting a new submission in this transaction: raise QuotaExceeded if it went over a limit.

    With ``user``, the user's own count is checked too (per team AND per user).

    Counting after the insert makes the check race-free on SQLite too (the
    insert holds the database's write lock); on PostgreSQL ``lock`` serialises.
    The caller's transaction rolls the insert back on the exception.
    """
    quota = quota_for(team, phase, now)
    _over(quota)
    if user is not None:
        _over(user_quota_for(user, phase, now))
    return quota
