"""Method pages (/methods/<team>/<method>/), their curation by the team, and the suites (/suites/...).

Everything is read from the standing boards (``leaderboard.methods.results``);
nothing is ranked or scored per request. Method pages and suites are public,
like the boards they read; only a team's members may curate its methods.
"""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

import scoring
from leaderboard.accounts.access import get_team_for
from leaderboard.accounts.models import Membership, Team, User
from leaderboard.methods.forms import MethodProfileForm
from leaderboard.methods.models import MethodProfile
from leaderboard.methods.results import method_results, method_slug
from leaderboard.methods.suites import ALL, suite_context


def _profile(team: Team, results) -> MethodProfile | None:
    keys = {r.row["method_key"] for r in results}
    return MethodProfile.objects.filter(team=team, method_key__in=keys).order_by("-updated_at").first()


def method_url(team_slug: str, method_key: str) -> str:
    return reverse("methods:detail", args=[team_slug, method_slug(method_key)])


@require_GET
def method_detail(request: HttpRequest, team_slug: str, slug: str) -> HttpResponse:
    team = get_object_or_404(Team, slug=team_slug)
    name, results = method_results(team, slug)
    if not results:
        raise Http404("This team has no public ranked result under that method name.")
    is_member = request.user.is_authenticated and Membership.objects.filter(team=team, user=request.user).exists()
    context = {
        "team": team,
        "name": name,
        "slug": slug,
        "results": results,
        "profile": _profile(team, results),
        "can_edit": is_member,
        "n_tasks": len(scoring.TASKS),
    }
    return render(request, "methods/method.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def method_edit(request: HttpRequest, team_slug: str, slug: str) -> HttpResponse:
    team, _ = get_team_for(cast(User, request.user), team_slug)  # members only (404 for anyone else)
    name, results = method_results(team, slug)
    if not results:
        raise Http404("This team has no public ranked result under that method name.")
    profile = _profile(team, results) or MethodProfile(team=team, method_key=results[0].row["method_key"])
    form = MethodProfileForm(request.POST or None, instance=profile)
    if request.method == "POST" and form.is_valid():
        saved = form.save(commit=False)
        saved.updated_by = request.user
        saved.save()
        messages.success(request, f"Saved the links and description of {name}.")
        return redirect("methods:detail", team.slug, slug)
    status = 400 if request.method == "POST" else 200
    return render(request, "methods/method_edit.html", {"team": team, "name": name, "slug": slug, "form": form},
                  status=status)  # fmt: skip


@require_GET
def suite_index(request: HttpRequest) -> HttpResponse:
    suites = [{"slug": ALL, "name": "All hosted tasks", "n_tasks": len(scoring.TASKS)}]
    for family in scoring.FAMILIES.values():
        n = sum(1 for t in scoring.TASKS.values() if t.family == family.slug)
        suites.append({"slug": family.slug, "name": family.name, "n_tasks": n})
    return render(request, "methods/suites.html", {"suites": suites})


@require_GET
def suite_detail(request: HttpRequest, slug: str) -> HttpResponse:
    context = suite_context(slug)
    if context is None:
        raise Http404("No such suite.")
    return render(request, "methods/suite.html", context)
