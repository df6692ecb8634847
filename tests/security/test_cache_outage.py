"""A cache outage (Redis restarting) never turns a request into a 5xx: every limit kept in the cache fails open.

bench/faults.py found it: during a 2-second Redis restart, 65 of 120 API uploads got a 500
from the API's rate limit reading the cache. The site's own limits (sign-up, teams, upload
slots) already failed open; now the API's do too.
"""

from __future__ import annotations

import pytest
from django.test import Client

from tests.submissions.helpers import as_post_file, mudi_prediction_csv, mudi_truth_csv, standing_phase_with_truth


class Down(Exception):
    """What a cache backend raises when its server is gone (redis.exceptions.ConnectionError in production)."""


@pytest.fixture
def cache_down(monkeypatch):
    from django.core.cache import cache

    def fail(*args, **kwargs):
        raise Down("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    for name in ("get", "set", "add", "incr", "decr", "delete", "get_many", "set_many"):
        monkeypatch.setattr(cache, name, fail)


def test_the_api_answers_reads_while_the_cache_is_down(db, cache_down):
    assert Client().get("/api/v1/tasks").status_code == 200


@pytest.mark.storage
def test_an_api_upload_is_accepted_while_the_cache_is_down(
    alice, cache_down, monkeypatch, django_capture_on_commit_callbacks
):
    from leaderboard.api.tokens import create_token
    from leaderboard.submissions import queueing

    sent: list[str] = []
    monkeypatch.setattr(queueing, "enqueue", lambda submission_id: sent.append(str(submission_id)) or True)
    standing_phase_with_truth("mudi", mudi_truth_csv())
    token = create_token(alice, "outage", "submit")[1]
    with django_capture_on_commit_callbacks(execute=True):
        response = Client().post(
            "/api/v1/tasks/mudi/submissions",
            {"file": as_post_file(mudi_prediction_csv()), "method_name": "DuringOutage", "modalities": "graph"},
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )
    assert response.status_code == 202, response.content[:500]
    assert len(sent) == 1


def test_the_sites_pages_and_forms_answer_while_the_cache_is_down(alice, cache_down):
    client = Client()
    client.force_login(alice)
    assert client.get("/teams/new/").status_code == 200
    response = client.post("/teams/new/", {"name": "Outage Lab"})
    assert response.status_code == 302
