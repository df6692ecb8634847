"""One error format for the whole API: RFC 9457 problem details (``application/problem+json``).

Every error body has ``type``, ``title``, ``status`` and ``detail``; an error
made of several problems adds ``errors`` (the list ``python -m scoring score
--json`` prints: ``{"line", "column", "message"}``, plus ``field`` for form
fields). The ``type`` values are documented in docs/api.md.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.urls import reverse
from rest_framework import exceptions, status

CONTENT_TYPE = "application/problem+json"

# Every problem type: its status and title. ``type`` URIs point at /api/v1/problems/<kind>, which explains it.
TYPES = {
    "token-required": (401, "Authentication required", "No token where one is needed."),
    "invalid-token": (401, "Invalid token", "An unknown or malformed token."),
    "token-revoked": (401, "Token revoked", "The token was revoked on its owner's profile page."),
    "token-expired": (401, "Token expired", "The token's expiry date has passed."),
    "insufficient-scope": (403, "Insufficient scope", "The token's scope does not allow this."),
    "forbidden": (403, "Forbidden", "You may see this object but not do this with it."),
    "not-found": (404, "Not found", "No such object, or one you may not see."),
    "method-not-allowed": (405, "Method not allowed", "This endpoint does not take this HTTP method."),
    "not-acceptable": (406, "Not acceptable", "The API answers JSON only."),
    "unsupported-media-type": (415, "Unsupported media type", "Send this body in another format."),
    "not-registered": (
        403,
        "Not registered",
        "An organized phase takes submissions from teams with an approved registration only.",
    ),
    "registration-refused": (
        409,
        "Registration refused",
        "The challenge's registration rules refuse this (the detail says which), or there is nothing to withdraw.",
    ),
    "phase-closed": (409, "Not accepting submissions", "The phase is not open or has no test set yet."),
    "malformed-request": (400, "Malformed request", "The request body could not be parsed."),
    "invalid-request": (422, "Invalid request", "Some fields are missing or invalid."),
    "invalid-file": (422, "Invalid prediction file", "The prediction file failed scoring's checks."),
    "invalid-truth": (422, "Invalid truth file", "The truth file failed scoring's checks; nothing was stored."),
    "invalid-groups": (
        422,
        "Invalid class groups",
        "The class,group mapping sent with the truth failed scoring's checks; nothing was stored.",
    ),
    "email-not-verified": (403, "E-mail address not verified", "Submitting needs a verified e-mail address."),
    "team-locked": (409, "Another team on this phase", "You submit to this phase through another team."),
    "file-too-large": (413, "File too large", "The upload passed the size limit; it was cut off and not stored."),
    "quota-exceeded": (429, "Submission quota exceeded", "The team's daily or total quota on this phase is used."),
    "worker-time-exhausted": (
        429,
        "Daily worker time for invalid files used",
        "The account's invalid uploads used today's worker-time budget; uploads resume at the UTC day's end.",
    ),
    "rate-limited": (429, "Too many requests", "Too many requests with this token; see Retry-After."),
    "action-refused": (409, "Action refused", "An organizer action that does not fit the object's current state."),
    "storage-unavailable": (
        503,
        "File storage unavailable",
        "The upload could not be stored (a full disk or unreachable storage); nothing was charged. Retry later.",
    ),
    "error": (500, "Error", "Something else went wrong."),
}


def type_uri(kind: str) -> str:

    return reverse("api:problem-type", args=[kind])


# The problem kind of each DRF error code not raised as an ApiProblem.
_DRF_TYPES = {
    "not_authenticated": "token-required",
    "authentication_failed": "invalid-token",
    "permission_denied": "forbidden",
    "not_found": "not-found",
    "method_not_allowed": "method-not-allowed",
    "not_acceptable": "not-acceptable",
    "unsupported_media_type": "unsupported-media-type",
    "throttled": "rate-limited",
    "parse_error": "malformed-request",
    "invalid": "invalid-request",
}


class ApiProblem(exceptions.APIException):
    """An error with its own problem type; ``extra`` members are added to the body."""

    def __init__(
        self,
        status_code: int,
        kind: str,
        title: str,
        detail: str,
        *,
        errors: list[dict] | None = None,
        headers: dict[str, str] | None = None,
        **extra,
    ) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.kind = kind
        self.title = title
        self.errors = errors
        self.headers = headers or {}
        self.extra = extra


class TokenProblem(exceptions.AuthenticationFailed):
    """401 for a token that is unknown, revoked or expired (the type says which)."""

    def __init__(self, kind: str, title: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.title = title


def problem_body(status_code: int, kind: str, title: str, detail: str, **members) -> dict:
    body = {"type": type_uri(kind), "title": title, "status": status_code, "detail": detail}
    body.update({k: v for k, v in members.items() if v is not None})
    return body


def _flatten(detail, field: str | None = None) -> list[dict]:
    """DRF's nested validation errors as a flat ``errors`` list."""
    if isinstance(detail, dict):
        out = []
        for key, value in detail.items():
            name = key if field is None else f"{field}.{key}"
            out += _flatten(value, None if key == "non_field_errors" else name)
        return out
    if isinstance(detail, list):
        return [item for value in detail for item in _flatten(value, field)]
    return [{"line": None, "column": None, "field": field, "message": str(detail)}]


def handler(exc, context):
    """DRF's EXCEPTION_HANDLER: every error becomes a problem document."""
    from rest_framework.views import exception_handler  # here: rest_framework.views imports our authentication

    if isinstance(exc, Http404):
        exc = ApiProblem(404, "not-found", "Not found", str(exc) or "Not found.")
    elif isinstance(exc, PermissionDenied):
        exc = ApiProblem(403, "forbidden", "Forbidden", str(exc) or "You may not do this.")
    response = exception_handler(exc, context)
    if response is None:
        return None  # a bug: let Django's 500 handling log it
    if isinstance(exc, ApiProblem):
        body = problem_body(exc.status_code, exc.kind, exc.title, str(exc.detail), errors=exc.errors, **exc.extra)
        for name, value in exc.headers.items():
            response[name] = value
    elif isinstance(exc, TokenProblem):
        body = problem_body(response.status_code, exc.kind, exc.title, str(exc.detail))
    else:
        code = exc.get_codes() if isinstance(exc, exceptions.APIException) else "error"
        if isinstance(exc, exceptions.ValidationError):
            kind = _DRF_TYPES["invalid"]
            body = problem_body(
                422, kind, TYPES[kind][1], "The request has invalid fields.", errors=_flatten(exc.detail)
            )
            response.status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
        else:
            kind = _DRF_TYPES.get(code if isinstance(code, str) else "", "error")
            detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
            body = problem_body(response.status_code, kind, TYPES[kind][1], str(detail))
            if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
                body["retry_after"] = int(exc.wait + 0.999)
    response.data = body
    response.content_type = CONTENT_TYPE
    return response


def problem_response(status_code: int, kind: str, title: str, detail: str, **members) -> JsonResponse:
    """A problem outside DRF's views (the API's catch-all 404)."""
    return JsonResponse(
        problem_body(status_code, kind, title, detail, **members), status=status_code, content_type=CONTENT_TYPE
    )
