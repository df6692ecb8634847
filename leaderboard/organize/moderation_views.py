"""The manage pages for submissions: the table with filters, one submission's actions, re-runs, the export.

Every view starts with ``get_managed_challenge`` (or ``get_managed_submission``,
which calls it): 404 for anyone who does not organize the challenge. Every write is
a POST through a service of ``leaderboard.organize.moderation``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from leaderboard.challenges.audit import record
from leaderboard.challenges.models import Challenge
from leaderboard.organize import moderation
from leaderboard.organize.access import get_managed_challenge
from leaderboard.organize.bulk_download import zip_pieces
from leaderboard.organize.export_scores import export_lines
from leaderboard.organize.moderation_forms import RerunForm, SubmissionActionForm, SubmissionFilterForm, first_error
from leaderboard.submissions.models import Result, Submission

if TYPE_CHECKING:
    from leaderboard.accounts.models import User

PAGE_SIZE = 50


def acting_user(request: HttpRequest) -> User:
    """The organizer acting (every moderation view is behind ``login_required``)."""
    return cast("User", request.user)


def manage_context(challenge: Challenge, section: str, **extra) -> dict:
    """What the manage pages' header (organize/_header.html) and navigation need, plus the page's own."""
    return {"challenge": challenge, "section": section, **extra}


def _filtered(challenge: Challenge, form: SubmissionFilterForm):
    """(rows with every filter, rows with the phase and team filters only: for the per-status counts)."""
    rows = Submission.objects.filter(phase__challenge=challenge)
    if form.value("phase"):
        rows = rows.filter(phase__slug=form.value("phase"))
    team = (form.value("team") or "").strip()
    if team:
        rows = rows.filter(Q(team__slug=team) | Q(team__name__icontains=team))
    narrowed = rows
    if form.value("failed"):
        narrowed = narrowed.filter(status=Submission.Status.FAILED)
    elif form.value("status"):
        narrowed = narrowed.filter(status=form.value("status"))
    return narrowed, rows


def _all_row_values(page: list[Submission]) -> dict[str, float | None]:
    """The primary metric on all test rows for each submission of the page (split phases store it)."""
    keys = {s.phase.task.primary for s in page}
    found = Result.objects.filter(submission_id__in=[s.pk for s in page]).by_submission(keys, part=Result.Part.ALL)
    return {str(s.pk): found.get(str(s.pk), {}).get(s.phase.task.primary) for s in page}


@login_required
@require_GET
def submissions(request: HttpRequest, slug: str) -> HttpResponse:
    """Every submission of the challenge: filters, per-status counts, public and private scores."""
    challenge = get_managed_challenge(request.user, slug)
    phases = list(challenge.phases.all())
    form = SubmissionFilterForm(request.GET or None, phases=phases)
    narrowed, base = _filtered(challenge, form)
    counts = dict(base.values_list("status").annotate(n=Count("pk")).values_list("status", "n"))
    status_counts = [(value, label, counts.get(value, 0)) for value, label in Submission.Status.choices]
    rows = narrowed.select_related("phase", "team", "user", "truth_version").order_by("-created_at", "pk")
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    listed = list(page.object_list)
    all_values = _all_row_values(listed) if listed else {}
    entries = [{"submission": s, "all_value": all_values.get(str(s.pk))} for s in listed]
    query = request.GET.copy()
    query.pop("page", None)
    context = manage_context(
        challenge,
        "submissions",
        form=form,
        page=page,
        entries=entries,
        status_counts=status_counts,
        total=sum(counts.values()),
        query=query.urlencode(),
        phases=phases,
    )
    return render(request, "organize/moderation_submissions.html", context)


@login_required
@require_GET
def submission(request: HttpRequest, slug: str, submission_id) -> HttpResponse:
    """One submission's moderation: its scores (private ones too) and the action forms."""
    found, challenge = moderation.get_managed_submission(request.user, submission_id)
    if challenge.slug != slug:
        return redirect("organize:moderation-submission", challenge.slug, found.pk)
    all_value = _all_row_values([found]).get(str(found.pk))
    context = manage_context(
        challenge, "submissions", submission=found, all_value=all_value, history=moderation.submission_history(found)
    )
    return render(request, "organize/moderation_submission.html", context)


@login_required
@require_POST
def act(request: HttpRequest, slug: str, submission_id) -> HttpResponse:
    """POST an action (hide, unhide, baseline, unbaseline, verify, unverify, rerun) on one submission."""
    found, challenge = moderation.get_managed_submission(request.user, submission_id)
    target = reverse("organize:moderation-submission", args=[challenge.slug, found.pk])
    form = SubmissionActionForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
        return redirect(target)
    data = form.cleaned_data
    try:
        outcome = moderation.moderate_submission(
            found, data["action"], acting_user(request), reason=data["reason"], note=data["note"], url=data["url"]
        )
    except moderation.ModerationError as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, outcome.message)
    back = request.POST.get("next") or ""
    return redirect(back if _is_local(back) else target)


def _is_local(url: str) -> bool:
    """Only redirect back to a page of this site (a path), never to another host."""
    return bool(url) and url.startswith("/") and not url.startswith("//") and "\\" not in url


@login_required
@require_POST
def rerun(request: HttpRequest, slug: str) -> HttpResponse:
    """POST: re-run the failed, or all, submissions of a phase (queued again by a worker)."""
    challenge = get_managed_challenge(request.user, slug)
    phases = list(challenge.phases.all())
    form = RerunForm(request.POST, phases=phases)
    if not form.is_valid():
        messages.error(request, first_error(form))
    else:
        phase = next(p for p in phases if p.slug == form.cleaned_data["phase"])
        try:
            outcome = moderation.rerun_phase(phase, form.cleaned_data["which"], acting_user(request),
                                             reason=form.cleaned_data["reason"])  # fmt: skip
        except moderation.ModerationError as refused:
            messages.error(request, str(refused))
        else:
            messages.success(request, outcome.message)
    return redirect("organize:moderation-submissions", challenge.slug)


@login_required
@require_GET
def export_csv(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """Every submission with its public, private and all-row scores, streamed (organizers only)."""
    challenge = get_managed_challenge(request.user, slug)
    return scores_csv_response(challenge)


@login_required
@require_GET
def download_all(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """Every participant file and the scores as one streamed .zip (organizers only; audited)."""
    challenge = get_managed_challenge(request.user, slug)
    return submissions_zip_response(challenge, request.user)


def submissions_zip_response(challenge: Challenge, by) -> StreamingHttpResponse:
    """The bulk download as a streamed response; the API's answers with the same one."""
    record(challenge, by, "challenge.download", target="every submission file and the scores")
    response = StreamingHttpResponse(zip_pieces(challenge), content_type="application/zip")
    stamp = timezone.now().strftime("%Y%m%d-%H%M")
    response["Content-Disposition"] = f'attachment; filename="{challenge.slug}-submissions-{stamp}.zip"'
    response["Cache-Control"] = "private, no-store"
    return response


def scores_csv_response(challenge: Challenge) -> StreamingHttpResponse:
    """The export as a streamed download; the API's export answers with the same response."""
    response = StreamingHttpResponse(export_lines(challenge), content_type="text/csv; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d-%H%M")
    response["Content-Disposition"] = f'attachment; filename="{challenge.slug}-scores-{stamp}.csv"'
    # Private scores before the reveal: never cached by a proxy or the browser.
    response["Cache-Control"] = "private, no-store"
    return response
