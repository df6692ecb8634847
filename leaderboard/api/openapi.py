"""What the OpenAPI schema says beyond the serializers: optional tokens, and every problem an operation answers.

``ApiSchema`` marks the public reads' token as optional (``security: [{bearerToken: []}, {}]``).
``add_problem_responses`` (a postprocessing hook) lists, per operation, each status it can
answer with a problem document, the problem types behind it (``problems.TYPES``, the one list)
and their headers (``Retry-After``, ``WWW-Authenticate``), instead of an undocumented ``default``.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema

from leaderboard.api.problems import TYPES, type_uri

# Headers a problem status carries (docs/api.md's "Errors" says when).
HEADERS = {
    401: {"WWW-Authenticate": 'Bearer realm="api" when the token is missing'},
    429: {"Retry-After": "seconds until a retry can succeed"},
    503: {"Retry-After": "seconds until a retry can succeed"},
}
RATE_LIMIT_HEADERS = {
    name: {"description": text, "schema": {"type": "string", "pattern": "^[0-9]+$"}}
    for name, text in (
        ("RateLimit-Limit", "requests allowed per window (API_RATE_LIMIT)"),
        ("RateLimit-Remaining", "requests left in the current window"),
        ("RateLimit-Reset", "seconds until the window frees a request"),
    )
}
NO_NUL = "^[^\\x00]*$"
# Problem types every operation may answer: a bad token, an object that is not there, a refused Accept
# header, too many requests, a bug.
# A NUL character in any query or form value is malformed (RefuseNulCharactersMiddleware).
EVERYWHERE = {"invalid-token", "token-revoked", "token-expired", "not-found", "not-acceptable", "rate-limited",
              "error", "malformed-request"}  # fmt: skip
# Also with a token required.
AUTHENTICATED = {"token-required", "insufficient-scope", "forbidden"}
# Also on a request with a body.
WRITES = {"malformed-request", "unsupported-media-type", "invalid-request", "forbidden", "action-refused"}
# Only where a query parameter can be wrong.
QUERY = {"invalid-request"}
# By operation id: the refusals only that operation makes.
SPECIFIC = {
    "task_submissions_create": {"invalid-file", "file-too-large", "storage-unavailable", "email-not-verified",
                                "team-locked", "phase-closed", "not-registered", "quota-exceeded"},
    "phase_submissions_create": {"invalid-file", "file-too-large", "storage-unavailable", "email-not-verified",
                                 "team-locked", "phase-closed", "not-registered", "quota-exceeded"},
    "task_submissions_preflight": {"email-not-verified", "team-locked", "phase-closed", "not-registered",
                                   "quota-exceeded", "invalid-request"},
    "phase_submissions_preflight": {"email-not-verified", "team-locked", "phase-closed", "not-registered",
                                    "quota-exceeded", "invalid-request"},
    "challenge_register": {"registration-refused"},
    "challenge_withdraw": {"registration-refused"},
    "phase_truth_update": {"invalid-truth", "invalid-groups", "file-too-large"},
}  # fmt: skip


class ApiSchema(AutoSchema):
    def get_auth(self) -> list:
        auths = super().get_auth()
        reads_anonymously = any(getattr(p, "anonymous_allowed", False) for p in self.view.get_permissions())
        if reads_anonymously and self.method in ("GET", "HEAD") and {} not in auths:
            auths.append({})  # a token is optional: it adds your private rows and quota
        return auths


def _kinds(operation: dict, method: str) -> set[str]:
    kinds = set(EVERYWHERE)
    if {} not in operation.get("security", [{}]):
        kinds |= AUTHENTICATED
    if method in ("post", "put", "patch", "delete"):
        kinds |= WRITES
    if any(p.get("in") == "query" for p in operation.get("parameters", [])):
        kinds |= QUERY
    return kinds | SPECIFIC.get(operation.get("operationId", ""), set())


def _response(status: int, kinds: list[str]) -> dict:
    lines = [f"`{type_uri(kind)}`: {TYPES[kind][2]}" for kind in kinds]
    response: dict = {
        "description": "A problem document (RFC 9457), of one of these types:\n\n- " + "\n- ".join(lines),
        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    if status in HEADERS:
        response["headers"] = {
            name: {"description": text, "schema": {"type": "string"}} for name, text in HEADERS[status].items()
        }
    return response


def add_problem_responses(result, generator, request, public):
    """drf-spectacular postprocessing hook: each operation's problem statuses, with their types and headers."""
    result.setdefault("components", {}).setdefault("schemas", {})["Problem"] = {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": sorted(type_uri(kind) for kind in TYPES)},
            "title": {"type": "string"},
            "status": {"type": "integer"},
            "detail": {"type": "string"},
            "errors": {"type": "array", "items": {"type": "object"}},
        },
        "required": ["type", "title", "status", "detail"],
    }
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            by_status: dict[int, list[str]] = {}
            for kind in sorted(_kinds(operation, method)):
                by_status.setdefault(TYPES[kind][0], []).append(kind)
            for status, kinds in sorted(by_status.items()):
                responses[str(status)] = _response(status, kinds)
            for code, response in responses.items():
                if str(code).startswith("2") or str(code) in ("429", "304"):
                    response.setdefault("headers", {}).update(RATE_LIMIT_HEADERS)
            _refuse_nul_characters(operation, result["components"]["schemas"])
    return result


def _refuse_nul_characters(operation: dict, components: dict) -> None:
    """No text field takes a NUL character (RefuseNulCharactersMiddleware answers 400): say so in the schema."""
    for parameter in operation.get("parameters", []):
        schema = parameter.get("schema", {})
        if parameter.get("in") == "query" and schema.get("type") == "string" and "enum" not in schema:
            schema.setdefault("pattern", NO_NUL)
    for media in operation.get("requestBody", {}).get("content", {}).values():
        schema = media.get("schema", {})
        if "$ref" in schema:  # a request component (COMPONENT_SPLIT_REQUEST: used by requests only)
            schema = components.get(schema["$ref"].rsplit("/", 1)[-1], {})
        for field in schema.get("properties", {}).values():
            if field.get("type") == "string" and "format" not in field and "enum" not in field:
                field.setdefault("pattern", NO_NUL)
