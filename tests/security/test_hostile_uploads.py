"""Hostile uploads through the form and the API: zero 5xx, each a 4xx with its message, nothing kept, nothing charged.

The corpus is tests/security/hostile_files.py (over 50 files). A file past the in-request
bound (the gzip bomb) is queued and the worker refuses it with the same message, failed
and not charged.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from django.test import Client

from tests.scoring.conftest import CHEMICALX_TRUTH
from tests.security.hostile_files import CASES, DEFERRED, Hostile
from tests.submissions.helpers import as_post_file, mudi_truth_csv, post_data, standing_phase_with_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

# A response that echoes a hostile file back (a 10 MB header in an error message) is a bug too.
MAX_RESPONSE_BYTES = 256 * 1024


@pytest.fixture
def phases(db, settings):
    from django.core.cache import cache

    cache.clear()
    settings.API_RATE_LIMITS = {"token": "100000/minute", "upload": "100000/minute"}
    mudi = standing_phase_with_truth("mudi", mudi_truth_csv())
    pair = standing_phase_with_truth("chemicalx-drugcomb", CHEMICALX_TRUTH.encode())
    return {"mudi": mudi, "chemicalx-drugcomb": pair}


@pytest.fixture
def token(alice):
    from leaderboard.api.tokens import create_token

    return create_token(alice, "hostile", "submit")[1]


def stored_files(settings) -> set[str]:
    roots = [Path(settings.MEDIA_ROOT), Path(settings.PRIVATE_STORAGE_ROOT)]
    return {str(p) for root in roots if root.exists() for p in root.rglob("*") if p.is_file()}


def nothing_kept(alice, phase, before: set[str], settings) -> None:
    from leaderboard.submissions import quotas
    from leaderboard.submissions.models import Submission

    assert not Submission.objects.exists()
    assert quotas.quota_for(alice.personal_team, phase).daily_used == 0
    assert stored_files(settings) == before


def form_data(case: Hostile, alice) -> dict:
    data = post_data(alice.personal_team)
    if case.task != "mudi":
        data.pop("declare_modalities")
    data["file"] = as_post_file(case.content, case.name)
    return data


def api_data(case: Hostile) -> dict:
    data = {"file": as_post_file(case.content, case.name), "method_name": "Hostile"}
    if case.task == "mudi":
        data["modalities"] = "graph"
    return data


def test_the_corpus_has_at_least_40_distinct_files():
    assert len(CASES) + len(DEFERRED) >= 40
    assert len({c.id for c in CASES + DEFERRED}) == len(CASES) + len(DEFERRED)
    assert len({c.content for c in CASES + DEFERRED}) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_form_refuses_a_hostile_file_with_its_message(client, alice, phases, case, settings):
    before = stored_files(settings)
    client.force_login(alice)
    response = client.post(f"/tasks/{case.task}/submit/", form_data(case, alice))
    assert response.status_code == 400
    body = response.content.decode()
    assert case.message in html.unescape(body), f"{case.id}: {case.message!r} is not on the page"
    assert len(response.content) < MAX_RESPONSE_BYTES
    assert "<script>alert(1)</script>" not in body  # shown, escaped, never run
    nothing_kept(alice, phases[case.task], before, settings)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_api_refuses_a_hostile_file_with_its_message(alice, token, phases, case, settings):
    before = stored_files(settings)
    response = Client().post(
        f"/api/v1/tasks/{case.task}/submissions", api_data(case), HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert response.status_code == 422, response.content[:300]
    assert response["Content-Type"].startswith("application/problem+json")
    assert len(response.content) < MAX_RESPONSE_BYTES
    problem = response.json()
    messages = [problem["detail"]] + [e["message"] for e in problem.get("errors", [])]
    assert any(case.message in m for m in messages), f"{case.id}: {messages}"
    nothing_kept(alice, phases[case.task], before, settings)


@pytest.mark.parametrize("case", DEFERRED, ids=[c.id for c in DEFERRED])
@pytest.mark.parametrize("via", ["form", "api"])
def test_a_file_past_the_bound_is_refused_by_the_worker_and_not_charged(
    client, alice, token, phases, case, via, sent, django_capture_on_commit_callbacks
):
    from leaderboard.submissions import quotas, tasks
    from leaderboard.submissions.models import Submission

    with django_capture_on_commit_callbacks(execute=True):
        if via == "form":
            client.force_login(alice)
            response = client.post(f"/tasks/{case.task}/submit/", form_data(case, alice))
            assert response.status_code == 302
        else:
            response = Client().post(
                f"/api/v1/tasks/{case.task}/submissions", api_data(case), HTTP_AUTHORIZATION=f"Bearer {token}"
            )
            assert response.status_code == 202
    submission = Submission.objects.get()
    assert tasks.score_submission.apply(args=[str(submission.pk)]).get() == "invalid"
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert case.message in submission.error_message
    assert quotas.quota_for(alice.personal_team, phases[case.task]).daily_used == 0
