"""/api/v1/challenges/<slug>/registration: see, make and withdraw a registration with the register page's rules."""

# ruff: noqa: F811 (the fixtures imported from tests.challenges.participants are test arguments)
from __future__ import annotations

import pytest

from leaderboard.challenges.models import Registration
from tests.api.helpers import bearer
from tests.challenges.participants import mudi_2027  # noqa: F401

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

URL = "/api/v1/challenges/mudi-2027/registration"


def kind(response) -> str:
    return response.json()["type"].rsplit("/", 1)[-1]


def test_it_registers_the_personal_team_and_reports_it(client, alice, make_token, mudi_2027):
    token = make_token(alice, "submit")
    assert client.get(URL, **bearer(token)).json()["registered"] is False
    response = client.post(URL, {}, content_type="application/json", **bearer(token))
    assert response.status_code == 201
    body = response.json()
    assert (body["team"], body["status"], body["can_withdraw"]) == (alice.personal_team.slug, "approved", True)
    assert body["terms_url"].endswith("/challenges/mudi-2027/register/")
    assert client.get(URL, **bearer(token)).json()["status"] == "approved"


def test_a_named_team_in_approval_mode_waits_for_the_organizers(client, alice, alice_lab, make_token, mudi_2027):
    mudi_2027.registration_mode = "approval"
    mudi_2027.save(update_fields=["registration_mode"])
    response = client.post(URL, {"team": alice_lab.slug}, content_type="application/json",
                           **bearer(make_token(alice, "submit")))  # fmt: skip
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "pending" and "waiting for the organizers' approval" in body["detail"]


def test_the_pages_rules_refuse_with_their_sentence(client, alice, make_token, mudi_2027):
    mudi_2027.terms = "Be nice."
    mudi_2027.save(update_fields=["terms"])
    token = make_token(alice, "submit")
    refused = client.post(URL, {}, content_type="application/json", **bearer(token))
    assert (refused.status_code, kind(refused)) == (409, "registration-refused")
    assert refused.json()["detail"] == "Accept the challenge's terms to register."
    accepted = client.post(URL, {"accept_terms": True}, content_type="application/json", **bearer(token))
    assert accepted.status_code == 201
    again = client.post(URL, {"accept_terms": True}, content_type="application/json", **bearer(token))
    assert (again.status_code, kind(again)) == (409, "registration-refused")


def test_withdrawing_before_any_submission(client, alice, make_token, mudi_2027):
    token = make_token(alice, "submit")
    client.post(URL, {}, content_type="application/json", **bearer(token))
    response = client.delete(URL, **bearer(token))
    assert response.status_code == 200 and response.json()["registered"] is False
    assert not Registration.objects.exists()
    nothing = client.delete(URL, **bearer(token))
    assert (nothing.status_code, kind(nothing)) == (409, "registration-refused")


def test_a_read_token_may_look_but_not_register_and_a_standing_challenge_is_404(client, alice, make_token, mudi_2027):
    token = make_token(alice, "read")
    assert client.get(URL, **bearer(token)).status_code == 200
    refused = client.post(URL, {}, content_type="application/json", **bearer(token))
    assert (refused.status_code, kind(refused)) == (403, "insufficient-scope")
    assert client.get("/api/v1/challenges/nope/registration", **bearer(token)).status_code == 404
    assert client.get(URL).status_code == 401


def test_the_phase_links_its_inputs_and_example_once_offered(client, mudi_2027):
    phases = {p["slug"]: p["links"] for p in client.get("/api/v1/challenges/mudi-2027").json()["phases"]}
    assert phases["dev"]["inputs"] == "http://testserver/challenges/mudi-2027/dev/inputs.csv"
    assert phases["dev"]["example"] == "http://testserver/challenges/mudi-2027/dev/example.csv"
    assert phases["test"]["inputs"] is None and phases["test"]["example"] is None  # it opens in 10 days
    assert client.get(phases["dev"]["inputs"]).status_code == 200


def test_an_unknown_phase_names_the_challenges_phases(client, mudi_2027):
    response = client.get("/api/v1/challenges/mudi-2027/phases/final")
    assert response.status_code == 404
    assert response.json()["detail"] == "No phase 'final' in 'mudi-2027'; its phases: dev, test."
    assert client.get("/api/v1/challenges/nope/phases/dev").json()["detail"] == "No challenge 'nope'."
