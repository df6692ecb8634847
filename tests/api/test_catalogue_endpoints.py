"""/api/v1/tasks and /api/v1/challenges: the registry, phases with dates, limits and the caller's quota."""

from __future__ import annotations

import pytest

import scoring
from tests.api.helpers import bearer


@pytest.mark.storage
def test_it_lists_every_task_with_format_metrics_and_downloads(client, mudi_phase):
    response = client.get("/api/v1/tasks")
    assert response.status_code == 200
    tasks = response.json()
    assert [t["slug"] for t in tasks] == list(scoring.TASKS)
    mudi = next(t for t in tasks if t["slug"] == "mudi")
    assert mudi["family"] == "mudi"
    assert mudi["prediction_columns"] == ["Drug1", "Interaction", "Drug2"]
    assert mudi["primary_metric"] == scoring.get_task("mudi").primary
    assert {"key", "name", "higher_is_better", "description"} <= set(mudi["metrics"][0])
    assert mudi["links"]["inputs"] == "http://testserver/tasks/mudi/inputs.csv"
    assert mudi["links"]["example"] == "http://testserver/tasks/mudi/example.csv"
    assert mudi["declarations"][0]["key"] == "modalities"


def test_a_task_detail_and_an_unknown_task(client, db):
    assert client.get("/api/v1/tasks/chemicalx-drugcomb").json()["seeds"] == list(range(10))
    response = client.get("/api/v1/tasks/no-such-task")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json() == {
        "type": "/api/v1/problems/not-found",
        "title": "Not found",
        "status": 404,
        "detail": "No task 'no-such-task'; valid tasks: " + ", ".join(scoring.TASKS) + ".",
    }


def test_unknown_api_paths_answer_a_problem_not_html(client, db):
    response = client.get("/api/v1/nothing/here")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["type"] == "/api/v1/problems/not-found"


def test_wrong_methods_answer_405_as_a_problem(client, db):
    response = client.delete("/api/v1/tasks")
    assert response.status_code == 405
    assert response.json()["type"].endswith("/method-not-allowed")


@pytest.mark.storage
def test_challenges_show_dates_and_limits_and_no_quota_without_a_token(client, mudi_phase):
    response = client.get("/api/v1/challenges")
    assert response.status_code == 200
    challenge = next(c for c in response.json() if c["slug"] == mudi_phase.challenge.slug)
    phase = next(p for p in challenge["phases"] if p["task"] == "mudi")
    assert phase["daily_limit"] == 5 and phase["total_limit"] == 100
    assert phase["is_open"] is True and phase["accepts_submissions"] is True
    assert phase["ends_at"] is None and phase["starts_at"]
    assert phase["quota"] is None


@pytest.mark.storage
def test_a_phase_shows_each_of_the_callers_teams_remaining_quota(client, alice, alice_lab, make_token, mudi_phase):
    from tests.submissions.helpers import make_submission

    make_submission(mudi_phase, alice_lab, alice)
    url = f"/api/v1/challenges/{mudi_phase.challenge.slug}/phases/{mudi_phase.slug}"
    response = client.get(url, **bearer(make_token(alice, "read")))
    assert response.status_code == 200
    quota = {q["team"]: q for q in response.json()["quota"]}
    assert quota[alice_lab.slug]["daily_used"] == 1 and quota[alice_lab.slug]["remaining"] == 4
    assert quota[alice.personal_team.slug]["remaining"] == 5
    assert quota[alice_lab.slug]["resets_at"].endswith("T00:00:00+00:00")


@pytest.mark.storage
def test_an_unknown_challenge_or_phase_is_404(client, mudi_phase):
    assert client.get("/api/v1/challenges/nope").status_code == 404
    assert client.get(f"/api/v1/challenges/{mudi_phase.challenge.slug}/phases/nope").status_code == 404


def test_every_problem_type_uri_explains_itself(client, db):
    from leaderboard.api.problems import TYPES

    for kind, (status, title, _) in TYPES.items():
        body = client.get(f"/api/v1/problems/{kind}").json()
        assert body["status"] == status and body["title"] == title and body["description"]
    assert client.get("/api/v1/problems/no-such-kind").status_code == 404
