"""/api/v1/.../submissions/preflight and the upload's own field checks: refusals before any file is sent."""

from __future__ import annotations

import pytest

from leaderboard.submissions.models import Submission
from tests.api.helpers import bearer
from tests.submissions.helpers import as_post_file, mudi_prediction_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

URL = "/api/v1/tasks/mudi/submissions/preflight"


def problem_kind(response) -> str:
    assert response["Content-Type"] == "application/problem+json"
    return response.json()["type"].rsplit("/", 1)[-1]


def test_it_accepts_with_the_team_and_its_quota_and_charges_nothing(client, alice, make_token, mudi_phase):
    response = client.get(URL, **bearer(make_token(alice, "submit")))
    assert response.status_code == 200
    body = response.json()
    assert body["accepts"] is True and body["team"] == alice.personal_team.slug
    assert body["quota"]["daily_used"] == 0 and body["max_bytes"] > 0
    assert not Submission.objects.exists()


@pytest.mark.parametrize(
    "token_scope, status, kind", [(None, 401, "token-required"), ("read", 403, "insufficient-scope")]
)
def test_it_names_the_token_problem(client, alice, make_token, mudi_phase, token_scope, status, kind):
    headers = bearer(make_token(alice, token_scope)) if token_scope else {}
    response = client.get(URL, **headers)
    assert (response.status_code, problem_kind(response)) == (status, kind)


def test_an_unverified_address_is_its_own_problem_not_a_token_one(client, alice, make_token, mudi_phase):
    alice.email_verified = False
    alice.save(update_fields=["email_verified"])
    response = client.get(URL, **bearer(make_token(alice, "submit")))
    assert (response.status_code, problem_kind(response)) == (403, "email-not-verified")


def test_a_used_up_quota_answers_429_with_retry_after(client, alice, make_token, mudi_phase, sent):
    mudi_phase.daily_limit = 1
    mudi_phase.save(update_fields=["daily_limit"])
    token = make_token(alice, "submit")
    data = {"method_name": "X", "modalities": "graph", "file": as_post_file(mudi_prediction_csv())}
    assert client.post("/api/v1/tasks/mudi/submissions", data, **bearer(token)).status_code == 202
    response = client.get(URL, **bearer(token))
    assert (response.status_code, problem_kind(response)) == (429, "quota-exceeded")
    assert int(response["Retry-After"]) > 0


def test_a_team_of_others_and_an_unknown_task_are_refused(client, alice, charlie, make_token, mudi_phase):
    token = make_token(alice, "submit")
    response = client.get(URL, {"team": charlie.personal_team.slug}, **bearer(token))
    assert (response.status_code, problem_kind(response)) == (422, "invalid-request")
    assert response.json()["errors"][0]["field"] == "team"
    missing = client.get("/api/v1/tasks/mudii/submissions/preflight", **bearer(token))
    assert missing.status_code == 404 and "valid tasks: mudi," in missing.json()["detail"]


def test_an_upload_with_an_unknown_declaration_is_refused_not_silently_dropped(client, alice, make_token, mudi_phase):
    data = {"method_name": "X", "modalities": "graph", "modality": "text", "file": as_post_file(mudi_prediction_csv())}
    response = client.post("/api/v1/tasks/mudi/submissions", data, **bearer(make_token(alice, "submit")))
    assert (response.status_code, problem_kind(response)) == (422, "invalid-request")
    assert response.json()["errors"] == [
        {"line": None, "column": None, "field": "modality",
         "message": "Unknown field 'modality'; this task's declarations: modalities."}
    ]  # fmt: skip
    assert not Submission.objects.exists()


def test_the_task_json_marks_required_declarations(client, db):
    declarations = client.get("/api/v1/tasks/mudi").json()["declarations"]
    assert [(d["key"], d["required"]) for d in declarations] == [("modalities", True)]
