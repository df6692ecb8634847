"""``PUT /api/v1/challenges/<slug>/phases/<phase>/truth``: an organizer uploads a phase's hidden truth.

The same service as the manage page (``organize.services.replace_truth``): validated
by ``scoring`` exactly like a submission, stored privately with its sha256, the old
version kept, every submission of the phase re-scored by the worker. An invalid
file answers 422 with scoring's located ``errors``, as the submission endpoint does.
An optional ``groups`` part (a ``class,group`` file) gives an ImDrug task's class
groups: the truth is stored with a ``group`` column from it (422 ``invalid-groups``
with the mapping's located errors when it is refused).
"""

from __future__ import annotations

from django.db.models import Count
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import api_view, parser_classes, permission_classes, throttle_classes
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

import scoring
from leaderboard.api import schemas
from leaderboard.api.authentication import requires
from leaderboard.api.organizer import managed_phase_or_404
from leaderboard.api.problems import ApiProblem
from leaderboard.api.throttling import TokenRateThrottle, UploadRateThrottle, upload_slot
from leaderboard.challenges.models import Phase
from leaderboard.organize.forms import TruthForm
from leaderboard.organize.services import GroupMappingInvalid, replace_truth
from leaderboard.submissions.uploads import upload_refused

ORGANIZE = requires("organize")


def truth_body(phase: Phase, replaced) -> dict:
    versions = phase.truth_versions.select_related("uploaded_by").annotate(n_scores=Count("submissions"))
    return {
        "challenge": phase.challenge.slug,
        "phase": phase.slug,
        "sha256": replaced.sha256,
        "rows": replaced.n_rows,
        "changed": replaced.changed,
        "rescoring": replaced.rescoring,
        "warnings": list(replaced.warnings),
        "versions": [
            {
                "sha256": v.sha256,
                "rows": v.n_rows,
                "uploaded_by": v.uploaded_by.username if v.uploaded_by else None,
                "created_at": v.created_at.isoformat(),
                "scores": v.n_scores,
                "current": v.sha256 == phase.truth_sha256,
            }
            for v in versions
        ],
    }


@extend_schema(
    operation_id="phase_truth_update",
    request={"multipart/form-data": schemas.TruthUploadSerializer},
    responses={200: schemas.TruthSerializer},
    tags=["organizers"],
)
@api_view(["PUT"])
@permission_classes([ORGANIZE])
@throttle_classes([TokenRateThrottle, UploadRateThrottle])
@parser_classes([MultiPartParser, FormParser])
@upload_slot
def phase_truth(request: Request, challenge: str, phase: str) -> Response:
    """Upload (or replace) a phase's truth file; organizers of the challenge only (404 for anyone else)."""
    found = managed_phase_or_404(request, challenge, phase)
    _ = request.FILES  # parse the body first: the upload handler says whether it cut the file off
    if refused := upload_refused(request):
        raise ApiProblem(413, "file-too-large", "File too large", refused)
    form = TruthForm(request.data, request.FILES)
    if not form.is_valid():
        errors = [
            {"line": None, "column": None, "field": field, "message": m["message"]}
            for field, messages in form.errors.get_json_data().items()
            for m in messages
        ]
        raise ApiProblem(
            422, "invalid-request", "Invalid request", "Send the truth file as the multipart field 'file'.",
            errors=errors, error_count=len(errors),
        )  # fmt: skip
    try:
        replaced = replace_truth(found, form.cleaned_data["file"], request.user, groups=form.cleaned_data["groups"])
    except GroupMappingInvalid as invalid:
        problems = invalid.error.to_dict()
        total = invalid.error.total
        raise ApiProblem(
            422,
            "invalid-groups",
            "Invalid class groups",
            f"The class groups are not valid for this task: {total} problem{'s' if total != 1 else ''}. "
            "Nothing was stored; the current truth is unchanged.",
            errors=problems["errors"],
            error_count=problems["error_count"],
        ) from None
    except scoring.ScoringError as error:
        problems = error.to_dict()
        raise ApiProblem(
            422,
            "invalid-truth",
            "Invalid truth file",
            f"The truth file is not valid for this task: {error.total} problem{'s' if error.total != 1 else ''}. "
            "Nothing was stored; the current truth is unchanged.",
            errors=problems["errors"],
            error_count=problems["error_count"],
        ) from None
    found.refresh_from_db()
    return Response(truth_body(found, replaced))
