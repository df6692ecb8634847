"""Submission pages: submit, test inputs and example files, the live status page and its JSON."""

from __future__ import annotations

import io

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

import scoring
from leaderboard.accounts.authenticated import AuthenticatedRequest
from leaderboard.accounts.models import Team
from leaderboard.challenges.access import ChallengeAccess, get_challenge_for, inputs_offered
from leaderboard.challenges.models import Phase
from leaderboard.challenges.registration import registration_of_user
from leaderboard.challenges.services import standing_phase
from leaderboard.challenges.truth_cache import TruthMissing, phase_truth
from leaderboard.csvsafe import safe_frame
from leaderboard.kinds.registry import shown_sections, site_kind
from leaderboard.submissions import access, edits, finals, intake, quotas
from leaderboard.submissions.charts import submission_charts
from leaderboard.submissions.examples import example_frame
from leaderboard.submissions.forms import SubmissionForm, megabytes, previous_answers
from leaderboard.submissions.models import Submission
from leaderboard.submissions.summary import headline_metrics, method_facts, revealed_parts, status_payload, truth_size
from leaderboard.submissions.uploads import upload_refused


def _phase_or_404(slug: str) -> Phase:
    if slug not in scoring.TASKS:
        raise Http404("No such task.")
    try:
        return standing_phase(slug)
    except Phase.DoesNotExist:
        raise Http404("This task is not set up yet (run manage.py load_benchmarks).") from None


@login_required
def submit(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    """Submit to a standing task's phase (``/tasks/<slug>/submit/``)."""
    return _submit(request, _phase_or_404(slug))


def _organized_phase_or_404(user, slug: str, phase_slug: str) -> tuple[Phase, ChallengeAccess]:
    """A phase of an organized challenge the user may see (``challenges.access`` decides), else 404."""
    challenge_access = get_challenge_for(user, slug)
    challenge = challenge_access.challenge
    phase = next((p for p in challenge.phases.all() if p.slug == phase_slug), None)
    if phase is None:
        raise Http404("No such phase.")
    phase.challenge = challenge  # already loaded: the checks read its kind, title and registration rules
    return phase, challenge_access


@login_required
def phase_submit(request: AuthenticatedRequest, slug: str, phase_slug: str) -> HttpResponse:
    """Submit to a phase of an organized challenge: only the team with an approved registration submits."""
    phase, challenge_access = _organized_phase_or_404(request.user, slug, phase_slug)
    user = request.user
    if challenge_access.is_organizer:  # baselines: organizers submit as any of their teams, unregistered
        return _submit(request, phase)
    registration = registration_of_user(phase.challenge, user)
    teams = Team.objects.filter(pk=registration.team_id) if registration else Team.objects.none()
    refusal = quotas.registration_refusal(user, registration.team, phase) if registration else None
    if registration is None:
        refusal = f"Register a team for {phase.challenge.title} first: the team that registers is the one that submits."
    return _submit(request, phase, teams=teams, registration=registration, registration_refusal=refusal)


def _submit(
    request: AuthenticatedRequest,
    phase: Phase,
    *,
    teams=None,
    registration=None,
    registration_refusal: str | None = None,
) -> HttpResponse:
    """The submit page of any phase; the form, the checks and the services are the same for all."""
    window = quotas.window_refusal(phase)
    can_submit = phase.has_truth and window is None and registration_refusal is None
    form = SubmissionForm(
        request.POST or None,
        request.FILES or None,
        phase=phase,
        user=request.user,
        teams=teams,
        initial=None if request.method == "POST" else previous_answers(request.user, phase),
        upload_refused=upload_refused(request),
    )
    if request.method == "POST" and can_submit and form.is_valid():
        try:
            submission = intake.create_submission(
                phase=phase,
                team=form.cleaned_data["team"],
                user=request.user,
                upload=form.cleaned_data["file"],
                metadata=form.metadata(),
            )
        except quotas.SubmissionRefused as refused:
            form.add_error(None, str(refused))
        else:
            form.discard_kept()
            return redirect(submission)
    if request.method == "POST" and can_submit:
        form.keep_file()
    context = {
        "phase": phase,
        "task": phase.task,
        "challenge": phase.challenge,
        "is_organized": phase.challenge.kind == phase.challenge.Kind.ORGANIZED,
        "form": form,
        "can_submit": can_submit,
        "is_open": window is None,
        "window_refusal": window,
        "registration": registration,
        "registration_refusal": registration_refusal,
        "quotas": [(t, quotas.quota_for(t, phase), form.team_refusals.get(t.pk)) for t in form.teams],
        "problems": form.problems,
        "inline_limit": megabytes(settings.SUBMISSION_INLINE_VALIDATION_BYTES),
        "error_summary": form.error_summary() if form.is_bound and can_submit else [],
        "truth_size": truth_size(phase),
    }
    status = 400 if request.method == "POST" else 200
    return render(request, "submissions/submit.html", context, status=status)


def _csv_response(frame, filename: str) -> HttpResponse:
    buffer = io.StringIO()
    safe_frame(frame).to_csv(buffer, index=False)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
def inputs_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """The test keys to predict, never the labels."""
    phase = _phase_or_404(slug)
    try:
        frame = scoring.test_inputs(phase.task, phase_truth(phase))
    except TruthMissing:
        raise Http404("This task has no test set loaded yet.") from None
    return _csv_response(frame, f"{slug}-inputs.csv")


@require_GET
def example_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """A valid prediction file in the exact format: every test key with a constant prediction."""
    phase = _phase_or_404(slug)
    try:
        frame = scoring.test_inputs(phase.task, phase_truth(phase))
    except TruthMissing:
        raise Http404("This task has no test set loaded yet.") from None
    return _csv_response(example_frame(phase.task, frame), f"{slug}-example.csv")


@require_GET
def phase_example_csv(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponse:
    """An organized phase's example prediction file, offered when its test inputs are (never labels)."""
    phase, challenge_access = _organized_phase_or_404(request.user, slug, phase_slug)
    if not inputs_offered(phase, challenge_access.is_organizer):
        raise Http404("No example file for this phase.")
    try:
        frame = scoring.test_inputs(phase.task, phase_truth(phase))
    except TruthMissing:
        raise Http404("No example file for this phase.") from None
    return _csv_response(example_frame(phase.task, frame), f"{slug}-{phase.slug}-example.csv")


def _detail_context(submission: Submission, permissions) -> dict:
    phase = submission.phase
    task = phase.task
    scored = submission.status == Submission.Status.SCORED
    # Private and all-rows values: organizers always, everyone else once the phase is revealed.
    may_see_private = phase.split_spec is not None and phase.private_visible_to(permissions.is_organizer)
    parts = ["public", "private", "all"] if may_see_private else ["public"]
    return {
        "submission": submission,
        "task": task,
        "phase": phase,
        "is_split": phase.split_spec is not None,
        "headline": headline_metrics(submission) if scored else [],
        "revealed_parts": revealed_parts(submission, may_see_private),
        "all_results": submission.results.filter(part__in=parts).order_by("part", "seed", "key") if scored else [],
        "final": finals_context(submission, permissions),
        "charts": submission_charts(submission) if scored else [],
        "kind_sections": shown_sections(site_kind(task).submission_sections, submission) if scored else [],
        "problems": (submission.report or {}).get("errors", [])
        if submission.error_kind == Submission.ErrorKind.INVALID
        else [],
        "problem_count": (submission.report or {}).get("error_count", 0),
        "queue_position": submission.queue_position(),
        "access": permissions,
        "declarations": [(d, submission.declarations.get(d.key)) for d in task.declarations],
        "method": method_facts(submission),
    }


def finals_context(submission: Submission, permissions) -> dict | None:
    """The final-selection box of a submission page (None where the phase lets no team choose)."""
    phase = submission.phase
    if not phase.final_selection_allowed or phase.challenge.kind != "organized":
        return None
    return {
        "can_toggle": permissions.can_manage and finals.selection_open(phase),
        "is_member": permissions.can_manage,
        "rule": finals.kaggle_rule(phase),
        "deadline": finals.deadline(phase),
        "my_url": reverse("submissions:my", args=[phase.challenge.slug, phase.slug]),
    }


def detail(request: HttpRequest, submission_id) -> HttpResponse:
    submission, permissions = access.get_submission_with_access(request.user, submission_id)
    return render(request, "submissions/detail.html", _detail_context(submission, permissions))


@require_GET
def report(request: HttpRequest, submission_id) -> HttpResponse:
    """The live part of the page (status, rank, metrics, charts), swapped in by the status poll."""
    submission, permissions = access.get_submission_with_access(request.user, submission_id)
    response = render(request, "submissions/_report.html", _detail_context(submission, permissions))
    response["Cache-Control"] = "no-store"
    return response


@require_GET
def status_json(request: HttpRequest, submission_id) -> JsonResponse:
    submission = access.get_submission_for(request.user, submission_id)
    response = JsonResponse(status_payload(submission))
    response["Cache-Control"] = "no-store"
    return response


@require_GET
def download_file(request: HttpRequest, submission_id) -> FileResponse:
    submission = access.get_submission_for(request.user, submission_id, access.FILE)
    return FileResponse(submission.file.open("rb"), as_attachment=True, filename=submission.file_name)


@require_POST
def rerun(request: HttpRequest, submission_id) -> HttpResponse:
    submission = access.get_submission_for(request.user, submission_id, access.ORGANIZE)
    if submission.status in (Submission.Status.QUEUED, Submission.Status.RUNNING):
        messages.info(request, "This submission is already queued or running.")
    else:
        edits.requeue(submission)
        messages.success(request, "The submission is queued for re-scoring; its old results were cleared.")
    return redirect(submission)


@require_POST
def visibility(request: HttpRequest, submission_id) -> HttpResponse:
    submission = access.get_submission_for(request.user, submission_id, access.TEAM)
    make_public = request.POST.get("visibility") == "public"
    edits.set_visibility(submission, make_public)
    messages.success(request, f"The submission is now {'public' if make_public else 'private'}.")
    return redirect(submission)


@require_POST
def final(request: HttpRequest, submission_id) -> HttpResponse:
    """Select (``selected=1``) or unselect a submission as one of its team's finals; back to ``next`` or its page."""
    submission = access.get_submission_for(request.user, submission_id, access.TEAM)
    selected = request.POST.get("selected") == "1"
    try:
        finals.set_final(submission, selected, request.user)
    except finals.FinalRefused as refused:
        messages.error(request, str(refused))
    else:
        if selected:
            messages.success(request, f'"{submission.method_name}" is now one of your team\'s final submissions.')
        else:
            messages.success(request, f'"{submission.method_name}" is no longer a final submission.')
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return redirect(target)
    return redirect(submission)


@login_required
def my_submissions(request: AuthenticatedRequest, slug: str, phase_slug: str) -> HttpResponse:
    """The user's teams' submissions on one phase of an organized challenge, with the final-selection toggles."""
    challenge_access = get_challenge_for(request.user, slug)
    phase = next((p for p in challenge_access.challenge.phases.all() if p.slug == phase_slug), None)
    if phase is None:
        raise Http404("No such phase.")
    phase.challenge = challenge_access.challenge
    subs = list(
        Submission.objects.filter(phase=phase, team__memberships__user=request.user)
        .select_related("team")
        .distinct()
        .order_by("-created_at")
    )
    show_private = phase.split_spec is not None and phase.private_visible_to(challenge_access.is_organizer)
    selected = sum(1 for s in subs if s.selected_final)
    context = {
        "challenge": challenge_access.challenge,
        "phase": phase,
        "task": phase.task,
        "submissions": subs,
        "show_private": show_private,
        "is_split": phase.split_spec is not None,
        "selection_open": finals.selection_open(phase),
        "rule": finals.kaggle_rule(phase),
        "n_selected": selected,
        "primary_name": phase.task.metric(phase.task.primary).name,
        "here": request.get_full_path(),
    }
    return render(request, "submissions/my.html", context)
