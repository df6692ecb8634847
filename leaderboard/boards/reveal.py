"""The reveal of an organized phase: close it, resolve the final submissions, publish the private boards.

Until ``Phase.revealed_at`` is set, private scores (part ``private`` and
``all`` results, ``Submission.private_*``) are shown to the phase's organizers
only. ``reveal_phase`` is the one place that sets it, in one transaction:

1. submissions close (an early reveal moves ``ends_at`` to now: nobody may
   submit once the private numbers are out);
2. final selections are resolved (``resolve_finals``): a team's chosen
   submissions, or else its N best by public score (Kaggle's rule), recorded in
   ``Submission.final_by``;
3. the private boards are built (``build_private_boards``): one per direction,
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
from dataclasses import dataclass, replace
from datetime import datetime

from celery import shared_task
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard.boards import cache
from leaderboard.boards.models import Board, BoardRow
from leaderboard.boards.placement import representatives
from leaderboard.boards.spec import direction_spec, directions_for
from leaderboard.challenges import audit
from leaderboard.challenges.models import Challenge, Phase, Registration
from leaderboard.submissions.models import Result, Submission
from scoring.splits import PRIVATE, PUBLIC

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


def _disqualified_teams(phase: Phase) -> set[int]:
    return set(
        Registration.objects.filter(
            challenge_id=phase.challenge_id, status=Registration.Status.DISQUALIFIED
        ).values_list("team_id", flat=True)
    )


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
    excluded = _disqualified_teams(phase)
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


def _public_team_ranks(phase: Phase, direction: str) -> dict[int, int]:
    """{team id: its best dense rank on the public board of ``direction``}, as the public board shows it."""
    board = Board.objects.public().filter(phase=phase, direction=direction).first()
    if board is None:
        return {}
    ranks: dict[int, int] = {}
    rank, last = 0, None
    for team_id, quality in (
        BoardRow.objects.filter(board=board, is_public=True, quality__startswith="0")
        .order_by("quality", "tail")
        .values_list("team_id", "quality")
        .iterator(chunk_size=5000)
    ):
        if quality != last:
            rank, last = rank + 1, quality
        ranks.setdefault(team_id, rank)
    return ranks


def build_private_boards(phase: Phase) -> list[Board]:
    """(Re)build the phase's private boards from its final submissions' private results; call inside a transaction.

    One row per team: the best of its final submissions on the private part
    (ties by the board's tie-breaks, then the earlier submission). Rows are
    public on this board (a final submission enters the ranking that decides
    the challenge, under its method name). No significance test is run on
    private rows: the board carries no "indistinguishable" marks but the leader's.
    """
    from leaderboard.boards import recompute

    if phase.split_spec is None:
        return []
    task = phase.task
    specs = [direction_spec(task, direction) for direction in directions_for(task)]
    chosen = Submission.objects.on_boards().filter(phase=phase).exclude(final_by="")
    finals = list(chosen.values(*recompute.SUBMISSION_FIELDS))
    excluded = _disqualified_teams(phase)
    finals = [s for s in finals if s["team_id"] not in excluded]
    ids = [s["id"] for s in finals]
    stored = recompute._ranking_keys(specs) | {key for spec in specs for key in spec.stored_keys()}
    private_values = Result.objects.filter(submission_id__in=ids).by_submission(stored, part=PRIVATE) if ids else {}
    public_values = (
        Result.objects.filter(submission_id__in=ids).by_submission([s.metric for s in specs], part=PUBLIC)
        if ids
        else {}
    )
    candidates, info = recompute._to_candidates(finals, private_values)
    candidates = [replace(c, is_public=True) for c in candidates]
    boards = []
    for spec in specs:
        board, _ = Board.objects.get_or_create(
            phase=phase,
            direction=spec.key,
            part=Board.Part.PRIVATE,
            defaults={"metric": spec.metric, "significance": spec.significance, "computed_at": timezone.now()},
        )
        board.metric = spec.metric
        board.higher_is_better = spec.higher_is_better
        board.tiebreak = [list(pair) for pair in spec.tiebreak]
        board.significance = spec.significance
        # One row per team: group on the team alone (the method name is the same for every candidate here).
        by_id = {c.id: c for c in candidates}
        best = representatives(spec, [replace(c, method_name="") for c in candidates])
        reps = [by_id[c.id] for c in best]
        team_ranks = _public_team_ranks(phase, spec.key)
        rows = []
        for c in reps:
            row = recompute._build_row(board, spec, c, {**info[c.id], "is_public": True})
            row.is_public = True
            row.public_rank = team_ranks.get(c.team_id)
            row.public_value = public_values.get(c.id, {}).get(spec.metric)
            rows.append(row)
        leader = recompute._first(rows)
        for row in rows:
            row.p_value = None
            row.tied_with_leader = leader is not None and row.submission_id == leader.submission_id
        recompute._stamp(board, leader)
        board.n_rows = len(rows)
        board.n_submissions = len(finals)
        board.last_activity = max((c.submitted_at for c in candidates), default=None)
        board.progression = []
        board.pending_tests = 0
        board.save()
        BoardRow.objects.filter(board=board).delete()
        BoardRow.objects.bulk_create(rows, batch_size=500)
        boards.append(board)
    return boards


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
