"""/api/v1/schema/ (OpenAPI 3.1) and the reference page, served from our own static files."""

from __future__ import annotations

import re

import pytest
import yaml
from django.contrib.staticfiles import finders

# Not operations of the API: the schema, its reference page, the problem-type pages and the catch-all 404.
NOT_OPERATIONS = {"schema", "docs", "problem-type", None}


def api_paths() -> set[str]:
    """Every route of leaderboard/api/urls.py as OpenAPI writes it (``<slug:x>`` -> ``{x}``)."""
    from leaderboard.api import urls

    return {
        "/api/v1/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(pattern.pattern))
        for pattern in urls.urlpatterns
        if pattern.name not in NOT_OPERATIONS
    }


def test_the_schema_is_openapi_3_1_with_every_endpoint_and_bearer_auth(client, db):
    response = client.get("/api/v1/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"] == "3.1.0"
    assert set(schema["paths"]) == api_paths()
    assert "/api/v1/submissions/{submission_id}" in api_paths()
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
