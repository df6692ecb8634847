"""The site's own 404, 403 and 500 pages, with DEBUG off and on (make run); JSON errors for JSON endpoints."""

from __future__ import annotations

import json
import uuid

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import path

from leaderboard.urls import handler403, handler404, handler500  # noqa: F401 (this module is a URLconf too)
from leaderboard.urls import urlpatterns as site_patterns


def crash(request):
    raise RuntimeError("boom")


def forbidden(request):
    raise PermissionDenied("Only organizers may do this.")


urlpatterns = [*site_patterns, path("test-crash/", crash), path("test-forbidden/", forbidden)]

debug = pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"])


@debug
def test_an_unknown_page_gets_the_sites_404_with_its_header(client, settings, db, debug):
    settings.DEBUG = debug
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "Page not found" in page and 'class="site-header"' in page
    assert "URLconf" not in page and "Using the URLconf" not in page


@debug
def test_a_logged_out_visitor_of_a_private_submission_is_told_to_log_in(client, settings, db, debug):
    settings.DEBUG = debug
    target = f"/submissions/{uuid.uuid4()}/"
    response = client.get(target)
    assert response.status_code == 404
    assert f'<a href="/accounts/login/?next={target}">log in</a> to see it' in response.content.decode()


def test_a_logged_in_visitor_of_a_missing_page_is_not_asked_to_log_in(client, alice):
    client.force_login(alice)
    response = client.get(f"/submissions/{uuid.uuid4()}/")
    assert response.status_code == 404
    assert "log in</a> to see it" not in response.content.decode()


@debug
@pytest.mark.urls("tests.foundation.test_error_pages")
def test_a_forbidden_action_gets_the_sites_403(client, settings, db, debug):
    settings.DEBUG = debug
    response = client.get("/test-forbidden/")
    assert response.status_code == 403
    page = response.content.decode()
    assert "Permission denied" in page and "Only organizers may do this." in page and 'class="site-header"' in page


@debug
@pytest.mark.urls("tests.foundation.test_error_pages")
def test_a_crash_gets_the_sites_500_without_a_traceback(settings, db, debug):
    settings.DEBUG = debug
    response = Client(raise_request_exception=False).get("/test-crash/")
    assert response.status_code == 500
    page = response.content.decode()
    assert "Server error" in page and 'class="site-header"' in page
    assert "Traceback" not in page and "boom" not in page


@debug
def test_json_endpoints_get_json_errors(client, settings, db, debug):
    settings.DEBUG = debug
    response = client.get(f"/submissions/{uuid.uuid4()}/status.json")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == {"error": "Page not found", "status": 404}


def test_a_path_without_its_slash_is_still_redirected_under_debug(client, settings, db):
    settings.DEBUG = True
    response = client.get("/accounts/login")
    assert response.status_code == 301 and response["Location"] == "/accounts/login/"
