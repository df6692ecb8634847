"""Failed log-ins: a progressive delay per (account, client address), a limit per address, never a lock-out.

Nobody's failures from elsewhere delay the owner; a password reset always works and ends the delay.
"""

from __future__ import annotations

import logging
import re

import pytest
from django.core import mail

from tests.conftest import PASSWORD

ALICE_HOME = "192.0.2.10"
STRANGER = "203.0.113.7"


def _log_in(client, username: str, password: str, ip: str = STRANGER):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


@pytest.fixture
def clock(monkeypatch):
    """The rate limits' clock, moved by hand (the cache's own expiry is never reached in a test)."""
    from leaderboard.accounts import ratelimit

    now = [1_000_000.0]
    monkeypatch.setattr(ratelimit.time, "time", lambda: now[0])
    return now


def test_a_stranger_failing_for_alice_does_not_keep_her_out_from_her_own_address(client, alice):
    for _ in range(30):
        _log_in(client, "alice", "wrong")  # past every delay: refused with 429, none of them tried

    assert _log_in(client, "alice", PASSWORD, ip=ALICE_HOME).status_code == 302
    assert "_auth_user_id" in client.session


def test_the_fifth_failure_makes_the_next_try_wait_and_the_delay_grows(client, alice, clock):
    for _ in range(4):
        assert _log_in(client, "alice", "wrong").status_code == 200  # typos cost nothing
    assert _log_in(client, "alice", "wrong").status_code == 200

    response = _log_in(client, "alice", PASSWORD)  # too soon: not even tried

    assert response.status_code == 429
    assert int(response["Retry-After"]) == 30
    text = response.content.decode()
    assert "5 failed log-ins for this account from your address. Wait 30 seconds before the next try." in text
    assert "_auth_user_id" not in client.session
    clock[0] += 31
    assert _log_in(client, "alice", "wrong").status_code == 200  # the 6th failure: 60 s now
    assert int(_log_in(client, "alice", PASSWORD)["Retry-After"]) == 60
    clock[0] += 61
    assert _log_in(client, "alice", PASSWORD).status_code == 302


def test_the_delay_never_passes_fifteen_minutes(client, alice, clock):
    for _ in range(12):
        _log_in(client, "alice", "wrong")
        clock[0] += 3600
    _log_in(client, "alice", "wrong")
    assert int(_log_in(client, "alice", PASSWORD)["Retry-After"]) == 900


def test_the_delay_holds_for_any_case_of_the_name(client, alice):
    for _ in range(5):
        _log_in(client, "alice", "wrong")
    assert _log_in(client, "ALICE", PASSWORD).status_code == 429


def test_a_successful_log_in_clears_the_delay_at_that_address(client, alice):
    for _ in range(4):
        _log_in(client, "alice", "wrong")
    assert _log_in(client, "alice", PASSWORD).status_code == 302
    client.logout()
    for _ in range(4):
        assert _log_in(client, "alice", "wrong").status_code == 200
    assert _log_in(client, "alice", PASSWORD).status_code == 302


def test_one_address_guessing_many_accounts_is_braked_there_only(client, alice, charlie):
    for n in range(20):
        _log_in(client, f"user{n}", "wrong")

    response = _log_in(client, "charlie", PASSWORD)

    assert response.status_code == 429
    assert "Too many failed log-ins from your network: at most 20 per 15 minutes." in response.content.decode()
    # Another address is not affected.
    assert _log_in(client, "charlie", PASSWORD, ip="192.0.2.99").status_code == 302


def test_other_accounts_are_not_delayed_by_one_accounts_failures(client, alice, charlie):
    for _ in range(6):
        _log_in(client, "alice", "wrong")
    assert _log_in(client, "charlie", PASSWORD).status_code == 302


def test_a_password_reset_works_while_delayed_and_ends_the_delay(client, alice):
    for _ in range(8):
        _log_in(client, "alice", "wrong", ip=ALICE_HOME)  # alice herself, forgetting her password
    assert _log_in(client, "alice", PASSWORD, ip=ALICE_HOME).status_code == 429

    response = client.post("/accounts/password/reset/", {"email": "alice@example.org"}, REMOTE_ADDR=ALICE_HOME)
    assert response.status_code == 302
    link = re.search(r"http://\S+/accounts/password/reset/\S+/", mail.outbox[-1].body).group(0)
    form_url = client.get(link, REMOTE_ADDR=ALICE_HOME)["Location"]
    new = "a-brand-new-passphrase-77"
    done = client.post(form_url, {"new_password1": new, "new_password2": new}, REMOTE_ADDR=ALICE_HOME)
    assert done.status_code == 302

    assert _log_in(client, "alice", new, ip=ALICE_HOME).status_code == 302


def test_failures_and_refusals_are_logged_with_the_client_address(client, alice, caplog):
    with caplog.at_level(logging.INFO, logger="leaderboard.security"):
        for _ in range(6):
            _log_in(client, "alice", "wrong")
    lines = [r.getMessage() for r in caplog.records if r.name == "leaderboard.security"]
    assert sum("login failed user='alice' client=203.0.113.7" in line for line in lines) == 5
    assert any(line.startswith("login refused: delay running user='alice' client=203.0.113.7") for line in lines)


def test_the_admin_log_in_has_the_same_brakes(client, olga):
    for _ in range(5):
        response = client.post("/admin/login/", {"username": "olga", "password": "wrong"}, REMOTE_ADDR=STRANGER)
        assert response.status_code == 200

    response = client.post("/admin/login/", {"username": "olga", "password": PASSWORD}, REMOTE_ADDR=STRANGER)

    assert response.status_code == 429
    assert "failed log-ins for this account from your address" in response.content.decode()
    assert "_auth_user_id" not in client.session
    # From her own address olga gets in.
    assert (
        client.post("/admin/login/", {"username": "olga", "password": PASSWORD}, REMOTE_ADDR=ALICE_HOME).status_code
        == 302
    )


def test_a_good_admin_log_in_clears_the_accounts_failures(client, olga):
    for _ in range(4):
        client.post("/admin/login/", {"username": "olga", "password": "wrong"})
    assert client.post("/admin/login/", {"username": "olga", "password": PASSWORD}).status_code == 302
    client.logout()
    for _ in range(4):
        client.post("/admin/login/", {"username": "olga", "password": "wrong"})
    assert client.post("/admin/login/", {"username": "olga", "password": PASSWORD}).status_code == 302
