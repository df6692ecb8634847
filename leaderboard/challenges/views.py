"""Read-only pages of organized challenges: the list and a challenge's page."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

import scoring
from leaderboard.challenges.access import get_challenge_for, inputs_offered
from leaderboard.challenges.models import Challenge, Registration
from leaderboard.challenges.registration import registration_of_user
from leaderboard.challenges.timeline import timeline
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
        if not challenge.is_published:
            unpublished.append(challenge)
            continue
        phases = list(challenge.phases.all())
        ends = [p.ends_at for p in phases]
        # A challenge between two phases is running: it is listed with the open ones.
        state = challenge.state(now)
        grouped["open" if state == "between" else state].append(
            {
                "challenge": challenge,
                "phases": len(phases),
                "starts": min((p.starts_at for p in phases), default=None),
                "ends": None if None in ends else max(ends, default=None),
            }
        )
    sections = [{"key": key, "title": title, "challenges": grouped[key]} for key, title in SECTIONS]
    return render(request, "challenges/list.html", {"sections": sections, "unpublished": unpublished})


@require_GET
def challenge_detail(request: HttpRequest, slug: str) -> HttpResponse:
    access = get_challenge_for(request.user, slug)
    challenge = access.challenge
    now = timezone.now()
    registration = registration_of_user(challenge, request.user)
    approved = registration is not None and registration.status == Registration.Status.APPROVED
    phases = [
        {
            "entry": entry,
            "phase": entry.phase,
            "state": entry.state,
            "inputs": inputs_offered(entry.phase, access.is_organizer, now),
            # The submit button: an approved team (or an organizer's baseline) on an open phase with a test set.
            "can_submit": (approved or access.is_organizer) and entry.state == "open" and entry.phase.has_truth,
        }
        for entry in timeline(challenge.phases.all(), now)
    ]
    return render(
        request,
        "challenges/detail.html",
        {
            "challenge": challenge,
            "is_organizer": access.is_organizer,
            "phases": phases,
            "now": now,
            "state": challenge.state(now),
            "registration": registration,
            "approved": approved,
            "announcements": list(challenge.announcements.all()),
        },
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
