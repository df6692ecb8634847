"""The client's address: REMOTE_ADDR unless TRUSTED_PROXIES says a peer is a proxy whose X-Forwarded-For counts.

Straight to the site, without a proxy: a client's own X-Forwarded-For changes nothing (otherwise it would give
the anonymous API a fresh limit per request). tests/security/test_behind_nginx.py does the same behind nginx.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import PASSWORD, REPO


def _fail_log_in(client, username: str, **headers):
    return client.post("/accounts/login/", {"username": username, "password": "wrong"}, **headers)


@pytest.fixture
def tight_api(settings):
    settings.API_RATE_LIMITS = {**settings.API_RATE_LIMITS, "token": "5/minute"}


def test_a_rotating_x_forwarded_for_does_not_escape_the_anonymous_api_limit(client, db, tight_api):
    codes = [
        client.get("/api/v1/tasks", REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code
        for n in range(12)
    ]
    assert codes == [200] * 5 + [429] * 7


def test_a_spoofed_x_forwarded_for_does_not_move_a_log_in_failure_to_another_address(client, alice):
    for n in range(20):
        _fail_log_in(client, f"user{n}", REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD},
        REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="192.0.2.1",
    )  # fmt: skip
    assert response.status_code == 429


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limits(client, db, settings, tight_api):
    settings.TRUSTED_PROXIES = "10.0.0.5"
    proxy = {"REMOTE_ADDR": "10.0.0.5"}
    for _ in range(5):
        assert client.get("/api/v1/tasks", HTTP_X_FORWARDED_FOR="203.0.113.7", **proxy).status_code == 200
    assert client.get("/api/v1/tasks", HTTP_X_FORWARDED_FOR="203.0.113.7", **proxy).status_code == 429
    # Another client behind the same proxy, even one who forged an earlier hop, is not affected.
    assert client.get("/api/v1/tasks", HTTP_X_FORWARDED_FOR="203.0.113.7, 198.51.100.2", **proxy).status_code == 200
    # The forged hop does not make the proxy's client anyone else either.
    for _ in range(4):
        client.get("/api/v1/tasks", HTTP_X_FORWARDED_FOR="192.0.2.66, 198.51.100.2", **proxy)
    assert client.get("/api/v1/tasks", HTTP_X_FORWARDED_FOR="192.0.2.77, 198.51.100.2", **proxy).status_code == 429


def test_a_peer_that_is_not_a_trusted_proxy_is_the_client_whatever_it_forwards(client, db, settings, tight_api):
    settings.TRUSTED_PROXIES = "10.0.0.0/24"
    for n in range(5):
        client.get("/api/v1/tasks", REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
    assert client.get("/api/v1/tasks", REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="10.0.0.9").status_code == 429


def test_a_count_of_proxies_takes_the_address_that_many_hops_back(client, alice, settings):
    settings.TRUSTED_PROXIES = "2"  # a load balancer, then nginx
    for n in range(20):
        _fail_log_in(
            client, f"user{n}", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR=f"1.2.3.{n}, 203.0.113.7, 10.0.0.1"
        )
    good = {"username": "alice", "password": PASSWORD}
    assert (
        client.post(
            "/accounts/login/", good, REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="203.0.113.7, 10.0.0.1"
        ).status_code
        == 429
    )
    assert (
        client.post(
            "/accounts/login/", good, REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="192.0.2.8, 10.0.0.1"
        ).status_code
        == 302
    )


def test_sign_ups_from_one_address_behind_the_proxy_leave_others_their_own(client, db, settings):
    settings.TRUSTED_PROXIES = "10.0.0.5"

    def sign_up(n: int, client_address: str):
        data = {"username": f"user{n}", "email": f"u{n}@example.org", "password1": PASSWORD, "password2": PASSWORD}
        return client.post("/accounts/signup/", data, REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR=client_address)

    for n in range(5):
        assert sign_up(n, "203.0.113.7").status_code == 302
    assert sign_up(5, "203.0.113.7").status_code == 429
    assert sign_up(6, "198.51.100.2").status_code == 302


def test_x_forwarded_proto_counts_only_from_a_trusted_proxy(client, db, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.TRUSTED_PROXIES = "10.0.0.5"
    # From anyone else the header is dropped: the plain request is redirected to HTTPS.
    assert client.get("/", REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_PROTO="https").status_code == 301
    assert client.get("/", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_PROTO="https").status_code == 200


def test_a_malformed_trusted_proxies_stops_the_start(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_VERSION"}
    env.update(TRUSTED_PROXIES="nginx.internal", VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="leaderboard.settings")
    code = "from django.core.wsgi import get_wsgi_application; get_wsgi_application()"
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    assert result.returncode != 0
    assert "TRUSTED_PROXIES: 'nginx.internal' is not an address or network" in result.stderr
