"""The organizer's reveal buttons: reveal a phase now, or postpone its reveal (POST only, then back to ``next``).

Access is ``organize.access.get_managed_challenge`` (404 for anyone who does not
organize the challenge); the work is ``leaderboard.boards.reveal``'s.
"""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from leaderboard.boards.reveal import RevealRefused, postpone_reveal, reveal_now
from leaderboard.organize.access import get_managed_challenge


def _phase(request: HttpRequest, slug: str, phase_slug: str):
    challenge = get_managed_challenge(request.user, slug)
    phase = challenge.phases.filter(slug=phase_slug).first()
    if phase is None:
        raise Http404("No such phase.")
    phase.challenge = challenge
    return phase


def _back(request: HttpRequest, phase) -> HttpResponse:
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return redirect(target)
    return redirect(phase)


def parse_when(text: str) -> dt.datetime | None:
    """A date-time from the form (``2027-03-01T12:00``, as a datetime-local input sends it), in UTC if naive."""
    value = parse_datetime((text or "").strip())
    if value is None:
        return None
    return timezone.make_aware(value, dt.UTC) if timezone.is_naive(value) else value


@login_required
@require_POST
def reveal(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponse:
    phase = _phase(request, slug, phase_slug)
    try:
        outcome = reveal_now(phase, request.user)
    except RevealRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request,
            f"{phase.title} is revealed: submissions are closed and the private board is public "
            f"({outcome.n_final} final submissions of {outcome.n_teams} teams).",
        )
    return _back(request, phase)


@login_required
@require_POST
def postpone(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponse:
    phase = _phase(request, slug, phase_slug)
    until = parse_when(request.POST.get("until", ""))
    reason = request.POST.get("reason", "").strip()
    if until is None:
        messages.error(request, "Give the new reveal time as a date and time, e.g. 2027-03-01T12:00 (UTC).")
        return _back(request, phase)
    try:
        postpone_reveal(phase, until, request.user, reason)
    except RevealRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, f"The reveal of {phase.title} is postponed to {until:%Y-%m-%d %H:%M} UTC.")
    return _back(request, phase)
