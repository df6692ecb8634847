"""The site's own 404, 403 and 500 pages, whatever DEBUG is, and JSON errors for JSON endpoints.

Without DEBUG, Django calls the handlers named in ``leaderboard/urls.py``. With
DEBUG on (``make run``) it answers a missing page or a crash with its technical
pages instead (URL patterns, settings); ``SiteErrorPagesMiddleware`` puts the
site's pages in their place. The traceback of a crash still goes to the console
log, which is where a developer reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve, reverse

from leaderboard.api.problems import problem_response  # the API's one error format

TITLES = {400: "Bad request", 403: "Permission denied", 404: "Page not found", 500: "Server error"}


def is_api(request: HttpRequest) -> bool:
    """Under the JSON API's prefix (whose errors are problem documents)."""
    return request.path.startswith(reverse("api:tasks").removesuffix("tasks"))


def wants_json(request: HttpRequest) -> bool:
    """JSON endpoints (``*.json``, the API) and clients asking for JSON get JSON errors."""
    path = request.path
    if path.endswith(".json") or is_api(request):
        return True
    accept = request.headers.get("Accept", "")
    return "application/json" in accept and "text/html" not in accept


def login_url(request: HttpRequest) -> str:
    """The login page, coming back to this page afterwards."""
    return f"{reverse('accounts:login')}?next={quote(request.get_full_path())}"


def error_response(request: HttpRequest, status: int, exception: Exception | None = None) -> HttpResponse:
    """The site's page (or JSON body) for an HTTP error ``status``."""
    if is_api(request):
        kind = {400: "malformed-request", 403: "forbidden", 404: "not-found", 500: "error"}[status]
        return problem_response(status, kind, TITLES[status], str(exception or "") or TITLES[status] + ".")
    if wants_json(request):
        return JsonResponse({"error": TITLES[status], "status": status}, status=status)
    if status == 500:
        # No request context: the crash may be the database, which the header's user menu would need.
        return HttpResponse(render_to_string("500.html", {}), status=500)
    detail = str(exception) if status in (400, 403) and exception and str(exception) else ""
    context = {"path": request.path, "detail": detail, "login_url": login_url(request)}
    return render(request, f"{status}.html", context, status=status)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """400: a body Django could not parse (a multipart upload without its boundary): a problem document under /api/.

    Only a body that could not be parsed is described; any other reason (a bad Host header) is not repeated back.
    """
    if isinstance(exception, MultiPartParserError):
        return error_response(request, 400, ValueError(f"The multipart body could not be read: {exception}"))
    return error_response(request, 400)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    return error_response(request, 404, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    return error_response(request, 403, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    return error_response(request, 500)


# The status an exception in the view called for, noted on the request for the way back out.
_RAISED_STATUS = "_site_error"


class SiteErrorPagesMiddleware:
    """Under DEBUG, replace Django's technical 404 and 500 pages with the site's (innermost middleware)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not settings.DEBUG:
            return response
        raised = getattr(request, _RAISED_STATUS, None)
        if response.status_code == 404 and (raised == 404 or (raised is None and not _resolves(request.path_info))):
            return error_response(request, 404)
        if response.status_code == 500 and raised == 500:
            return error_response(request, 500)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> None:
        # Only noted here: Django still logs the exception and builds its response, replaced above.
        if isinstance(exception, Http404):
            setattr(request, _RAISED_STATUS, 404)
        elif not isinstance(exception, PermissionDenied):  # 403s already use the site's handler
            setattr(request, _RAISED_STATUS, 500)


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


class RefuseNulCharactersMiddleware:
    """400 for a query or form value holding a NUL character.

    No text a user sends may contain one (PostgreSQL refuses it in text and a
    filter on it would end in a 500); one check here covers every page, export
    and API endpoint. It runs after the upload-slot middleware, so reading a
    form body here happens within the upload limits.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        for where, values in (("query string", request.GET), ("form", self._form(request))):
            if any("\x00" in key or any("\x00" in v for v in vals) for key, vals in values.lists()):
                detail = f"The {where} contains a NUL character (0x00), which no field accepts."
                return error_response(request, 400, ValueError(detail))
        return self.get_response(request)

    @staticmethod
    def _form(request: HttpRequest):
        if request.method == "POST" and request.content_type in (
            "multipart/form-data",
            "application/x-www-form-urlencoded",
        ):
            return request.POST
        return request.GET.__class__()
