"""Final selection: a team marks up to N of its scored submissions as the ones for the private board.

Where ``Phase.final_selection_allowed``, until the phase ends, each team marks
up to ``Phase.final_selection_count`` scored submissions (``selected_final``).
A team that marks none gets its N best by public score (Kaggle's rule); the
reveal (``leaderboard.boards.reveal.resolve_finals``) decides and records it in
``Submission.final_by``. Every refusal says why.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from leaderboard.submissions import quotas
from leaderboard.submissions.models import Submission


class FinalRefused(Exception):
    """A final-selection change that is not allowed; the message is shown as is."""


def kaggle_rule(phase) -> str:
    """The sentence pages show beside the selection."""
    n = phase.final_selection_count
    return (
        f"Your team's final submissions (up to {n}) are the only ones ranked on the private board. "
        f"If you select none, your {n} best by public score are used."
    )


def deadline(phase):
    """When selection closes: the phase's end (None: open-ended)."""
    return phase.ends_at


def selection_open(phase, now=None) -> bool:
    now = now or timezone.now()
    if not phase.final_selection_allowed or phase.revealed_at is not None:
        return False
    return phase.ends_at is None or phase.ends_at > now


def selected_for(team, phase) -> list[Submission]:
    """The team's currently selected final submissions of the phase, oldest first."""
    return list(Submission.objects.filter(team=team, phase=phase, selected_final=True).order_by("created_at"))


def set_final(submission: Submission, selected: bool, user) -> Submission:
    """Mark (``selected``) or unmark a submission as one of its team's finals; ``FinalRefused`` says why not.

    The count is checked under the team's lock (PostgreSQL), so two clicks at once
    cannot select N + 1.
    """
    phase = submission.phase
    if not phase.final_selection_allowed:
        raise FinalRefused(
            f"Phase {phase.title} does not let teams choose final submissions: the "
            f"{phase.final_selection_count} best by public score of each team are used."
        )
    now = timezone.now()
    if phase.revealed_at is not None or (phase.ends_at is not None and phase.ends_at <= now):
        when = phase.ends_at or phase.revealed_at
        raise FinalRefused(f"Final submissions could be chosen until the phase ended on {when:%Y-%m-%d %H:%M} UTC.")
    if not getattr(user, "is_authenticated", False) or not submission.team.memberships.filter(user=user).exists():
        raise FinalRefused(f"Only members of team {submission.team.name} choose its final submissions.")
    if selected and submission.status != Submission.Status.SCORED:
        raise FinalRefused(
            f"Only scored submissions can be final; this one is {submission.get_status_display().lower()}."
        )
    if selected and submission.is_hidden:
        raise FinalRefused("A submission hidden by the organizers cannot be final.")
    with transaction.atomic():
        quotas.lock(submission.team)
        current = Submission.objects.filter(pk=submission.pk).values_list("selected_final", flat=True).first()
        if current == selected:
            submission.selected_final = selected
            return submission
        if selected:
            others = Submission.objects.filter(team_id=submission.team_id, phase=phase, selected_final=True)
            n = phase.final_selection_count
            if others.count() >= n:
                names = ", ".join(f'"{s.method_name}" ({str(s.pk)[:8]})' for s in others.order_by("created_at"))
                raise FinalRefused(
                    f"Your team has already selected {n} final submission{'s' if n != 1 else ''} ({names}); "
                    "unselect one first."
                )
        Submission.objects.filter(pk=submission.pk).update(selected_final=selected)
    submission.selected_final = selected
    return submission
