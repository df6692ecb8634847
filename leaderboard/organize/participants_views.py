"""The manage pages for teams: the participants list with its decisions, and the announcements.

Access through ``get_managed_challenge`` (404 for non-organizers); writes through
``leaderboard.organize.moderation`` (audited, e-mailed by a worker).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from leaderboard.challenges.models import Registration
from leaderboard.organize import moderation
from leaderboard.organize.access import get_managed_challenge
from leaderboard.organize.moderation_forms import AnnouncementForm, DecisionForm, first_error
from leaderboard.organize.moderation_views import acting_user, manage_context
from leaderboard.submissions.models import Submission

PAGE_SIZE = 50


@login_required
@require_GET
def participants(request: HttpRequest, slug: str) -> HttpResponse:
    """Registered teams by status, with member and submission counts and the decisions each allows."""
    challenge = get_managed_challenge(request.user, slug)
    status = request.GET.get("status", "")
    if status and status not in Registration.Status.values:
        messages.error(request, f"Unknown status {status[:40]!r}; showing every registration.")
        status = ""
    base = Registration.objects.filter(challenge=challenge)
    counts = dict(base.values_list("status").annotate(n=Count("pk")).values_list("status", "n"))
    status_counts = [(value, label, counts.get(value, 0)) for value, label in Registration.Status.choices]
    rows = base.filter(status=status) if status else base
    rows = (
        rows.select_related("team", "user", "decided_by")
        .annotate(n_members=Count("team__memberships", distinct=True))
        .order_by("status", "created_at", "pk")
    )
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    listed = list(page.object_list)
    submitted = dict(
        Submission.objects.filter(phase__challenge=challenge, team_id__in=[r.team_id for r in listed])
        .values_list("team_id")
        .annotate(n=Count("pk"))
        .values_list("team_id", "n")
    )
    entries = [
        {
            "registration": r,
            "n_submissions": submitted.get(r.team_id, 0),
            "decisions": [d for d, (sources, _) in moderation.TRANSITIONS.items() if r.status in sources],
            "over_size": bool(challenge.max_team_size and r.n_members > challenge.max_team_size),  # type: ignore[attr-defined]
        }
        for r in listed
    ]
    context = manage_context(
        challenge,
        "participants",
        entries=entries,
        page=page,
        status=status,
        query=f"status={status}" if status else "",  # the page links keep the filter
        status_counts=status_counts,
        total=sum(counts.values()),
    )
    return render(request, "organize/moderation_participants.html", context)


@login_required
@require_POST
def decide(request: HttpRequest, slug: str, team_slug: str) -> HttpResponse:
    """POST a decision (approve, reject, disqualify, reinstate) on a team's registration."""
    challenge = get_managed_challenge(request.user, slug)
    registration = moderation.registration_for(challenge, team_slug)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
    else:
        try:
            outcome = moderation.decide(
                registration, form.cleaned_data["decision"], acting_user(request), reason=form.cleaned_data["reason"]
            )
        except moderation.ModerationError as refused:
            messages.error(request, str(refused))
        else:
            messages.success(request, outcome.message)
    back = request.POST.get("status", "")
    target = redirect("organize:participants", challenge.slug)
    if back in Registration.Status.values:
        target["Location"] += f"?status={back}"
    return target


@login_required
@require_http_methods(["GET", "POST"])
def announcements(request: HttpRequest, slug: str) -> HttpResponse:
    """Post an announcement (shown on the challenge page, e-mailed by a worker) and list the earlier ones."""
    challenge = get_managed_challenge(request.user, slug)
    form = AnnouncementForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            try:
                moderation.announce(
                    challenge, acting_user(request), title=form.cleaned_data["title"], body=form.cleaned_data["body"],
                    email=form.cleaned_data["email"],
                )  # fmt: skip
            except moderation.ModerationError as refused:
                form.add_error(None, str(refused))
            else:
                n = len(moderation.announcement_recipients(challenge)) if form.cleaned_data["email"] else 0
                sent = f" It is being e-mailed to {n} participant{'s' if n != 1 else ''}." if n else ""
                messages.success(request, "Announced on the challenge page." + sent)
                return redirect("organize:announcements", challenge.slug)
        if form.errors:
            messages.error(request, first_error(form))
    posted = challenge.announcements.select_related("created_by").order_by("-created_at")
    context = manage_context(
        challenge,
        "announcements",
        form=form,
        announcements=posted,
        n_recipients=len(moderation.announcement_recipients(challenge)),
    )
    return render(request, "organize/moderation_announcements.html", context)
