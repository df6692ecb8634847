"""Uploading through the API: the multipart upload of a task or a phase, and its pre-flight.

Uploads go through the site's ``SubmissionForm`` and ``intake.create_submission``,
so the API accepts exactly what the form accepts; a refusal by the quota and
registration rules is the same problem document for the upload and its pre-flight.
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view, parser_classes, permission_classes, throttle_classes
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from leaderboard.accounts.models import Team
from leaderboard.api import schemas, views
from leaderboard.api.presenters import quota_dict, submission_dict
from leaderboard.api.problems import ApiProblem
from leaderboard.api.throttling import TokenRateThrottle, UploadRateThrottle, upload_slot
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.submissions import intake, quotas
from leaderboard.submissions.forms import DECLARATION_PREFIX, SubmissionForm
from leaderboard.submissions.models import Submission
from leaderboard.submissions.uploads import upload_refused
from scoring import submission_fields

SUBMIT = views.SUBMIT

YES = {submission_fields.YES, "true", "1", "on"}
NO = {submission_fields.NO, "false", "0", "off"}


def _yes_no(value):
    text = str(value).strip().lower()
    if text in YES:
        return submission_fields.YES
    if text in NO:
        return submission_fields.NO
    return value  # the form reports it as an invalid choice


def _form_data(request: Request, phase: Phase) -> dict:
    """The API's fields in the names and values the site's SubmissionForm reads."""
    params = request.data  # a QueryDict: uploads are multipart
    data = {}
    for f in submission_fields.FIELDS:
        value = params.get(f.name)
        if value is None:
            value = f.default or None  # a flag or a choice with a default: absent means the default
        if value is not None:
            data[f.name] = _yes_no(value) if f.kind == "flag" else value
    team_slug = params.get("team")
    teams = Team.objects.for_user(request.user)
    team = teams.filter(slug=team_slug).first() if team_slug else teams.filter(personal=True).first()
    data["team"] = team.pk if team else ""
    for declaration in phase.task.declarations:
        name = DECLARATION_PREFIX + declaration.key
        key = declaration.key if params.get(declaration.key) is not None else name
        if declaration.choices:
            values = [v for raw in params.getlist(key) if raw for v in str(raw).split(",") if v.strip()]
            data[name] = [v.strip() for v in values]
        elif params.get(key) is not None:
            data[name] = _yes_no(params.get(key))
    return data


def _invalid(form: SubmissionForm):
    if form.problems is not None:
        problems = form.problems.to_dict()
        return ApiProblem(
            422,
            "invalid-file",
            "Invalid prediction file",
            f"The file is not valid for this task: {form.problems.total} problem"
            f"{'s' if form.problems.total != 1 else ''}. Nothing was submitted and no quota was used.",
            errors=problems["errors"],
            error_count=problems["error_count"],
        )
    errors = []
    for field, messages in form.errors.get_json_data().items():
        name = field.removeprefix(DECLARATION_PREFIX) if field != "__all__" else None
        errors += [{"line": None, "column": None, "field": name, "message": m["message"]} for m in messages]
    return ApiProblem(
        422, "invalid-request", "Invalid request", "Some fields are missing or invalid; nothing was submitted.",
        errors=errors, error_count=len(errors),
    )  # fmt: skip


def _quota_problem(exceeded: quotas.QuotaExceeded) -> ApiProblem:
    quota = exceeded.quota
    daily = quota.total_remaining > 0
    headers = {}
    if daily:
        headers["Retry-After"] = str(max(1, int((quota.resets_at - timezone.now()).total_seconds())))
    return ApiProblem(
        429,
        "quota-exceeded",
        "Submission quota exceeded",
        str(exceeded),
        headers=headers,
        resets_at=quota.resets_at.isoformat() if daily else None,
        daily_limit=quota.daily_limit,
        total_limit=quota.total_limit,
    )


def _refusal(refused: quotas.SubmissionRefused) -> ApiProblem:
    """The problem document of a refusal by the quota and registration rules (upload and pre-flight alike)."""
    if isinstance(refused, quotas.QuotaExceeded):
        return _quota_problem(refused)
    if isinstance(refused, quotas.WorkerTimeExhausted):
        retry = max(1, int((refused.resets_at - timezone.now()).total_seconds()))
        return ApiProblem(
            429, "worker-time-exhausted", "Daily worker time for invalid files used", str(refused),
            headers={"Retry-After": str(retry)}, resets_at=refused.resets_at.isoformat(),
        )  # fmt: skip
    if isinstance(refused, quotas.EmailNotVerified):
        return ApiProblem(403, "email-not-verified", "E-mail address not verified", str(refused))
    if isinstance(refused, quotas.PhaseNotOpen):
        return ApiProblem(409, "phase-closed", "Not accepting submissions", str(refused))
    if isinstance(refused, quotas.NotRegistered):
        return ApiProblem(403, "not-registered", "Not registered", str(refused))
    if isinstance(refused, quotas.StorageUnavailable):
        return ApiProblem(
            503, "storage-unavailable", "File storage unavailable", str(refused), headers={"Retry-After": "60"}
        )
    if isinstance(refused, quotas.TeamLocked):
        return ApiProblem(409, "team-locked", "Another team on this phase", str(refused), team=refused.entry_team.slug)
    raise refused


def _check_phase_accepts(phase: Phase) -> None:
    if closed := quotas.window_refusal(phase):
        raise ApiProblem(409, "phase-closed", "Not accepting submissions", closed)
    if not phase.has_truth:
        raise ApiProblem(409, "phase-closed", "Not accepting submissions", "This phase has no test set loaded yet.")


def _field_problem(field: str, message: str, detail: str) -> ApiProblem:
    return ApiProblem(
        422, "invalid-request", "Invalid request", detail,
        errors=[{"line": None, "column": None, "field": field, "message": message}], error_count=1,
    )  # fmt: skip


def _chosen_team(request: Request, slug: str | None) -> Team:
    teams = Team.objects.for_user(request.user)
    team = teams.filter(slug=slug).first() if slug else teams.filter(personal=True).first()
    if team is None:
        raise _field_problem("team", f"You are not a member of a team {slug!r}.", "No such team of yours.")
    return team


def _unknown_fields(request: Request, phase: Phase) -> None:
    """Refuse fields the upload does not take (a misspelt declaration would otherwise be dropped silently)."""
    known = {f.name for f in submission_fields.FIELDS} | {"team", "file"}
    for declaration in phase.task.declarations:
        known |= {declaration.key, DECLARATION_PREFIX + declaration.key}
    unknown = sorted(set(request.data.keys()) - known)
    if unknown:
        declarations = ", ".join(d.key for d in phase.task.declarations) or "none"
        errors = [
            {"line": None, "column": None, "field": name,
             "message": f"Unknown field {name!r}; this task's declarations: {declarations}."}
            for name in unknown
        ]  # fmt: skip
        raise ApiProblem(
            422, "invalid-request", "Invalid request", "Some fields are unknown; nothing was submitted.",
            errors=errors, error_count=len(errors),
        )  # fmt: skip


def _create(request: Request, phase: Phase) -> Response:
    _check_phase_accepts(phase)
    _ = request.FILES  # parse the body first: the upload handler says whether it cut the file off
    if refused := upload_refused(request):
        raise ApiProblem(413, "file-too-large", "File too large", refused)
    if "file" not in request.FILES:
        detail = "Send the prediction file as the multipart field 'file'."
        raise _field_problem("file", "This field is required.", detail)
    _unknown_fields(request, phase)
    form = SubmissionForm(_form_data(request, phase), request.FILES, phase=phase, user=request.user)
    if not form.is_valid():
        raise _invalid(form)
    try:
        submission = intake.create_submission(
            phase=phase,
            team=form.cleaned_data["team"],
            user=request.user,
            upload=form.cleaned_data["file"],
            metadata=form.metadata(),
        )
    except quotas.SubmissionRefused as refusal:
        raise _refusal(refusal) from None
    submission = Submission.objects.select_related("phase__challenge", "team").get(pk=submission.pk)
    body = submission_dict(submission, request)
    return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["links"]["self"]})


def _preflight(request: Request, phase: Phase) -> Response:
    """Everything an upload is checked for except the file, answered before the file is sent."""
    _check_phase_accepts(phase)
    team = _chosen_team(request, request.query_params.get("team"))
    try:
        quotas.check_may_submit(request.user, team, phase)
        quota = quotas.quota_for(team, phase)
        if quota.exhausted:
            raise quotas.QuotaExceeded(quota)
    except quotas.SubmissionRefused as refused:
        raise _refusal(refused) from None
    return Response(
        {
            "accepts": True,
            "task": phase.task_slug,
            "challenge": phase.challenge.slug,
            "phase": phase.slug,
            "team": team.slug,
            "quota": quota_dict(team, quota),
            "max_bytes": settings.SUBMISSION_MAX_BYTES,
        }
    )


SUBMIT_SCHEMA = extend_schema(
    request={"multipart/form-data": schemas.SubmissionCreateSerializer},
    responses={202: schemas.SubmissionSerializer},
    tags=["submissions"],
)  # fmt: skip


@extend_schema(operation_id="task_submissions_create")
@SUBMIT_SCHEMA
@api_view(["POST"])
@permission_classes([SUBMIT])
@throttle_classes([TokenRateThrottle, UploadRateThrottle])
@parser_classes([MultiPartParser, FormParser])
@upload_slot
def task_submit(request: Request, slug: str) -> Response:
    """Upload a prediction file to a task: validated by `scoring` now, scored by a worker after 202."""
    return _create(request, views.standing_phase_or_404(slug))


@extend_schema(operation_id="phase_submissions_create")
@SUBMIT_SCHEMA
@api_view(["POST"])
@permission_classes([SUBMIT])
@throttle_classes([TokenRateThrottle, UploadRateThrottle])
@parser_classes([MultiPartParser, FormParser])
@upload_slot
def phase_submit(request: Request, challenge: str, phase: str) -> Response:
    # An unpublished challenge is 404 to all but its organizers (its refusals would name it).
    if not Challenge.objects.visible_to(request.user).filter(slug=challenge).exists():
        raise Http404("No such challenge.")
    return _create(request, views.phase_or_404(challenge, phase))


PREFLIGHT_SCHEMA = extend_schema(
    parameters=[OpenApiParameter("team", str, description="team slug (default: your personal team)")],
    responses={200: schemas.PreflightSerializer},
    tags=["submissions"],
    description=(
        "Would an upload be accepted, the file aside? Checks the token and its scope, the verified e-mail, the "
        "phase's dates, the registration and the team's quota, each with its own problem type; uses no quota."
    ),
)


@extend_schema(operation_id="task_submissions_preflight")
@PREFLIGHT_SCHEMA
@api_view(["GET"])
@permission_classes([SUBMIT])
def task_preflight(request: Request, slug: str) -> Response:
    return _preflight(request, views.standing_phase_or_404(slug))


@extend_schema(operation_id="phase_submissions_preflight")
@PREFLIGHT_SCHEMA
@api_view(["GET"])
@permission_classes([SUBMIT])
def phase_preflight(request: Request, challenge: str, phase: str) -> Response:
    if not Challenge.objects.visible_to(request.user).filter(slug=challenge).exists():
        raise Http404("No such challenge.")
    return _preflight(request, views.phase_or_404(challenge, phase))
