"""Site-wide pages: home and health check (the foundation issue fills these in)."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

import scoring


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"families": scoring.FAMILIES})


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"ok": True})
