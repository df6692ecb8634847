"""Read-only pages of organized challenges: the list and a challenge's page."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

import scoring
from leaderboard.challenges.access import get_challenge_for, inputs_offered
from leaderboard.challenges.models import Challenge
from leaderboard.challenges.truth_cache import TruthMissing, phase_truth
from leaderboard.csvsafe import safe_frame

# The list's sections, in page order.
SECTIONS = (("open", "Open now"), ("upcoming", "Upcoming"), ("finished", "Finished"))


@require_GET
def challenge_list(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    challenges = Challenge.objects.organized().visible_to(request.user).prefetch_related("phases")
    grouped: dict[str, list] = {key: [] for key, _ in SECTIONS}
    unpublished = []
    for challenge in challenges.order_by("title"):
        (grouped[challenge.state(now)] if challenge.is_published else unpublished).append(challenge)
    sections = [{"key": key, "title": title, "challenges": grouped[key]} for key, title in SECTIONS]
    return render(request, "challenges/list.html", {"sections": sections, "unpublished": unpublished})


@require_GET
def challenge_detail(request: HttpRequest, slug: str) -> HttpResponse:
    access = get_challenge_for(request.user, slug)
    now = timezone.now()
    phases = [
        {"phase": phase, "state": phase.state(now), "inputs": inputs_offered(phase, access.is_organizer, now)}
        for phase in access.challenge.phases.all()
    ]
    return render(
        request,
        "challenges/detail.html",
        {"challenge": access.challenge, "is_organizer": access.is_organizer, "phases": phases, "now": now},
    )


@require_GET
def phase_inputs(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponse:
    """A phase's test keys to predict (never labels, never the usage column)."""
    access = get_challenge_for(request.user, slug)
    phase = next((p for p in access.challenge.phases.all() if p.slug == phase_slug), None)
    if phase is None or not inputs_offered(phase, access.is_organizer, timezone.now()):
        raise Http404("No test inputs for this phase.")
    try:
        frame = scoring.test_inputs(phase.task, phase_truth(phase))
    except TruthMissing:
        raise Http404("No test inputs for this phase.") from None
    response = HttpResponse(scoring.truth.write_csv(safe_frame(frame), None), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-{phase.slug}-inputs.csv"'
    return response
