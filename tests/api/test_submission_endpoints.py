"""/api/v1/.../submissions and /api/v1/submissions/<id>: upload, status, my list, visibility, access, limits."""

from __future__ import annotations

import json

import pytest

from leaderboard.submissions.models import Submission
from scoring import cli as scoring_cli
from tests.api.helpers import bearer
from tests.submissions.helpers import as_post_file, invalid_mudi_csv, make_submission, mudi_prediction_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def token(alice, make_token):
    return make_token(alice, "submit")


def post(client, token, content: bytes, slug: str = "mudi", name: str = "predictions.csv", **fields):
    data = {"method_name": "GraphDDI", "modalities": ["graph", "text"], "file": as_post_file(content, name)}
    data.update(fields)
    return client.post(f"/api/v1/tasks/{slug}/submissions", data, **bearer(token))


def test_a_valid_file_is_accepted_with_202_and_location(
    client, alice, token, mudi_phase, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, token, mudi_prediction_csv(), code_url="https://example.org/c", visibility="private")
    assert response.status_code == 202
    submission = Submission.objects.get()
    assert response["Location"] == f"http://testserver/api/v1/submissions/{submission.pk}"
    body = response.json()
    assert body["id"] == str(submission.pk) and body["status"] == "queued"
    assert body["team"] == alice.personal_team.slug and body["visibility"] == "private"
    assert submission.declarations == {"modalities": ["graph", "text"]}
    assert submission.code_url == "https://example.org/c" and submission.user == alice
    assert sent == [str(submission.pk)]


def test_it_submits_as_a_named_team_and_refuses_a_team_of_others(
    client, alice, alice_lab, charlie, token, mudi_phase, sent
):
    assert post(client, token, mudi_prediction_csv(), team=alice_lab.slug).json()["team"] == alice_lab.slug
    response = post(client, token, mudi_prediction_csv(), team=charlie.personal_team.slug)
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "team"


def test_a_second_team_on_the_same_phase_is_refused_with_409_naming_the_first(
    client, alice, alice_lab, token, mudi_phase, sent
):
    from leaderboard.accounts.services import create_team

    assert post(client, token, mudi_prediction_csv(), team=alice_lab.slug).status_code == 202
    fresh = create_team(alice, "Probe 2")
    response = post(client, token, mudi_prediction_csv(), team=fresh.slug)
    assert response.status_code == 409
    body = response.json()
    assert body["type"].endswith("/team-locked") and body["team"] == "alice-lab"
    assert "through the team Alice Lab" in body["detail"]
    assert Submission.objects.count() == 1


def test_an_unverified_address_is_403(client, alice, token, mudi_phase, sent):
    alice.email_verified = False
    alice.save(update_fields=["email_verified"])
    response = post(client, token, mudi_prediction_csv())
    assert response.status_code == 403
    assert response.json()["type"].endswith("/email-not-verified")
    assert not Submission.objects.exists()


def test_an_invalid_file_is_422_with_the_errors_scoring_prints(client, token, mudi_phase, sent, tmp_path, capsys):
    response = post(client, token, invalid_mudi_csv())
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["type"] == "/api/v1/problems/invalid-file"
    truth, pred = tmp_path / "truth.csv", tmp_path / "pred.csv"
    truth.write_bytes(mudi_phase.truth_file.read())
    pred.write_bytes(invalid_mudi_csv())
    assert scoring_cli.main(["score", "mudi", "--truth", str(truth), "--pred", str(pred), "--json"]) == 2
    printed = json.loads(capsys.readouterr().out)
    assert body["errors"] == printed["errors"] and body["error_count"] == printed["error_count"]
    assert body["errors"][0]["line"] == 2 and body["errors"][0]["column"]
    assert not Submission.objects.exists() and sent == []


def test_missing_fields_are_422_listing_each(client, token, mudi_phase):
    response = client.post(
        "/api/v1/tasks/mudi/submissions", {"file": as_post_file(mudi_prediction_csv())}, **bearer(token)
    )
    assert response.status_code == 422
    fields = {e["field"] for e in response.json()["errors"]}
    assert {"method_name", "modalities"} <= fields
    response = client.post("/api/v1/tasks/mudi/submissions", {"method_name": "x"}, **bearer(token))
    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "file"


def test_quota_exhaustion_is_429_with_when_it_resets(client, alice, token, mudi_phase, sent):
    mudi_phase.daily_limit = 1
    mudi_phase.save(update_fields=["daily_limit"])
    make_submission(mudi_phase, alice.personal_team, alice)
    response = post(client, token, mudi_prediction_csv())
    assert response.status_code == 429
    body = response.json()
    assert body["type"].endswith("/quota-exceeded")
    assert body["resets_at"].endswith("T00:00:00+00:00")
    assert 0 < int(response["Retry-After"]) <= 86400
    assert Submission.objects.count() == 1


def test_an_account_whose_invalid_files_used_the_worker_budget_gets_429_with_when_it_resets(
    client, alice, token, mudi_phase, sent, settings
):
    import datetime as dt

    from django.utils import timezone

    settings.SUBMISSION_INVALID_WORKER_SECONDS_PER_DAY = 30
    failed = make_submission(mudi_phase, alice.personal_team, alice)
    now = timezone.now()
    Submission.objects.filter(pk=failed.pk).update(
        status="failed", error_kind="invalid", started_at=now - dt.timedelta(seconds=31), finished_at=now
    )
    response = post(client, token, mudi_prediction_csv())
    assert response.status_code == 429
    body = response.json()
    assert body["type"].endswith("/worker-time-exhausted")
    assert body["resets_at"].endswith("T00:00:00+00:00") and "took 31 s of scoring time today" in body["detail"]
    assert 0 < int(response["Retry-After"]) <= 86400
    assert Submission.objects.count() == 1


def test_a_phase_without_truth_is_409(client, token, standing):
    response = post(client, token, mudi_prediction_csv())
    assert response.status_code == 409
    assert response.json()["type"].endswith("/phase-closed")


def test_status_and_metrics_of_a_scored_submission(client, alice, make_token, mudi_phase):
    from tests.boards.conftest import mudi_metrics, scored

    submission = scored(mudi_phase, alice.personal_team, "GraphDDI", mudi_metrics(0.7))
    response = client.get(f"/api/v1/submissions/{submission.pk}")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "scored"
    assert body["metrics"]["aware/macro/f1"] == 0.7
    assert body["primary"]["value"] == 0.7


def test_others_private_submissions_are_404_and_the_teams_own_are_visible(
    client, alice, bob, alice_lab, charlie, make_token, mudi_phase
):
    private = make_submission(mudi_phase, alice_lab, alice, is_public=False)
    url = f"/api/v1/submissions/{private.pk}"
    assert client.get(url).status_code == 404
    assert client.get(url, **bearer(make_token(charlie, "read"))).status_code == 404
    assert client.get(url, **bearer(make_token(bob, "read"))).status_code == 200
    assert client.get("/api/v1/submissions/00000000-0000-0000-0000-000000000000").status_code == 404


def test_my_submissions_lists_my_teams_and_filters(client, alice, bob, alice_lab, charlie, make_token, mudi_phase):
    mine = make_submission(mudi_phase, alice_lab, bob, method_name="Ours")
    make_submission(mudi_phase, charlie.personal_team, charlie, method_name="Theirs")
    body = client.get("/api/v1/submissions", **bearer(make_token(alice, "read"))).json()
    assert [s["id"] for s in body["results"]] == [str(mine.pk)] and body["count"] == 1
    assert client.get("/api/v1/submissions?task=mudi", **bearer(make_token(alice, "read"))).json()["count"] == 1
    assert client.get("/api/v1/submissions?task=other", **bearer(make_token(alice, "read"))).json()["count"] == 0
    assert client.get("/api/v1/submissions?status=scored", **bearer(make_token(alice, "read"))).json()["count"] == 0
    assert client.get(f"/api/v1/submissions?team={alice_lab.slug}", **bearer(make_token(alice))).json()["count"] == 1


def test_my_submissions_takes_a_fixed_number_of_queries(
    client, alice, make_token, mudi_phase, django_assert_max_num_queries
):
    for i in range(3):
        make_submission(mudi_phase, alice.personal_team, alice, method_name=f"M{i}")
    token = make_token(alice, "read")
    with django_assert_max_num_queries(5):  # token, last-used update, count, page (+ select_related)
        body = client.get("/api/v1/submissions", **bearer(token)).json()
    assert [s["method_name"] for s in body["results"]] == ["M2", "M1", "M0"]
    assert body["results"][0]["primary_value"] is None and body["results"][0]["status"] == "queued"


def test_the_team_changes_visibility_with_a_submit_token(client, alice, charlie, make_token, mudi_phase):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    url = f"/api/v1/submissions/{submission.pk}"
    payload = json.dumps({"visibility": "private"})
    assert client.patch(url, payload, content_type="application/json").status_code == 401
    read = client.patch(url, payload, content_type="application/json", **bearer(make_token(alice, "read")))
    assert read.status_code == 403 and read.json()["type"].endswith("/insufficient-scope")
    outsider = client.patch(url, payload, content_type="application/json", **bearer(make_token(charlie)))
    assert outsider.status_code == 403  # public: visible to charlie, but not his to change
    response = client.patch(url, payload, content_type="application/json", **bearer(make_token(alice)))
    assert response.status_code == 200 and response.json()["visibility"] == "private"
    submission.refresh_from_db()
    assert submission.is_public is False
    # Now private: charlie may not even see it.
    assert client.patch(url, payload, content_type="application/json", **bearer(make_token(charlie))).status_code == 404
    bad = client.patch(
        url, json.dumps({"visibility": "secret"}), content_type="application/json", **bearer(make_token(alice))
    )
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "visibility"


def test_requests_are_rate_limited_per_token_with_retry_after(client, alice, charlie, make_token, settings, db):
    settings.API_RATE_LIMITS = {"token": "3/minute", "upload": "1/minute"}
    token = make_token(alice, "read")
    for _ in range(3):
        assert client.get("/api/v1/tasks", **bearer(token)).status_code == 200
    response = client.get("/api/v1/tasks", **bearer(token))
    assert response.status_code == 429
    assert response.json()["type"].endswith("/rate-limited")
    assert int(response["Retry-After"]) > 0
    # Another token has its own budget.
    assert client.get("/api/v1/tasks", **bearer(make_token(charlie, "read"))).status_code == 200


def test_uploads_have_their_own_tighter_limit(client, alice, token, mudi_phase, sent, settings):
    settings.API_RATE_LIMITS = {"token": "100/minute", "upload": "1/minute"}
    assert post(client, token, mudi_prediction_csv()).status_code == 202
    response = post(client, token, mudi_prediction_csv())
    assert response.status_code == 429 and response.json()["type"].endswith("/rate-limited")
    assert client.get("/api/v1/submissions", **bearer(token)).status_code == 200
