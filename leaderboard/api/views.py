"""The JSON API under /api/v1/ (docs/api.md; the schema at /api/v1/schema/).

Function views on Django REST framework. Access goes through the site's own
helpers (``leaderboard.submissions.access``, ``Team.objects.for_user``). Uploads
and their pre-flight are in ``leaderboard.api.submitting``.
"""

from __future__ import annotations

import hashlib
import math

from django.db.models import Prefetch
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.decorators import (
    api_view,
    parser_classes,
    permission_classes,
    renderer_classes,
)
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

import scoring
from leaderboard.accounts.models import Team
from leaderboard.api import schemas
from leaderboard.api.authentication import requires
from leaderboard.api.presenters import challenge_dict, phase_dict, submission_dict, submission_summary, task_dict
from leaderboard.api.problems import TYPES, ApiProblem, problem_response
from leaderboard.boards import exports, published
from leaderboard.boards.models import Board
from leaderboard.boards.query import parse_controls, ranked_page, row_count, select_rows, team_ids_for
from leaderboard.boards.spec import direction_spec, directions_for
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.submissions import access, edits
from leaderboard.submissions.models import Submission
from scoring.registry import unknown_task_message


class FileRenderer(BaseRenderer):
    """Lets a file endpoint answer ``Accept: application/octet-stream`` (its errors are still JSON problems)."""

    media_type = "application/octet-stream"
    format = "file"
    charset = None
    render_style = "binary"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        # Only errors are rendered here (the file itself is a FileResponse): the problem document, as JSON.
        return JSONRenderer().render(data)


READ = requires("read", anonymous=True)
READ_TOKEN = requires("read")
SUBMIT = requires("submit")
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
MAX_PAGE = 10**6
PAGE_PARAMETERS = [
    OpenApiParameter("page", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE}, description="from 1"),
    OpenApiParameter(
        "page_size",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
        description=f"rows per page, at most {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE})",
    ),
]


def task_or_404(slug: str):
    try:
        return scoring.get_task(slug)
    except KeyError:
        raise Http404(unknown_task_message(slug)) from None


def standing_phase_or_404(slug: str) -> Phase:
    task_or_404(slug)
    phase = Phase.objects.standing().select_related("challenge").filter(task_slug=slug).first()
    if phase is None:
        raise Http404(f"Task {slug!r} has no leaderboard yet.")
    return phase


def phase_or_404(challenge: str, phase: str) -> Phase:
    # Unpublished challenges stay unknown to the API (as on the site): a 404, never their phases.
    phases = Phase.objects.select_related("challenge").filter(challenge__slug=challenge, challenge__is_published=True)
    found = phases.filter(slug=phase).first()
    if found is None:
        slugs = sorted(phases.values_list("slug", flat=True))
        if not slugs:
            raise Http404(f"No challenge {challenge!r}.")
        raise Http404(f"No phase {phase!r} in {challenge!r}; its phases: {', '.join(slugs)}.")
    return found


def _teams(request: Request):
    """The caller's teams (None without a token: no quota to show)."""
    if not request.user.is_authenticated:
        return None
    return list(Team.objects.for_user(request.user).order_by("-personal", "name"))


def _query_problem(name: str, message: str) -> ApiProblem:
    """422 for a query parameter the schema does not allow (a wrong value is refused, never ignored)."""
    return ApiProblem(
        422, "invalid-request", "Invalid request", f"The query parameter {name!r} is invalid: {message}",
        errors=[{"line": None, "column": None, "field": name, "message": message}], error_count=1,
    )  # fmt: skip


def _choice_param(request: Request, name: str, choices) -> str | None:
    value = request.query_params.get(name)
    if value is not None and value not in choices:
        raise _query_problem(name, f"{value!r} is not one of {', '.join(choices)}.")
    return value


def _page_params(request: Request) -> tuple[int, int]:
    def number(name: str, default: int, high: int) -> int:
        raw = request.query_params.get(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise _query_problem(name, f"{raw!r} is not a whole number.") from None
        if not 1 <= value <= high:
            raise _query_problem(name, f"{value} is not between 1 and {high}.")
        return value

    return number("page", 1, MAX_PAGE), number("page_size", DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def _page_links(request: Request, page: int, page_size: int, count: int) -> dict:
    n_pages = max(1, math.ceil(count / page_size))

    def link(n: int) -> str:
        params = request.query_params.copy()
        params["page"] = str(n)
        return request.build_absolute_uri(f"{request.path}?{params.urlencode()}")

    return {
        "count": count,
        "page": page,
        "page_size": page_size,
        "pages": n_pages,
        "next": link(page + 1) if page < n_pages else None,
        "previous": link(page - 1) if page > 1 else None,
    }


# --- tasks and challenges ---------------------------------------------------------------


@extend_schema(operation_id="tasks_list", responses=schemas.TaskSerializer(many=True), tags=["tasks"])
@api_view(["GET"])
@permission_classes([READ])
def tasks(request: Request) -> Response:
    """Every benchmark task: format, classes, metrics with direction, seeds, citation, downloads."""
    return Response([task_dict(t, request) for t in scoring.TASKS.values()])


@extend_schema(operation_id="tasks_retrieve", responses=schemas.TaskSerializer, tags=["tasks"])
@api_view(["GET"])
@permission_classes([READ])
def task_detail(request: Request, slug: str) -> Response:
    return Response(task_dict(task_or_404(slug), request))


def _challenges():
    return Challenge.objects.published().prefetch_related(
        Prefetch("phases", queryset=Phase.objects.select_related("challenge").order_by("slug"))
    )


@extend_schema(operation_id="challenges_list", responses=schemas.ChallengeSerializer(many=True), tags=["challenges"])
@api_view(["GET"])
@permission_classes([READ])
def challenges(request: Request) -> Response:
    """Challenges and their phases: dates, limits and (with a token) each of your teams' remaining quota."""
    teams = _teams(request)
    return Response([challenge_dict(c, request, teams) for c in _challenges()])


@extend_schema(operation_id="challenges_retrieve", responses=schemas.ChallengeSerializer, tags=["challenges"])
@api_view(["GET"])
@permission_classes([READ])
def challenge_detail(request: Request, slug: str) -> Response:
    challenge = get_object_or_404(_challenges(), slug=slug)
    return Response(challenge_dict(challenge, request, _teams(request)))


@extend_schema(operation_id="phases_retrieve", responses=schemas.PhaseSerializer, tags=["challenges"])
@api_view(["GET"])
@permission_classes([READ])
def phase_detail(request: Request, challenge: str, phase: str) -> Response:
    return Response(phase_dict(phase_or_404(challenge, phase), request, _teams(request)))


# --- leaderboards -----------------------------------------------------------------------------

# Every board view a task has (MUDI's two settings), from the kinds: a value outside them is a 422.
DIRECTIONS = tuple(dict.fromkeys(d for task in scoring.TASKS.values() for d in directions_for(task)))
BOARD_PARAMETERS = [
    OpenApiParameter("direction", str, enum=list(DIRECTIONS), description="MUDI only: aware (default) or agnostic"),
    OpenApiParameter("sort", str, description="a metric key, team, method or date; '-' first reverses"),
    OpenApiParameter("private", str, description="1: add your teams' private rows (needs a token)"),
    *PAGE_PARAMETERS,
]


def _etag(phase_id: int, board: tuple | None, controls, page: int, page_size: int, team_ids: list) -> str:
    """The ETag of one board page: the board's version changes whenever a row does, so no row is read."""
    tag_source = repr((phase_id, board, controls.cache_parts()[:-1], page, page_size, team_ids))
    return '"' + hashlib.sha256(f"{tag_source}|{scoring.__version__}".encode()).hexdigest()[:32] + '"'


def _not_modified(request: Request, etag: str, cache_control: str) -> HttpResponse | None:
    """A bare 304 if the caller already holds ``etag``, else None."""
    if etag not in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
        return None
    response = HttpResponse(status=304)
    response["ETag"] = etag
    response["Cache-Control"] = cache_control
    return response


def _standing_not_modified(request: Request, slug: str) -> HttpResponse | None:
    """The 304 of a standing board answered from its Board row alone (one query), or None to build the page.

    Revalidation is most of a polling client's traffic: it needs the board's
    version, not the phase, the rows or the page. Only for the public view
    (private rows need the caller's teams) and only when a board exists.
    """
    if "If-None-Match" not in request.headers:
        return None
    task = task_or_404(slug)
    _choice_param(request, "direction", DIRECTIONS)
    controls = parse_controls(task, request.query_params, logged_in=request.user.is_authenticated)
    if controls.private:
        return None
    spec = direction_spec(task, controls.direction)
    page, page_size = _page_params(request)
    found = (
        Board.objects.filter(phase__in=Phase.objects.standing().filter(task_slug=slug), direction=spec.key)
        .values_list("phase_id", "pk", "version")
        .first()
    )
    if found is None:
        return None
    phase_id, board_id, version = found
    return _not_modified(
        request, _etag(phase_id, (board_id, str(version)), controls, page, page_size, []), "public, no-cache"
    )


def _board(request: Request, phase: Phase) -> Response | HttpResponse:
    """One page of a board view: the CSV export's columns and ranks, with an ETag."""
    task = phase.task
    _choice_param(request, "direction", DIRECTIONS)
    controls = parse_controls(task, request.query_params, logged_in=request.user.is_authenticated)
    spec = direction_spec(task, controls.direction)
    page, page_size = _page_params(request)
    if phase.public_board_hidden_for(phase.challenge.is_organizer(request.user)):
        raise Http404("The public board of this phase is hidden until the reveal.")
    board = (
        Board.objects.public()
        .filter(phase=phase, direction=spec.key)
        .only("id", "version", "n_rows", "computed_at")
        .first()
    )
    team_ids = team_ids_for(request.user) if controls.private else []
    etag = _etag(phase.pk, (board.pk, str(board.version)) if board else None, controls, page, page_size, team_ids)
    cache_control = "private, no-cache" if controls.private else "public, no-cache"
    if (not_modified := _not_modified(request, etag, cache_control)) is not None:
        return not_modified
    rows, count = [], 0
    if board is not None:
        selected = select_rows(board, spec, controls, team_ids)
        count = row_count(board, controls, selected)
        rows = ranked_page(board, controls, team_ids, (page - 1) * page_size, page_size)
        if phase.has_published_results and published.shown(controls):
            # As in the CSV: published results where they would rank, unranked ("reported in <paper>").
            last_page = page * page_size >= count
            rows = published.insert_on_page(
                spec, rows, selected, (page - 1) * page_size, page_size, last_page,
                lambda spec, entry: {"published_entry": entry},
            )  # fmt: skip
    metric_keys = exports.metric_columns(spec)
    body = {
        "task": task.slug,
        "challenge": phase.challenge.slug,
        "phase": phase.slug,
        "view": spec.key,
        "view_label": spec.label,
        "sort": controls.sort_param(controls.sort, controls.reverse) or "rank",
        "private_rows": controls.private,
        "filters": {param: list(values) for param, values in controls.filters},
        "metric": spec.metric,
        "higher_is_better": spec.higher_is_better,
        "scoring_version": scoring.__version__,
        "board_computed_at": board.computed_at.isoformat() if board else None,
        "columns": exports.header(spec)[:-1],
        **_page_links(request, page, page_size, count),
        "rows": [exports.export_data(spec, row, controls.sort, metric_keys) for row in rows],
    }
    response = Response(body)
    response["ETag"] = etag
    response["Cache-Control"] = cache_control
    return response


@extend_schema(
    operation_id="task_leaderboard",
    parameters=BOARD_PARAMETERS,
    responses={200: schemas.LeaderboardSerializer, 304: None},
    tags=["leaderboards"],
)
@api_view(["GET"])
@permission_classes([READ])
def task_leaderboard(request: Request, slug: str):
    """A task's standing board with the page's view options; same columns and ranks as the CSV export."""
    return _standing_not_modified(request, slug) or _board(request, standing_phase_or_404(slug))


@extend_schema(
    operation_id="phase_leaderboard",
    parameters=BOARD_PARAMETERS,
    responses={200: schemas.LeaderboardSerializer, 304: None},
    tags=["leaderboards"],
)
@api_view(["GET"])
@permission_classes([READ])
def phase_leaderboard(request: Request, challenge: str, phase: str):
    return _board(request, phase_or_404(challenge, phase))


# --- submissions --------------------------------------------------------------------------------


@extend_schema(
    operation_id="submissions_list",
    parameters=[
        OpenApiParameter("task", str),
        OpenApiParameter("challenge", str, description="challenge slug"),
        OpenApiParameter("phase", str, description="phase slug (with challenge)"),
        OpenApiParameter("status", str, enum=list(Submission.Status.values)),
        OpenApiParameter("team", str, description="team slug"),
        *PAGE_PARAMETERS,
    ],
    responses=schemas.SubmissionPageSerializer,
    tags=["submissions"],
)
@api_view(["GET"])
@permission_classes([READ_TOKEN])
def my_submissions(request: Request) -> Response:
    """Your teams' submissions, newest first."""
    rows = (
        Submission.objects.filter(team__in=Team.objects.for_user(request.user))
        .select_related("phase__challenge", "team")
        .order_by("-created_at")
    )
    params = request.query_params
    _choice_param(request, "status", Submission.Status.values)
    if params.get("task"):
        rows = rows.for_task(params["task"])
    if params.get("challenge"):
        rows = rows.filter(phase__challenge__slug=params["challenge"])
    if params.get("phase"):
        rows = rows.filter(phase__slug=params["phase"])
    if params.get("status"):
        rows = rows.filter(status=params["status"])
    if params.get("team"):
        rows = rows.filter(team__slug=params["team"])
    page, page_size = _page_params(request)
    count = rows.count()
    chosen = rows[(page - 1) * page_size : page * page_size]
    return Response(
        {**_page_links(request, page, page_size, count), "results": [submission_summary(s, request) for s in chosen]}
    )


@extend_schema(
    methods=["GET"], operation_id="submissions_retrieve", responses=schemas.SubmissionSerializer, tags=["submissions"]
)
@extend_schema(
    methods=["PATCH"],
    operation_id="submissions_visibility",
    request=schemas.VisibilitySerializer,
    responses=schemas.SubmissionSerializer,
    tags=["submissions"],
    description="Make your team's submission public or private (needs the submit scope).",
)
@api_view(["GET", "PATCH"])
@permission_classes([READ])
@parser_classes([JSONParser, FormParser, MultiPartParser])
def submission_detail(request: Request, submission_id) -> Response:
    """Status, error and metrics of a submission (public ones, or your team's)."""
    if request.method == "PATCH":
        SUBMIT().has_permission(request, None)
        submission = access.get_submission_for(request.user, submission_id, access.TEAM)
        serializer = schemas.VisibilitySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if "visibility" in serializer.validated_data:
            edits.set_visibility(submission, serializer.validated_data["visibility"] == "public")
    else:
        submission = access.get_submission_for(request.user, submission_id)
    return Response(submission_dict(submission, request))


@extend_schema(
    operation_id="submissions_file",
    responses={
        (200, "application/octet-stream"): OpenApiResponse(
            OpenApiTypes.BINARY, description="the uploaded file, byte for byte; its sha256 is the ETag"
        )
    },
    tags=["submissions"],
)
@api_view(["GET"])
@permission_classes([READ_TOKEN])
@renderer_classes([JSONRenderer, FileRenderer])
def submission_file(request: Request, submission_id) -> FileResponse:
    """Your team's uploaded file, streamed as sent (the team, staff and the challenge's organizers only)."""
    submission = access.get_submission_for(request.user, submission_id, access.FILE)
    response = FileResponse(
        submission.file.open("rb"),
        as_attachment=True,
        filename=submission.file_name,
        content_type="application/octet-stream",
    )
    if submission.sha256:
        response["ETag"] = f'"{submission.sha256}"'
    return response


def problem_type(request, kind: str):
    """What a problem ``type`` URI answers: its status, title and meaning."""
    if kind not in TYPES:
        return not_found(request)
    status_code, title, description = TYPES[kind]
    return JsonResponse({"type": request.path, "status": status_code, "title": title, "description": description})


@csrf_exempt  # a POST to an unknown API path is a 404 problem too, not the CSRF page
def not_found(request, *args, **kwargs):
    """Any other path under /api/v1/: a problem document, not the site's HTML 404."""
    return problem_response(404, "not-found", "Not found", f"No API endpoint at {request.path}.")
