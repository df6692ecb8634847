"""Query parameters the schema does not allow answer 422 naming the parameter; the token is optional on reads."""

from __future__ import annotations

import pytest

from tests.api.helpers import bearer

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.mark.parametrize(
    "url, parameter",
    [
        ("/api/v1/submissions?status=AAA", "status"),
        ("/api/v1/submissions?page_size=false", "page_size"),
        ("/api/v1/submissions?page=0", "page"),
        ("/api/v1/tasks/mudi/leaderboard?page_size=501", "page_size"),
        ("/api/v1/tasks/mudi/leaderboard?direction=sideways", "direction"),
    ],
)
def test_an_invalid_enum_or_integer_is_a_422_naming_it(client, alice, make_token, mudi_phase, url, parameter):
    response = client.get(url, **bearer(make_token(alice, "read")))
    assert response.status_code == 422
    body = response.json()
    assert body["type"] == "/api/v1/problems/invalid-request"
    assert [e["field"] for e in body["errors"]] == [parameter]


def test_a_patch_without_visibility_changes_nothing(client, alice, make_token, mudi_phase):
    from tests.submissions.helpers import make_submission

    submission = make_submission(mudi_phase, alice.personal_team, alice)
    response = client.patch(f"/api/v1/submissions/{submission.pk}", {}, content_type="application/json",
                            **bearer(make_token(alice, "submit")))  # fmt: skip
    assert response.status_code == 200 and response.json()["visibility"] == "public"


def test_a_multipart_body_without_its_boundary_is_a_problem_not_the_html_page(client, alice, make_token, mudi_phase):
    response = client.generic("POST", "/api/v1/tasks/mudi/submissions", b"--x\r\nabc",
                              content_type="multipart/form-data", **bearer(make_token(alice)))  # fmt: skip
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["type"] == "/api/v1/problems/malformed-request"


def test_responses_carry_ratelimit_headers(client, db, settings):
    settings.API_RATE_LIMITS = {**settings.API_RATE_LIMITS, "token": "5/minute"}
    first = client.get("/api/v1/tasks")
    second = client.get("/api/v1/tasks")
    assert (first["RateLimit-Limit"], first["RateLimit-Remaining"]) == ("5", "4")
    assert second["RateLimit-Remaining"] == "3" and 0 < int(second["RateLimit-Reset"]) <= 60


def test_public_reads_document_the_token_as_optional_and_every_problem_status(client, db):
    schema = client.get("/api/v1/schema/?format=json").json()
    tasks = schema["paths"]["/api/v1/tasks"]["get"]
    assert {} in tasks["security"] and {"bearerToken": []} in tasks["security"]
    mine = schema["paths"]["/api/v1/submissions"]["get"]
    assert {} not in mine["security"]
    for operations in schema["paths"].values():
        for operation in operations.values():
            assert "default" not in operation["responses"]
    upload = schema["paths"]["/api/v1/tasks/{slug}/submissions"]["post"]["responses"]
    assert {"401", "403", "404", "409", "413", "415", "422", "429", "503"} <= set(upload)
    assert "Retry-After" in upload["429"]["headers"] and "RateLimit-Remaining" in upload["202"]["headers"]
    assert "/api/v1/problems/team-locked" in upload["409"]["description"]
