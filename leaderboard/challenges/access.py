"""Who may see an organized challenge: the one helper the challenge views go through."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404

from leaderboard.challenges.models import Challenge, Phase


@dataclass(frozen=True)
class ChallengeAccess:
    """The challenge and what the requesting user may do with it, computed once per request."""

    challenge: Challenge
    is_organizer: bool


def get_challenge_for(user, slug: str) -> ChallengeAccess:
    """The organized challenge ``slug`` if ``user`` may see it; 404 otherwise (an unpublished one is not revealed)."""
    challenge = Challenge.objects.organized().filter(slug=slug).prefetch_related("phases").first()
    if challenge is None:
        raise Http404("No such challenge.")
    is_organizer = challenge.is_organizer(user)
    if not (challenge.is_published or is_organizer):
        raise Http404("No such challenge.")
    return ChallengeAccess(challenge=challenge, is_organizer=is_organizer)


def inputs_offered(phase, is_organizer: bool, now=None) -> bool:
    """Whether a phase's test inputs and example file are offered: once it has started (to its organizers at once)."""
    return phase.has_truth and (is_organizer or phase.state(now) != "upcoming")


def labels_are_public(phase: Phase) -> bool:
    """Whether analysis that reveals which test rows are wrong may be shown to anyone on ``phase``.

    Only a standing phase of a task whose labels are published: never an
    organized challenge's phase, whose labels only its organizers hold.
    """
    return phase.challenge.kind == Challenge.Kind.STANDING and bool(phase.task.public_labels) and not phase.split_spec
