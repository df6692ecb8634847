"""The reveal of an organized phase: close it, resolve the final submissions, publish the private boards.

Until ``Phase.revealed_at`` is set, private scores (part ``private`` and
``all`` results, ``Submission.private_*``) are shown to the phase's organizers
only. ``reveal_phase`` is the one place that sets it, in one transaction:

1. submissions close (an early reveal moves ``ends_at`` to now: nobody may
   submit once the private numbers are out);
2. final selections are resolved (``resolve_finals``): a team's chosen
   submissions, or else its N best by public score (Kaggle's rule), recorded in
   ``Submission.final_by``;
3. the private boards are built (``recompute.build_private_boards``): one per direction,
   ``Board.part = "private"``, ranked on the *private* values of final
   submissions only, one row per team (its best final), each with the team's
   public rank and the submission's public value at the reveal;
4. ``Phase.revealed_at`` is set and the audit log says who revealed it.

Idempotent: a revealed phase is left alone, so beat delivering the task twice,
or an organizer clicking while beat runs, changes nothing the second time.
After the reveal, every board update of the phase rebuilds its private boards
too (``recompute._after_commit``), so a re-run or a moderation keeps them true.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from celery import shared_task
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard.boards import cache
from leaderboard.boards.recompute import build_private_boards, disqualified_teams
from leaderboard.challenges import audit
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.submissions.models import Submission

log = logging.getLogger(__name__)


class RevealRefused(Exception):
    """An organizer's reveal or postponement that cannot be done; the message says why."""


@dataclass(frozen=True)
class RevealOutcome:
    phase: Phase
    revealed: bool  # False: it was revealed before, nothing changed
    n_final: int = 0
    n_teams: int = 0


def due_phases(now: datetime | None = None):
    """Organized phases whose reveal time (``reveal_at``, else ``ends_at``) has passed and that are not revealed."""
    now = now or timezone.now()
    due = Q(reveal_at__isnull=False, reveal_at__lte=now) | Q(reveal_at__isnull=True, ends_at__lte=now)
    return Phase.objects.filter(challenge__kind=Challenge.Kind.ORGANIZED, revealed_at__isnull=True).filter(due)


def final_count(phase: Phase) -> int:
    """How many submissions per team enter the private board (N)."""
    return max(1, phase.final_selection_count)


def auto_finals(phase: Phase, submissions: list[Submission]) -> list[Submission]:
    """Kaggle's rule for a team that chose none: its N best public submissions by public primary score.

    Ties go to the earlier submission; a submission without a public value comes last.
    """
    task = phase.task
    higher = task.metric(task.primary).higher_is_better

    def key(s: Submission):
        value = s.primary_value
        if value is None or value != value:
            return (True, 0.0, s.created_at, str(s.pk))
        return (False, -value if higher else value, s.created_at, str(s.pk))

    return sorted((s for s in submissions if s.is_public), key=key)[: final_count(phase)]


def resolve_finals(phase: Phase) -> dict[int, list[str]]:
    """Set ``final_by`` on every scored submission of the phase; returns {team id: [final submission ids]}.

    Chosen ones count only where the phase lets teams choose; hidden submissions and
    disqualified teams have none.
    """
    excluded = disqualified_teams(phase)
    by_team: dict[int, list[Submission]] = defaultdict(list)
    for s in (
        Submission.objects.on_boards()
        .filter(phase=phase)
        .only("id", "team_id", "primary_value", "created_at", "is_public", "selected_final")
    ):
        if s.team_id not in excluded:
            by_team[s.team_id].append(s)
    chosen_ids, auto_ids = [], []
    finals: dict[int, list[str]] = {}
    for team_id, subs in by_team.items():
        chosen = [s for s in subs if s.selected_final] if phase.final_selection_allowed else []
        chosen = sorted(chosen, key=lambda s: s.created_at)[: final_count(phase)]
        if chosen:
            chosen_ids += [s.pk for s in chosen]
            finals[team_id] = [str(s.pk) for s in chosen]
        else:
            picked = auto_finals(phase, subs)
            auto_ids += [s.pk for s in picked]
            if picked:
                finals[team_id] = [str(s.pk) for s in picked]
    Submission.objects.filter(phase=phase).exclude(final_by="").update(final_by="")
    Submission.objects.filter(pk__in=chosen_ids).update(final_by=Submission.FinalBy.CHOSEN)
    Submission.objects.filter(pk__in=auto_ids).update(final_by=Submission.FinalBy.AUTO)
    return finals


def reveal_phase(phase: Phase, *, by=None, now: datetime | None = None) -> RevealOutcome:
    """Close the phase, resolve final selections and publish its private boards; a no-op if already revealed.

    ``by`` is the organizer who revealed it (None: the scheduled reveal).
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = Phase.objects.select_for_update().select_related("challenge").filter(pk=phase.pk).first()
        if locked is None or locked.revealed_at is not None:
            return RevealOutcome(phase=locked or phase, revealed=False)
        if locked.starts_at > now:
            starts = f"{locked.starts_at:%Y-%m-%d %H:%M}"
            raise RevealRefused(f"Phase {locked.title} has not started yet (it starts {starts} UTC).")
        closed_early = locked.ends_at is None or locked.ends_at > now
        if closed_early:
            locked.ends_at = now
        finals = resolve_finals(locked)
        locked.revealed_at = now
        locked.save(update_fields=["ends_at", "revealed_at"])
        boards = build_private_boards(locked)
        n_final = sum(len(v) for v in finals.values())
        audit.record(
            locked.challenge,
            by,
            "phase.reveal",
            target=f"phase {locked.slug}",
            details={
                "scheduled": by is None,
                "closed_early": closed_early,
                "final_submissions": n_final,
                "teams": len(finals),
                "private_boards": [b.direction for b in boards],
            },
        )
        transaction.on_commit(cache.invalidate_summaries)
    phase.revealed_at, phase.ends_at = locked.revealed_at, locked.ends_at
    log.info("revealed phase %s: %d final submissions of %d teams", locked, n_final, len(finals))
    return RevealOutcome(phase=locked, revealed=True, n_final=n_final, n_teams=len(finals))


def reveal_now(phase: Phase, by) -> RevealOutcome:
    """The organizer's "reveal now" button: an early (or on-time) reveal; refused if already revealed."""
    if phase.revealed_at is not None:
        raise RevealRefused(f"Phase {phase.title} was already revealed on {phase.revealed_at:%Y-%m-%d %H:%M} UTC.")
    outcome = reveal_phase(phase, by=by)
    if not outcome.revealed:
        raise RevealRefused(f"Phase {phase.title} was already revealed.")
    return outcome


def postpone_reveal(phase: Phase, until: datetime, by, reason: str = "") -> Phase:
    """Move the reveal to ``until`` (a later time); refused once revealed or for a time not in the future."""
    now = timezone.now()
    if phase.revealed_at is not None:
        raise RevealRefused("The private board is already public; a reveal cannot be undone or postponed.")
    if until <= now:
        raise RevealRefused(f"Choose a time in the future (it is now {now:%Y-%m-%d %H:%M} UTC).")
    if phase.ends_at is not None and until < phase.ends_at:
        raise RevealRefused(
            f"The reveal cannot come before the phase ends ({phase.ends_at:%Y-%m-%d %H:%M} UTC); "
            "to reveal earlier, use Reveal now."
        )
    with transaction.atomic():
        before = phase.reveal_at
        phase.reveal_at = until
        phase.save(update_fields=["reveal_at"])
        audit.record(
            phase.challenge,
            by,
            "phase.postpone_reveal",
            target=f"phase {phase.slug}",
            reason=reason,
            details={"from": before.isoformat() if before else None, "to": until.isoformat()},
        )
    return phase


@shared_task(name="boards.reveal_due_phases", ignore_result=True)
def reveal_due_phases() -> int:
    """Periodic (Celery beat, every minute): reveal every phase whose reveal time has passed."""
    revealed = 0
    for phase in due_phases():
        try:
            revealed += reveal_phase(phase).revealed
        except RevealRefused as refused:
            log.warning("not revealing %s: %s", phase, refused)
        except Exception:  # one broken phase must not block the others; the next run tries again
            log.exception("could not reveal phase %s", phase)
    return revealed
