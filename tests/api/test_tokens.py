"""API tokens: created on the profile (shown once, stored hashed), listed, revoked; 401/403 say why."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from django.utils import timezone

from leaderboard.api.models import ApiToken
from tests.api.helpers import bearer


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def test_the_profile_offers_to_create_a_token(alice_client):
    response = alice_client.get("/accounts/profile/")
    assert response.status_code == 200
    assert b'id="tokens"' in response.content
    assert b'action="/accounts/tokens/"' in response.content


def test_a_new_token_is_shown_once_and_only_its_hash_is_stored(alice_client, alice):
    response = alice_client.post("/accounts/tokens/", {"name": "laptop", "scope": "submit", "expires_in": "30"})
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    raw = response.context["raw"]
    assert raw.startswith("ddi_") and len(raw) > 40
    assert raw.encode() in response.content
    token = ApiToken.objects.get()
    assert token.user == alice and token.scope == "submit" and token.name == "laptop"
    assert token.token_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in {token.prefix, token.token_hash, token.name}
    assert dt.timedelta(days=29) < token.expires_at - timezone.now() <= dt.timedelta(days=30)
    profile = alice_client.get("/accounts/profile/")
    assert b"laptop" in profile.content
    assert raw.encode() not in profile.content  # never shown again
    assert token.prefix.encode() in profile.content


def test_a_token_records_when_it_was_last_used(client, alice, make_token):
    raw = make_token(alice, "read")
    assert client.get("/api/v1/submissions", **bearer(raw)).status_code == 200
    assert ApiToken.objects.get().last_used_at is not None


def test_a_revoked_token_gets_401_saying_so(alice_client, alice, make_token):
    raw = make_token(alice, "read", name="old")
    token = ApiToken.objects.get()
    response = alice_client.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert response.status_code == 302
    response = alice_client.get("/api/v1/submissions", **bearer(raw))
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["type"].endswith("/token-revoked")
    assert body["status"] == 401 and "revoked" in body["detail"]
    assert b"revoked" in alice_client.get("/accounts/profile/").content


def test_an_expired_token_gets_401_saying_so(client, alice, make_token):
    raw = make_token(alice, "read", expires_at=timezone.now() - dt.timedelta(minutes=1))
    response = client.get("/api/v1/submissions", **bearer(raw))
    assert response.status_code == 401
    assert response.json()["type"].endswith("/token-expired")
    assert "expired" in response.json()["detail"]


def test_an_unknown_or_malformed_token_gets_401(client, db):
    for header in ("Bearer ddi_nope", "Token abc", "Bearer"):
        response = client.get("/api/v1/submissions", HTTP_AUTHORIZATION=header)
        assert response.status_code == 401, header
        assert response.json()["type"].endswith("/invalid-token")
        assert response["WWW-Authenticate"].startswith("Bearer")


def test_no_token_where_one_is_needed_gets_401(client, db):
    response = client.get("/api/v1/submissions")
    assert response.status_code == 401
    assert response.json()["type"].endswith("/token-required")


@pytest.mark.storage
def test_a_read_token_cannot_submit_403_naming_the_scope(client, alice, make_token, mudi_phase):
    raw = make_token(alice, "read")
    response = client.post("/api/v1/tasks/mudi/submissions", {}, **bearer(raw))
    assert response.status_code == 403
    body = response.json()
    assert body["type"].endswith("/insufficient-scope")
    assert body["required_scope"] == "submit" and body["token_scope"] == "read"


def test_nobody_revokes_someone_elses_token(client, alice, charlie, make_token):
    make_token(alice)
    token = ApiToken.objects.get()
    client.force_login(charlie)
    assert client.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None


def test_anonymous_visitors_cannot_create_tokens(client, db):
    response = client.post("/accounts/tokens/", {"name": "x", "scope": "read"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not ApiToken.objects.exists()
