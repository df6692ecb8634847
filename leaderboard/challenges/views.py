"""Read-only pages of organized challenges: the list and a challenge's page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from leaderboard.challenges.access import get_challenge_for
from leaderboard.challenges.models import Challenge

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
    phases = [{"phase": phase, "state": phase.state(now)} for phase in access.challenge.phases.all()]
    return render(
        request,
        "challenges/detail.html",
        {"challenge": access.challenge, "is_organizer": access.is_organizer, "phases": phases, "now": now},
    )
