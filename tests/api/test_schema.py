"""/api/v1/schema/ (OpenAPI 3.1) and the reference page, served from our own static files."""

from __future__ import annotations

import re

import pytest
import yaml
from django.contrib.staticfiles import finders

EXPECTED_PATHS = {
    "/api/v1/tasks",
    "/api/v1/tasks/{slug}",
    "/api/v1/tasks/{slug}/leaderboard",
    "/api/v1/tasks/{slug}/submissions",
    "/api/v1/challenges",
    "/api/v1/challenges/{slug}",
    "/api/v1/challenges/{challenge}/phases/{phase}",
    "/api/v1/challenges/{challenge}/phases/{phase}/leaderboard",
    "/api/v1/challenges/{challenge}/phases/{phase}/submissions",
    "/api/v1/challenges/{challenge}/phases/{phase}/truth",
    "/api/v1/submissions",
    "/api/v1/submissions/{submission_id}",
    "/api/v1/challenges/{slug}/rerun",
    "/api/v1/challenges/{slug}/export.csv",
    "/api/v1/challenges/{slug}/teams/{team}/{decision}",
    "/api/v1/submissions/{submission_id}/moderation",
}


def test_the_schema_is_openapi_3_1_with_every_endpoint_and_bearer_auth(client, db):
    response = client.get("/api/v1/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"] == "3.1.0"
    assert set(schema["paths"]) == EXPECTED_PATHS
    assert schema["components"]["securitySchemes"]["bearerToken"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "A ddi_... token from your profile page.",
    }
    as_json = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json")
    assert as_json.json()["openapi"] == "3.1.0"


def test_the_reference_page_loads_only_local_files(client, db):
    response = client.get("/api/v1/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith("/") for s in sources), sources
    for source in sources:
        if source.startswith("/static/"):
            assert finders.find(source.removeprefix("/static/")), source
    # Its start-up script is a file too (the site's CSP forbids inline scripts).
    script = client.get("/api/v1/docs/?script=")
    assert script.status_code == 200 and b"/api/v1/schema/" in script.content


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_reference_page_renders_in_a_browser_under_our_csp(page):
    page.goto("/api/v1/docs/")
    page.get_by_text("/api/v1/tasks/{slug}/leaderboard", exact=True).wait_for()
    assert page.console_errors == []
