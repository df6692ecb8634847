"""POST /api/v1/submissions/<id>/final (scope submit) and POST /api/v1/challenges/<c>/phases/<p>/reveal (organize)."""

from __future__ import annotations

import pytest

from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission
from tests.api.helpers import bearer
from tests.challenges.split_phase import PRIVATE_ROWS, make_split_phase, submit_scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

REVEAL = "/api/v1/challenges/mudi-2027/phases/test/reveal"


@pytest.fixture
def phase(olga):
    return make_split_phase(olga)


@pytest.fixture
def entry(phase, alice, alice_lab):
    return submit_scored(phase, alice_lab, alice, {PRIVATE_ROWS[0]})


def final_url(submission) -> str:
    return f"/api/v1/submissions/{submission.pk}/final"


def test_a_member_selects_a_final_submission(client, entry, bob, make_token):
    response = client.post(
        final_url(entry), {"selected": True}, content_type="application/json", **bearer(make_token(bob))
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["selected_final"] is True and body["selected_count"] == 1 and body["final_selection_count"] == 2
    assert "If you select none" in body["rule"]
    assert Submission.objects.get(pk=entry.pk).selected_final


def test_a_refusal_is_a_409_problem_with_the_reason(client, entry, alice, phase, make_token):
    Phase.objects.filter(pk=phase.pk).update(final_selection_allowed=False)
    response = client.post(
        final_url(entry), {"selected": True}, content_type="application/json", **bearer(make_token(alice))
    )
    assert response.status_code == 409
    assert response["Content-Type"].startswith("application/problem+json")
    assert "does not let teams choose" in response.json()["detail"]


def test_a_read_token_may_not_select(client, entry, alice, make_token):
    response = client.post(
        final_url(entry), {"selected": True}, content_type="application/json", **bearer(make_token(alice, "read"))
    )
    assert response.status_code == 403


def test_another_team_gets_a_403_on_a_public_submission_and_a_404_on_a_private_one(
    client, phase, entry, alice, alice_lab, charlie, make_token
):
    token = make_token(charlie)
    response = client.post(final_url(entry), {"selected": True}, content_type="application/json", **bearer(token))
    assert response.status_code == 403
    hidden = submit_scored(phase, alice_lab, alice, set(), method="Secret", is_public=False)
    response = client.post(final_url(hidden), {"selected": True}, content_type="application/json", **bearer(token))
    assert response.status_code == 404
    assert not Submission.objects.filter(selected_final=True).exists()


def test_selected_must_be_given(client, entry, alice, make_token):
    response = client.post(final_url(entry), {}, content_type="application/json", **bearer(make_token(alice)))
    assert response.status_code == 422


def test_an_organizer_reveals_a_phase(client, phase, entry, olga, make_token):
    response = client.post(REVEAL, **bearer(make_token(olga, "organize")))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["final_submissions"] == 1 and body["teams"] == 1
    assert body["private_board"].endswith("/challenges/mudi-2027/test/board/private/")
    assert Phase.objects.get(pk=phase.pk).revealed_at is not None
    again = client.post(REVEAL, **bearer(make_token(olga, "organize")))
    assert again.status_code == 409 and "already revealed" in again.json()["detail"]


def test_others_get_a_404_and_nothing_is_revealed(client, phase, alice, make_token):
    response = client.post(REVEAL, **bearer(make_token(alice, "organize")))
    assert response.status_code == 404
    assert Phase.objects.get(pk=phase.pk).revealed_at is None


def test_the_reveal_needs_the_organize_scope(client, phase, olga, make_token):
    assert client.post(REVEAL, **bearer(make_token(olga, "submit"))).status_code == 403
    assert client.post(REVEAL).status_code == 401
