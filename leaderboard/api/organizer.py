"""The organizer endpoints' one access check: a phase of a challenge the caller organizes.

Built on ``leaderboard.organize.access.get_managed_challenge`` (the pages' check), so the API
and the manage pages decide who organizes what in one place. Everyone else gets the API's
404 problem: an outsider learns nothing about a challenge's phases or whether it exists.
"""

from __future__ import annotations

from django.http import Http404

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.organize.access import get_managed_challenge


def managed_challenge_or_404(request, slug: str) -> Challenge:
    """The organized challenge ``slug`` if the token's user organizes it (or is staff); Http404 otherwise."""
    return get_managed_challenge(request.user, slug)


def managed_phase_or_404(request, slug: str, phase: str) -> Phase:
    """Phase ``phase`` of challenge ``slug`` if the caller organizes the challenge; Http404 otherwise."""
    challenge = managed_challenge_or_404(request, slug)
    found = Phase.objects.select_related("challenge").filter(challenge=challenge, slug=phase).first()
    if found is None:
        raise Http404(f"No phase {phase!r} in this challenge.")
    return found
