"""The organizer endpoints for moderation: re-run, moderate a submission, decide on a team, export the scores."""

# ruff: noqa: F811 (the manage pages' fixtures are imported by name, and tests take them as arguments)
from __future__ import annotations

import csv
import io

import pytest
from django.core import mail

from leaderboard.challenges.models import AuditEntry
from leaderboard.submissions.models import Submission
from tests.api.helpers import bearer
from tests.moderation.conftest import (  # noqa: F401 (fixtures shared with the manage pages' tests)
    PRIVATE_VALUE,
    alice_registered,
    board_submission_ids,
    board_updates_run_at_once,
    challenge,
    dev_phase,
    make_submission,
    oscar,
    otto,
    phase,
    rebuild,
    register,
    tasks_run_at_once,
)

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

PROBLEM = "application/problem+json"


@pytest.fixture
def graph(phase, alice_lab, alice_registered):
    submission = make_submission(phase, alice_lab, "GraphDDI")
    rebuild(phase)
    return submission


@pytest.fixture
def organizer_token(make_token, oscar):
    return make_token(oscar, "organize")


def post(client, url, token, django_capture_on_commit_callbacks, **body):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(url, body, content_type="application/json", **bearer(token))


def test_hiding_through_the_api_takes_the_submission_off_the_boards(
    client,
    graph,
    organizer_token,
    tasks_run_at_once,
    django_capture_on_commit_callbacks,
):
    url = f"/api/v1/submissions/{graph.pk}/moderation"
    response = post(client, url, organizer_token, django_capture_on_commit_callbacks, action="hide", reason="Probing.")
    assert response.status_code == 200
    body = response.json()
    assert body["is_hidden"] is True and body["hidden_reason"] == "Probing."
    assert body["detail"].startswith("Hidden")
    assert str(graph.pk) not in board_submission_ids(graph.phase)
    assert AuditEntry.objects.filter(action="submission.hide", reason="Probing.").exists()


def test_hiding_without_a_reason_is_a_422_naming_the_field(
    client, graph, organizer_token, django_capture_on_commit_callbacks
):
    url = f"/api/v1/submissions/{graph.pk}/moderation"
    response = post(client, url, organizer_token, django_capture_on_commit_callbacks, action="hide")
    assert response.status_code == 422 and response["Content-Type"] == PROBLEM
    assert response.json()["errors"][0]["field"] == "reason"


def test_an_action_that_does_not_fit_the_state_is_a_409(
    client, graph, organizer_token, django_capture_on_commit_callbacks
):
    url = f"/api/v1/submissions/{graph.pk}/moderation"
    response = post(client, url, organizer_token, django_capture_on_commit_callbacks, action="unhide")
    assert response.status_code == 409
    assert response.json()["type"].endswith("/problems/action-refused")
    assert response.json()["detail"] == "This submission is not hidden."


def test_verifying_and_marking_a_baseline(client, graph, organizer_token, django_capture_on_commit_callbacks):
    url = f"/api/v1/submissions/{graph.pk}/moderation"
    verified = post(client, url, organizer_token, django_capture_on_commit_callbacks, action="verify",
                    note="reproduced at commit 1a2b3c4")  # fmt: skip
    assert verified.json()["is_verified"] is True
    baseline = post(client, url, organizer_token, django_capture_on_commit_callbacks, action="baseline")
    assert baseline.json()["is_baseline"] is True


def test_an_unknown_action_is_a_422(client, graph, organizer_token, django_capture_on_commit_callbacks):
    response = post(client, f"/api/v1/submissions/{graph.pk}/moderation", organizer_token,
                    django_capture_on_commit_callbacks, action="delete")  # fmt: skip
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "action"


def test_re_running_a_phase_s_failed_submissions(
    client,
    phase,
    charlie,
    organizer_token,
    tasks_run_at_once,
    django_capture_on_commit_callbacks,
):
    failed = make_submission(phase, charlie.personal_team, "Broken", status="failed")
    response = post(client, "/api/v1/challenges/mudi-2027/rerun", organizer_token, django_capture_on_commit_callbacks,
                    phase="test", which="failed")  # fmt: skip
    assert response.status_code == 202
    assert response.json() == {"queued": 1, "detail": "Re-running 1 failed submission of 'Test phase'."}
    assert tasks_run_at_once == [str(failed.pk)]


def test_re_running_one_submission(
    client,
    graph,
    organizer_token,
    tasks_run_at_once,
    django_capture_on_commit_callbacks,
):
    response = post(client, "/api/v1/challenges/mudi-2027/rerun", organizer_token, django_capture_on_commit_callbacks,
                    submission=str(graph.pk))  # fmt: skip
    assert response.status_code == 202 and response.json()["queued"] == 1
    assert Submission.objects.get(pk=graph.pk).status == "queued"


@pytest.mark.parametrize(
    ("body", "status"),
    [({}, 422), ({"phase": "test", "submission": "00000000-0000-0000-0000-000000000000"}, 422),
     ({"phase": "nope"}, 404), ({"phase": "test", "which": "some"}, 422)],
)  # fmt: skip
def test_a_bad_re_run_request_says_what_is_wrong(
    client,
    phase,
    organizer_token,
    django_capture_on_commit_callbacks,
    body,
    status,
):
    response = post(client, "/api/v1/challenges/mudi-2027/rerun", organizer_token, django_capture_on_commit_callbacks,
                    **body)  # fmt: skip
    assert response.status_code == status and response["Content-Type"] == PROBLEM


def test_a_phase_with_nothing_to_re_run_is_a_409(client, phase, organizer_token, django_capture_on_commit_callbacks):
    response = post(client, "/api/v1/challenges/mudi-2027/rerun", organizer_token, django_capture_on_commit_callbacks,
                    phase="test")  # fmt: skip
    assert response.status_code == 409


def test_disqualifying_a_team(
    client,
    graph,
    organizer_token,
    tasks_run_at_once,
    django_capture_on_commit_callbacks,
):
    response = post(client, "/api/v1/challenges/mudi-2027/teams/alice-lab/disqualify", organizer_token,
                    django_capture_on_commit_callbacks, reason="Used the test labels.")  # fmt: skip
    assert response.status_code == 200
    assert response.json()["status"] == "disqualified" and response.json()["reason"] == "Used the test labels."
    assert str(graph.pk) not in board_submission_ids(graph.phase)
    assert len(mail.outbox) == 2
    again = post(client, "/api/v1/challenges/mudi-2027/teams/alice-lab/disqualify", organizer_token,
                 django_capture_on_commit_callbacks, reason="twice")  # fmt: skip
    assert again.status_code == 409


def test_disqualifying_needs_a_reason(client, graph, organizer_token, django_capture_on_commit_callbacks):
    response = post(client, "/api/v1/challenges/mudi-2027/teams/alice-lab/disqualify", organizer_token,
                    django_capture_on_commit_callbacks)  # fmt: skip
    assert response.status_code == 422


def test_an_unregistered_team_or_an_unknown_decision_is_a_404(
    client, graph, charlie, organizer_token, django_capture_on_commit_callbacks
):
    for url in (f"/api/v1/challenges/mudi-2027/teams/{charlie.personal_team.slug}/disqualify",
                "/api/v1/challenges/mudi-2027/teams/alice-lab/promote"):  # fmt: skip
        response = post(client, url, organizer_token, django_capture_on_commit_callbacks, reason="x")
        assert response.status_code == 404 and response["Content-Type"] == PROBLEM


def test_the_export_streams_every_score_as_csv(client, graph, organizer_token):
    response = client.get("/api/v1/challenges/mudi-2027/export.csv", **bearer(organizer_token))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert float(rows[0]["private:aware/macro/f1"]) == PRIVATE_VALUE
    as_csv = client.get("/api/v1/challenges/mudi-2027/export.csv", HTTP_ACCEPT="text/csv", **bearer(organizer_token))
    assert as_csv.status_code == 200


def test_the_bulk_download_streams_every_file_as_a_zip(client, graph, organizer_token):
    import zipfile

    response = client.get("/api/v1/challenges/mudi-2027/submissions.zip", **bearer(organizer_token))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert f"files/test/alice-lab/{graph.pk}-predictions.csv" in archive.namelist()
    assert "scores.csv" in archive.namelist()


# --- who may ------------------------------------------------------------------------------------------

ENDPOINTS = [
    ("post", "/api/v1/challenges/mudi-2027/rerun", {"phase": "test", "which": "all"}),
    ("post", "/api/v1/submissions/{id}/moderation", {"action": "hide", "reason": "x"}),
    ("post", "/api/v1/challenges/mudi-2027/teams/alice-lab/disqualify", {"reason": "x"}),
    ("get", "/api/v1/challenges/mudi-2027/export.csv", None),
    ("get", "/api/v1/challenges/mudi-2027/submissions.zip", None),
]


@pytest.mark.parametrize(("method", "url", "body"), ENDPOINTS)
@pytest.mark.parametrize("who", ["alice", "charlie", "otto"])
def test_everyone_but_the_organizers_gets_a_404(client, request, graph, make_token, method, url, body, who):
    token = make_token(request.getfixturevalue(who), "organize")
    url = url.format(id=graph.pk)
    if method == "post":
        response = client.post(url, body, content_type="application/json", **bearer(token))
    else:
        response = client.get(url, **bearer(token))
    assert response.status_code == 404 and response["Content-Type"] == PROBLEM
    assert str(PRIVATE_VALUE) not in response.content.decode()
    graph.refresh_from_db()
    assert not graph.is_hidden and graph.status == "scored"


@pytest.mark.parametrize(("method", "url", "body"), ENDPOINTS)
def test_a_submit_token_is_not_enough_and_no_token_is_a_401(client, graph, make_token, oscar, method, url, body):
    url = url.format(id=graph.pk)
    call = client.post if method == "post" else client.get
    kwargs = {"content_type": "application/json"} if method == "post" else {}
    weak = call(url, body, **kwargs, **bearer(make_token(oscar, "submit")))
    assert weak.status_code == 403 and weak.json()["type"].endswith("/problems/insufficient-scope")
    assert call(url, body, **kwargs).status_code == 401


def test_staff_may_moderate_any_challenge(client, graph, make_token, olga, django_capture_on_commit_callbacks):
    response = post(client, f"/api/v1/submissions/{graph.pk}/moderation", make_token(olga, "organize"),
                    django_capture_on_commit_callbacks, action="baseline")  # fmt: skip
    assert response.status_code == 200
