"""Organizer pages: create a challenge, import a bundle, manage a challenge, its phases and its truth.

Access: ``require_host`` for creating (a 403 page saying how to get the
permission), ``get_managed_challenge`` for everything under ``manage/`` (404 for
anyone who does not organize the challenge; anonymous users log in first).
The writes are ``leaderboard.organize.services``' functions.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import scoring
from leaderboard.challenges.bundles import BundleError
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.organize import hosts, services
from leaderboard.organize.access import get_managed_challenge, require_host
from leaderboard.organize.forms import (
    BundleForm,
    ChallengeForm,
    ClassGroupsForm,
    OrganizerForm,
    PhaseForm,
    TruthForm,
)
from leaderboard.submissions.uploads import upload_refused

AUDIT_PAGE_SIZE = 25


def _manage_url(challenge: Challenge) -> str:
    return reverse("organize:manage", args=[challenge.slug])


def _phase_url(phase: Phase) -> str:
    return reverse("organize:phase", args=[phase.challenge.slug, phase.slug])


# --- creating -------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def new_challenge(request: HttpRequest) -> HttpResponse:
    require_host(request.user)
    form = ChallengeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        challenge = services.create_challenge(form.values(), request.user)
        messages.success(request, f"Created {challenge.title}. Add its phases next.")
        return redirect(_manage_url(challenge))
    status = 400 if request.method == "POST" else 200
    return render(request, "organize/new.html", {"form": form}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def import_bundle(request: HttpRequest) -> HttpResponse:
    require_host(request.user)
    form = BundleForm(request.POST or None, request.FILES or None)
    problems: list[str] = []
    if request.method == "POST":
        if refused := upload_refused(request):
            form.add_error("bundle", refused)
        elif form.is_valid():
            try:
                challenge = services.import_challenge_bundle(form.cleaned_data["bundle"], request.user)
            except BundleError as error:
                problems = error.problems
            else:
                messages.success(request, f"Imported {challenge.title} with {challenge.phases.count()} phases.")
                return redirect(_manage_url(challenge))
    status = 400 if request.method == "POST" else 200
    return render(request, "organize/import.html", {"form": form, "problems": problems}, status=status)


# --- the manage page ---------------------------------------------------------------------------


def _audit_page(request: HttpRequest, challenge: Challenge):
    entries = challenge.audit_entries.select_related("actor").order_by("-created_at", "-pk")
    return Paginator(entries, AUDIT_PAGE_SIZE).get_page(request.GET.get("page"))


def _manage_page(request, challenge, *, form=None, organizer_form=None, status=200) -> HttpResponse:
    context = {
        "challenge": challenge,
        "form": form or ChallengeForm(instance=challenge),
        "organizer_form": organizer_form or OrganizerForm(),
        "organizers": challenge.organizers.order_by("username"),
        "phases": challenge.phases.all(),
        "audit": _audit_page(request, challenge),
        "section": "overview",
        "host_contacts": hosts.contacts(),
    }
    return render(request, "organize/manage.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def manage(request: HttpRequest, slug: str) -> HttpResponse:
    challenge = get_managed_challenge(request.user, slug)
    if request.method == "GET":
        return _manage_page(request, challenge)
    form = ChallengeForm(request.POST, instance=Challenge.objects.get(pk=challenge.pk))
    if not form.is_valid():
        return _manage_page(request, challenge, form=form, status=400)
    changed = services.update_challenge(challenge, form.values(), request.user)
    messages.success(request, "Saved." if changed else "Nothing changed.")
    return redirect(_manage_url(challenge))


@login_required
@require_POST
def add_organizer(request: HttpRequest, slug: str) -> HttpResponse:
    challenge = get_managed_challenge(request.user, slug)
    form = OrganizerForm(request.POST)
    if form.is_valid():
        try:
            user = services.add_organizer(challenge, form.cleaned_data["username"], request.user)
        except services.OrganizerError as error:
            form.add_error("username", str(error))
        else:
            messages.success(request, f"{user.username} now organizes this challenge.")
            return redirect(_manage_url(challenge) + "#organizers")
    return _manage_page(request, challenge, organizer_form=form, status=400)


@login_required
@require_POST
def remove_organizer(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    challenge = get_managed_challenge(request.user, slug)
    try:
        user = services.remove_organizer(challenge, user_id, request.user)
    except services.OrganizerError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"{user.username} no longer organizes this challenge.")
        if user.pk == request.user.pk and not request.user.is_staff:
            return redirect(reverse("challenges:detail", args=[challenge.slug]))
    return redirect(_manage_url(challenge) + "#organizers")


@login_required
@require_GET
def export_bundle(request: HttpRequest, slug: str) -> HttpResponse:
    """The challenge as a bundle .zip, truth files included (organizers only, like the truth download)."""
    challenge = get_managed_challenge(request.user, slug)
    data = services.export_challenge_bundle(challenge, request.user)
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{challenge.slug}.zip"'
    response["Cache-Control"] = "private, no-store"
    return response


# --- phases --------------------------------------------------------------------------------------


def _managed_phase(request: HttpRequest, slug: str, phase_slug: str) -> tuple[Challenge, Phase]:
    challenge = get_managed_challenge(request.user, slug)
    phase = challenge.phases.filter(slug=phase_slug).first()
    if phase is None:
        raise Http404("No such phase.")
    phase.challenge = challenge
    return challenge, phase


@login_required
@require_GET
def phases(request: HttpRequest, slug: str) -> HttpResponse:
    challenge = get_managed_challenge(request.user, slug)
    rows = challenge.phases.annotate(n_submissions=Count("submissions"))
    return render(request, "organize/phases.html", {"challenge": challenge, "phases": rows, "section": "phases"})


@login_required
@require_http_methods(["GET", "POST"])
def new_phase(request: HttpRequest, slug: str) -> HttpResponse:
    challenge = get_managed_challenge(request.user, slug)
    form = PhaseForm(request.POST or None, instance=Phase(challenge=challenge), challenge=challenge)
    if request.method == "POST" and form.is_valid():
        phase, _ = services.save_phase(challenge, None, form.values(), request.user)
        messages.success(request, f"Created the phase {phase.title}. Upload its truth file below.")
        return redirect(_phase_url(phase))
    status = 400 if request.method == "POST" else 200
    context = {"challenge": challenge, "form": form, "section": "phases"}
    return render(request, "organize/phase_new.html", context, status=status)


def _phase_page(
    request,
    challenge,
    phase,
    *,
    form=None,
    truth_form=None,
    groups_form=None,
    problems=None,
    groups_problems=None,
    status=200,
):
    versions = phase.truth_versions.select_related("uploaded_by").annotate(n_scores=Count("submissions"))
    context = {
        "challenge": challenge,
        "phase": phase,
        "form": form or PhaseForm(instance=phase, challenge=challenge),
        "truth_form": truth_form or TruthForm(),
        "groups_form": groups_form or ClassGroupsForm(),
        "class_groups": phase.task.kind_def.class_groups,
        "problems": problems,
        "groups_problems": groups_problems,
        "versions": versions,
        "n_submissions": phase.submissions.count(),
        "section": "phases",
    }
    return render(request, "organize/phase.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def phase(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponse:
    challenge, phase = _managed_phase(request, slug, phase_slug)
    if request.method == "GET":
        return _phase_page(request, challenge, phase)
    form = PhaseForm(request.POST, instance=Phase.objects.get(pk=phase.pk), challenge=challenge)
    if not form.is_valid():
        return _phase_page(request, challenge, phase, form=form, status=400)
    if phase.has_truth and form.cleaned_data["split"] != phase.split:
        # A new split must still read the current truth (a usage column needs one in the file).
        candidate = Phase.objects.get(pk=phase.pk)
        candidate.split = form.cleaned_data["split"]
        problem = services.truth_problem_with_split(candidate)
        if problem:
            form.add_error("split_mode", f"The current truth file does not fit this split: {problem}")
            return _phase_page(request, challenge, phase, form=form, status=400)
    saved, rescoring = services.save_phase(challenge, phase, form.values(), request.user)
    note = " Every submission of the phase is being re-scored with the new split." if rescoring else ""
    messages.success(request, "Saved." + note)
    return redirect(_phase_url(saved))


@login_required
@require_POST
def upload_truth(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponse:
    challenge, phase = _managed_phase(request, slug, phase_slug)
    truth_form = TruthForm(request.POST, request.FILES)
    if refused := upload_refused(request):
        truth_form.add_error(None, refused)
        return _phase_page(request, challenge, phase, truth_form=truth_form, status=400)
    if not truth_form.is_valid():
        return _phase_page(request, challenge, phase, truth_form=truth_form, status=400)
    data = truth_form.cleaned_data
    try:
        replaced = services.replace_truth(phase, data["file"], request.user, groups=data["groups"])
    except services.GroupMappingInvalid as invalid:
        # A task without class groups shows no mapping field: its refusal heads the form.
        field = "groups" if phase.task.kind_def.class_groups else None
        truth_form.add_error(field, _mapping_refused(invalid.error))
        return _phase_page(request, challenge, phase, truth_form=truth_form, problems=invalid.error, status=400)
    except scoring.ScoringError as error:
        truth_form.add_error(
            "file",
            f"The truth file is not valid for this task: {error.total} problem{'s' if error.total != 1 else ''} "
            "(listed above). Nothing was stored; the current truth is unchanged.",
        )
        return _phase_page(request, challenge, phase, truth_form=truth_form, problems=error, status=400)
    return _truth_stored(request, phase, replaced)


def _mapping_refused(error: scoring.ScoringError) -> str:
    if error.total == 1:  # one sentence (an unknown task, an empty file): shown as it is
        return f"{error.problems[0].message} Nothing was stored; the current truth is unchanged."
    return (
        f"The class groups are not valid for this task: {error.total} problems (listed above). "
        "Nothing was stored; the current truth is unchanged."
    )


def _truth_stored(request: HttpRequest, phase: Phase, replaced: services.TruthReplaced) -> HttpResponse:
    if not replaced.changed:
        messages.info(request, "This is already the phase's truth file; nothing changed.")
    else:
        rescoring = (
            f" The phase's {replaced.rescoring} submission{'s are' if replaced.rescoring != 1 else ' is'} "
            "being re-scored against it."
            if replaced.rescoring
            else ""
        )
        stored = f"Stored the truth ({replaced.n_rows:,} rows, sha256 {replaced.sha256[:12]})."
        messages.success(request, stored + rescoring)
        for warning in replaced.warnings:
            messages.warning(request, warning)
    return redirect(_phase_url(phase) + "#truth")


@login_required
@require_POST
def truth_groups(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponse:
    """Apply a class,group mapping to the phase's current truth (stored again with a group column)."""
    challenge, phase = _managed_phase(request, slug, phase_slug)
    groups_form = ClassGroupsForm(request.POST, request.FILES)
    if refused := upload_refused(request):
        groups_form.add_error(None, refused)
        return _phase_page(request, challenge, phase, groups_form=groups_form, status=400)
    if not groups_form.is_valid():
        return _phase_page(request, challenge, phase, groups_form=groups_form, status=400)
    try:
        replaced = services.apply_class_groups(phase, groups_form.cleaned_data["mapping"], request.user)
    except services.OrganizerError as error:
        groups_form.add_error(None, str(error))
        return _phase_page(request, challenge, phase, groups_form=groups_form, status=400)
    except services.GroupMappingInvalid as invalid:
        field = "mapping" if phase.task.kind_def.class_groups else None
        groups_form.add_error(field, _mapping_refused(invalid.error))
        return _phase_page(
            request, challenge, phase, groups_form=groups_form, groups_problems=invalid.error, status=400
        )
    except scoring.ScoringError as error:  # the stored truth no longer reads (e.g. the task changed)
        groups_form.add_error(None, f"The current truth file cannot take class groups: {error}")
        return _phase_page(request, challenge, phase, groups_form=groups_form, groups_problems=error, status=400)
    return _truth_stored(request, phase, replaced)


@login_required
@require_GET
def download_truth(request: HttpRequest, slug: str, phase_slug: str) -> FileResponse:
    """The phase's current truth file: the one URL that serves hidden labels, to the challenge's organizers."""
    challenge, phase = _managed_phase(request, slug, phase_slug)
    if not phase.has_truth:
        raise Http404("This phase has no truth file yet.")
    services.truth_download_audited(phase, request.user)
    name = (phase.truth_file.name or "truth.csv").rsplit("/", 1)[-1]
    response = FileResponse(phase.truth_file.open("rb"), as_attachment=True, filename=f"{challenge.slug}-{name}")
    response["Cache-Control"] = "private, no-store"
    return response
