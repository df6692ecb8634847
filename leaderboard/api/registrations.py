"""Registering a team for an organized challenge through the API: ``/api/v1/challenges/<slug>/registration``.

The rules are the register page's: ``challenges.registration`` decides (verified
e-mail, membership, organizers excluded, one team per person, team size, terms,
e-mail domains, approval mode), ``challenges.access`` who may see the challenge
(404 for an unpublished one). A refusal is a 409 ``registration-refused`` problem
carrying the page's sentence.
"""

from __future__ import annotations

from typing import cast

from drf_spectacular.utils import extend_schema
from rest_framework import serializers as s
from rest_framework.decorators import api_view, parser_classes, permission_classes
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from leaderboard.accounts.models import Team, User
from leaderboard.api.authentication import requires
from leaderboard.api.problems import ApiProblem
from leaderboard.challenges import registration as service
from leaderboard.challenges.access import get_challenge_for
from leaderboard.challenges.models import Challenge, Registration
from leaderboard.links import absolute_reverse

READ = requires("read")
SUBMIT = requires("submit")


class RegisterTeamRequest(s.Serializer):
    team = s.CharField(required=False, help_text="team slug (default: your personal team)")
    accept_terms = s.BooleanField(default=False, help_text="required when the challenge has terms")
    wants_announcements = s.BooleanField(default=True, help_text="e-mail me the organizers' announcements")


class RegistrationStatusResponse(s.Serializer):
    challenge = s.CharField()
    registration_mode = s.ChoiceField(choices=Challenge.Registration.values)
    has_terms = s.BooleanField()
    terms_url = s.URLField(help_text="the register page, where the terms are shown")
    registered = s.BooleanField(help_text="whether one of your teams holds a registration")
    team = s.CharField(allow_null=True)
    status = s.ChoiceField(choices=Registration.Status.values, allow_null=True)
    reason = s.CharField(allow_blank=True, allow_null=True, help_text="the organizers' reason (rejected, disqualified)")
    can_withdraw = s.BooleanField()
    detail = s.CharField()


def _refused(refused: service.RegistrationRefused) -> ApiProblem:
    return ApiProblem(409, "registration-refused", "Registration refused", str(refused))


def _body(challenge: Challenge, registration: Registration | None, detail: str) -> dict:
    return {
        "challenge": challenge.slug,
        "registration_mode": challenge.registration_mode,
        "has_terms": bool(challenge.terms),
        "terms_url": absolute_reverse("challenges:register", challenge.slug),
        "registered": registration is not None,
        "team": registration.team.slug if registration else None,
        "status": registration.status if registration else None,
        "reason": registration.reason if registration else None,
        "can_withdraw": registration is not None
        and registration.status in (Registration.Status.PENDING, Registration.Status.APPROVED)
        and not service.has_submitted(registration),
        "detail": detail,
    }


def _describe(registration: Registration | None) -> str:
    if registration is None:
        return "None of your teams is registered for this challenge."
    status = registration.get_status_display().lower()
    return f"The team {registration.team.name} is registered ({status})."


@extend_schema(
    methods=["GET"],
    operation_id="challenge_registration",
    responses={200: RegistrationStatusResponse},
    tags=["challenges"],
    description="Whether (and how) one of your teams is registered.",
)
@extend_schema(
    methods=["POST"],
    operation_id="challenge_register",
    request=RegisterTeamRequest,
    responses={201: RegistrationStatusResponse},
    tags=["challenges"],
    description="Register a team, with the register page's rules (approved at once, or pending in approval mode).",
)
@extend_schema(
    methods=["DELETE"],
    operation_id="challenge_withdraw",
    responses={200: RegistrationStatusResponse},
    tags=["challenges"],
    description="Withdraw your team's registration (before its first submission).",
)
@api_view(["GET", "POST", "DELETE"])
@permission_classes([READ])
@parser_classes([JSONParser, FormParser, MultiPartParser])
def registration(request: Request, challenge: str) -> Response:
    challenge_row = get_challenge_for(request.user, challenge).challenge
    user = cast(User, request.user)
    current = service.registration_of_user(challenge_row, user)
    if request.method == "GET":
        return Response(_body(challenge_row, current, _describe(current)))
    SUBMIT().has_permission(request, None)
    if request.method == "DELETE":
        if current is None:
            raise _refused(service.RegistrationRefused("None of your teams is registered for this challenge."))
        try:
            service.withdraw(current, user)
        except service.RegistrationRefused as refused:
            raise _refused(refused) from None
        return Response(_body(challenge_row, None, f"The registration of {current.team.name} is withdrawn."))
    serializer = RegisterTeamRequest(data=request.data)
    serializer.is_valid(raise_exception=True)
    wanted = serializer.validated_data
    teams = Team.objects.for_user(user)
    team = teams.filter(slug=wanted["team"]).first() if wanted.get("team") else teams.filter(personal=True).first()
    if team is None:
        raise ApiProblem(
            422, "invalid-request", "Invalid request", "No such team of yours.",
            errors=[{"line": None, "column": None, "field": "team", "message": "You are not a member of this team."}],
        )  # fmt: skip
    # A rejected registration holds nobody (as on the page): its members may register another team.
    if current is not None and current.status != Registration.Status.REJECTED:
        raise _refused(service.RegistrationRefused(_describe(current)))
    try:
        created = service.register(
            challenge_row,
            team,
            user,
            accept_terms=wanted["accept_terms"],
            wants_announcements=wanted["wants_announcements"],
        )
    except service.RegistrationRefused as refused:
        raise _refused(refused) from None
    if created.status == Registration.Status.PENDING:
        detail = f"{created.team.name} is registered and waiting for the organizers' approval."
    else:
        detail = f"{created.team.name} is registered: you can submit to the open phases."
    return Response(_body(challenge_row, created, detail), status=201)
