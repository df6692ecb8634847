"""Final selection and the reveal through the API: ``POST /submissions/<id>/final`` and ``.../phases/<p>/reveal``.

The rules are the site's: ``submissions.access`` decides who may touch a
submission (404 for others' private ones, 403 for a visible one of another
team), ``organize.access`` who organizes a challenge (404 for everyone else);
the work is ``submissions.finals.set_final`` and ``boards.reveal.reveal_now``,
the functions behind the page buttons. A refusal is a 409 problem with the
page's sentence.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers as s
from rest_framework.decorators import api_view, parser_classes, permission_classes
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from leaderboard.api.authentication import requires
from leaderboard.api.organizer import managed_phase_or_404
from leaderboard.api.problems import ApiProblem
from leaderboard.boards.reveal import RevealRefused, reveal_now
from leaderboard.links import absolute_reverse
from leaderboard.submissions import access, finals

SUBMIT = requires("submit")
ORGANIZE = requires("organize")
PARSERS = [JSONParser, FormParser, MultiPartParser]


class FinalRequest(s.Serializer):
    selected = s.BooleanField(help_text="true: one of the team's final submissions; false: not any more")


class FinalResponse(s.Serializer):
    id = s.UUIDField()
    selected_final = s.BooleanField()
    selected_count = s.IntegerField(help_text="the team's selected final submissions on the phase, this one included")
    final_selection_count = s.IntegerField(help_text="how many a team may select (N)")
    deadline = s.DateTimeField(allow_null=True)
    rule = s.CharField(help_text="Kaggle's rule: a team that selects none gets its N best by public score")
    detail = s.CharField()


class RevealResponse(s.Serializer):
    challenge = s.CharField()
    phase = s.CharField()
    revealed_at = s.DateTimeField()
    ends_at = s.DateTimeField(allow_null=True)
    final_submissions = s.IntegerField()
    teams = s.IntegerField()
    private_board = s.URLField(allow_null=True, help_text="the private board's page (phases with a private part)")
    detail = s.CharField()


@extend_schema(
    operation_id="submission_final",
    request=FinalRequest,
    responses={200: FinalResponse},
    tags=["submissions"],
    description=(
        "Select or unselect your team's submission as final (scope submit), where the phase lets teams choose, "
        "until it ends. Refusals (deadline passed, not scored, more than N) are 409 problems."
    ),
)
@api_view(["POST"])
@permission_classes([SUBMIT])
@parser_classes(PARSERS)
def final(request: Request, submission_id) -> Response:
    submission = access.get_submission_for(request.user, submission_id, access.TEAM)
    data = FinalRequest(data=request.data)
    data.is_valid(raise_exception=True)
    selected = data.validated_data["selected"]
    try:
        finals.set_final(submission, selected, request.user)
    except finals.FinalRefused as refused:
        raise ApiProblem(409, "action-refused", "Action refused", str(refused)) from None
    phase = submission.phase
    count = len(finals.selected_for(submission.team, phase))
    return Response(
        {
            "id": str(submission.pk),
            "selected_final": submission.selected_final,
            "selected_count": count,
            "final_selection_count": phase.final_selection_count,
            "deadline": finals.deadline(phase),
            "rule": finals.kaggle_rule(phase),
            "detail": "Selected as final." if selected else "No longer a final submission.",
        }
    )


@extend_schema(
    operation_id="phase_reveal",
    request=None,
    responses={200: RevealResponse},
    tags=["organizers"],
    description=(
        "Reveal a phase now (scope organize, organizers only): closes submissions, resolves final selections "
        "and publishes the private board. A phase already revealed is a 409 problem; nothing changes."
    ),
)
@api_view(["POST"])
@permission_classes([ORGANIZE])
@parser_classes(PARSERS)
def reveal(request: Request, challenge: str, phase: str) -> Response:
    found = managed_phase_or_404(request, challenge, phase)
    try:
        outcome = reveal_now(found, request.user)
    except RevealRefused as refused:
        raise ApiProblem(409, "action-refused", "Action refused", str(refused)) from None
    revealed = outcome.phase
    private = (
        absolute_reverse("boards:phase_private", challenge, revealed.slug) if revealed.split_spec is not None else None
    )
    return Response(
        {
            "challenge": challenge,
            "phase": revealed.slug,
            "revealed_at": revealed.revealed_at,
            "ends_at": revealed.ends_at,
            "final_submissions": outcome.n_final,
            "teams": outcome.n_teams,
            "private_board": private,
            "detail": f"{revealed.title} is revealed: submissions are closed and the private board is public.",
        }
    )
