"""Organizer endpoints for moderation: re-run, moderate a submission, decide on a team, export every score.

Scope ``organize``; access through the pages' own check (``get_managed_challenge``,
via ``leaderboard.api.organizer`` and ``moderation.get_managed_submission``): 404 for
anyone who does not organize the challenge. The work is done by the services of
``leaderboard.organize.moderation``, the same ones the manage pages call; a refusal
is a 409 problem (the action does not fit the current state) or a 422 (a missing reason).
"""

from __future__ import annotations

from typing import cast

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import renderers, status
from rest_framework import serializers as s
from rest_framework.decorators import api_view, parser_classes, permission_classes, renderer_classes
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from leaderboard.accounts.models import User
from leaderboard.api.authentication import requires
from leaderboard.api.organizer import managed_challenge_or_404
from leaderboard.api.problems import ApiProblem
from leaderboard.challenges.models import Registration
from leaderboard.organize import moderation
from leaderboard.organize.moderation_views import scores_csv_response, submissions_zip_response
from leaderboard.submissions.models import Submission

ORGANIZE = requires("organize")
PARSERS = [JSONParser, FormParser, MultiPartParser]


# --- bodies ----------------------------------------------------------------------------------------


class RerunRequest(s.Serializer):
    phase = s.CharField(required=False, help_text="phase slug: re-run its failed or all submissions")
    which = s.ChoiceField(choices=list(moderation.RERUN_WHICH), required=False, help_text="with phase; default failed")
    submission = s.UUIDField(required=False, help_text="re-run this one submission instead")
    reason = s.CharField(required=False, allow_blank=True, max_length=moderation.MAX_REASON)

    def validate(self, attrs: dict) -> dict:
        if bool(attrs.get("phase")) == bool(attrs.get("submission")):
            raise s.ValidationError("Give either 'phase' (with 'which': failed or all) or 'submission'.")
        return attrs


class RerunResponse(s.Serializer):
    queued = s.IntegerField(help_text="submissions sent back to the queue (a phase's are queued by a worker)")
    detail = s.CharField()


class ModerationRequest(s.Serializer):
    action = s.ChoiceField(choices=list(moderation.SUBMISSION_ACTIONS))
    reason = s.CharField(required=False, allow_blank=True, max_length=moderation.MAX_REASON,
                         help_text="required to hide; the team sees it")  # fmt: skip
    note = s.CharField(required=False, allow_blank=True, max_length=300, help_text="verify: how it was reproduced")
    url = s.URLField(required=False, allow_blank=True, help_text="verify: a link to the reproduction")


class ModerationResponse(s.Serializer):
    id = s.UUIDField()
    status = s.ChoiceField(choices=list(Submission.Status.values))
    is_hidden = s.BooleanField()
    hidden_reason = s.CharField(allow_blank=True)
    is_baseline = s.BooleanField()
    is_verified = s.BooleanField()
    verification_note = s.CharField(allow_blank=True)
    verification_url = s.CharField(allow_blank=True)
    detail = s.CharField()


class DecisionRequest(s.Serializer):
    reason = s.CharField(required=False, allow_blank=True, max_length=moderation.MAX_REASON,
                         help_text="required to reject or disqualify; the team sees it")  # fmt: skip


class RegistrationResponse(s.Serializer):
    challenge = s.CharField()
    team = s.CharField()
    team_name = s.CharField()
    status = s.ChoiceField(choices=list(Registration.Status.values))
    reason = s.CharField(allow_blank=True)
    decided_at = s.DateTimeField(allow_null=True)
    detail = s.CharField()


class CSVRenderer(renderers.BaseRenderer):
    """Lets a client ask for ``text/csv``; the export view answers with its own streamed response."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return renderers.JSONRenderer().render(data) if isinstance(data, dict) else data


# --- helpers ------------------------------------------------------------------------------------------


def _valid(serializer_class, request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _refused(error: moderation.ModerationError) -> ApiProblem:
    if error.field:
        return ApiProblem(
            422, "invalid-request", "Invalid request", str(error),
            errors=[{"line": None, "column": None, "field": error.field, "message": str(error)}],
        )  # fmt: skip
    return ApiProblem(409, "action-refused", "Action refused", str(error))


def _user(request: Request) -> User:
    return cast(User, request.user)  # ORGANIZE: a token's user


def _moderation_body(submission: Submission, detail: str) -> dict:
    submission.refresh_from_db()
    return {
        "id": str(submission.pk),
        "status": submission.status,
        "is_hidden": submission.is_hidden,
        "hidden_reason": submission.hidden_reason,
        "is_baseline": submission.is_baseline,
        "is_verified": submission.is_verified,
        "verification_note": submission.verification_note,
        "verification_url": submission.verification_url,
        "detail": detail,
    }


# --- endpoints ----------------------------------------------------------------------------------------


@extend_schema(
    operation_id="challenge_rerun",
    request=RerunRequest,
    responses={202: RerunResponse},
    tags=["organizers"],
    description="Re-run one submission, or a phase's failed (or all) submissions. Scope organize; organizers only.",
)
@api_view(["POST"])
@permission_classes([ORGANIZE])
@parser_classes(PARSERS)
def rerun(request: Request, challenge: str) -> Response:
    managed = managed_challenge_or_404(request, challenge)
    data = _valid(RerunRequest, request)
    try:
        if data.get("submission"):
            submission, found_in = moderation.get_managed_submission(request.user, data["submission"])
            if found_in.pk != managed.pk:
                raise ApiProblem(404, "not-found", "Not found", "No such submission in this challenge.")
            outcome = moderation.moderate_submission(submission, "rerun", _user(request), reason=data.get("reason", ""))
        else:
            phase = managed.phases.filter(slug=data["phase"]).first()
            if phase is None:
                raise ApiProblem(404, "not-found", "Not found", f"No phase {data['phase']!r} in this challenge.")
            outcome = moderation.rerun_phase(
                phase, data.get("which") or "failed", _user(request), reason=data.get("reason", "")
            )
    except moderation.ModerationError as refused:
        raise _refused(refused) from None
    return Response({"queued": outcome.queued, "detail": outcome.message}, status=status.HTTP_202_ACCEPTED)


@extend_schema(
    operation_id="submission_moderation",
    request=ModerationRequest,
    responses={200: ModerationResponse},
    tags=["organizers"],
    description="Hide or show a submission, mark it as a baseline or verified, or re-run it. Scope organize.",
)
@api_view(["POST"])
@permission_classes([ORGANIZE])
@parser_classes(PARSERS)
def moderate(request: Request, submission_id) -> Response:
    submission, _ = moderation.get_managed_submission(request.user, submission_id)
    data = _valid(ModerationRequest, request)
    try:
        outcome = moderation.moderate_submission(
            submission, data["action"], _user(request), reason=data.get("reason", ""), note=data.get("note", ""),
            url=data.get("url", ""),
        )  # fmt: skip
    except moderation.ModerationError as refused:
        raise _refused(refused) from None
    return Response(_moderation_body(submission, outcome.message))


@extend_schema(
    operation_id="team_decision",
    request=DecisionRequest,
    responses={200: RegistrationResponse},
    tags=["organizers"],
    description="Approve, reject, disqualify or reinstate a registered team (e-mailed to its members). Scope organize.",
)
@api_view(["POST"])
@permission_classes([ORGANIZE])
@parser_classes(PARSERS)
def decide(request: Request, challenge: str, team: str, decision: str) -> Response:
    found = managed_challenge_or_404(request, challenge)
    if decision not in moderation.DECISIONS:
        raise ApiProblem(
            404, "not-found", "Not found", f"No decision {decision!r}; use {', '.join(moderation.DECISIONS)}."
        )
    registration = moderation.registration_for(found, team)
    data = _valid(DecisionRequest, request)
    try:
        outcome = moderation.decide(registration, decision, _user(request), reason=data.get("reason", ""))
    except moderation.ModerationError as refused:
        raise _refused(refused) from None
    return Response(
        {
            "challenge": found.slug,
            "team": registration.team.slug,
            "team_name": registration.team.name,
            "status": registration.status,
            "reason": registration.reason,
            "decided_at": registration.decided_at.isoformat() if registration.decided_at else None,
            "detail": outcome.message,
        }
    )


@extend_schema(
    operation_id="challenge_export_scores",
    responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="every submission, streamed")},
    tags=["organizers"],
    description="Every submission of the challenge with its public, private and all-row scores. Scope organize.",
)
@api_view(["GET"])
@permission_classes([ORGANIZE])
@renderer_classes([renderers.JSONRenderer, CSVRenderer])
def export_csv(request: Request, challenge: str):
    return scores_csv_response(managed_challenge_or_404(request, challenge))


class ZipRenderer(renderers.BaseRenderer):
    """Lets a client ask for ``application/zip``; the view answers with its own streamed response."""

    media_type = "application/zip"
    format = "zip"
    charset = None

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return renderers.JSONRenderer().render(data) if isinstance(data, dict) else data


@extend_schema(
    operation_id="challenge_download_submissions",
    responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description="streamed .zip")},
    tags=["organizers"],
    description="Every participant file of the challenge and scores.csv, as one streamed .zip. Scope organize.",
)
@api_view(["GET"])
@permission_classes([ORGANIZE])
@renderer_classes([renderers.JSONRenderer, ZipRenderer])
def download_submissions(request: Request, challenge: str):
    return submissions_zip_response(managed_challenge_or_404(request, challenge), request.user)
