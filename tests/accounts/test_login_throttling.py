"""Issue 14, item 9: failed log-ins are braked per account and per client address; a success resets the account."""

from __future__ import annotations

from tests.conftest import PASSWORD


def _log_in(client, username: str, password: str, ip: str = "203.0.113.7"):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_five_failures_lock_the_account_with_a_message_saying_when_to_retry(client, alice):
    for _ in range(5):
        assert _log_in(client, "alice", "wrong").status_code == 200

    response = _log_in(client, "alice", PASSWORD)  # even the right password is not tried now

    assert response.status_code == 429
    text = response.content.decode()
    assert "Too many failed log-ins for this account: at most 5 per 15 minutes." in text
    assert "Try again in about" in text
    assert int(response["Retry-After"]) <= 900
    assert "_auth_user_id" not in client.session


def test_the_account_lock_holds_from_another_address_and_for_any_case_of_the_name(client, alice):
    for n in range(5):
        _log_in(client, "alice", "wrong", ip=f"198.51.100.{n}")
    assert _log_in(client, "ALICE", PASSWORD, ip="192.0.2.1").status_code == 429


def test_a_successful_log_in_resets_the_accounts_failures(client, alice):
    for _ in range(4):
        _log_in(client, "alice", "wrong")
    assert _log_in(client, "alice", PASSWORD).status_code == 302
    client.logout()
    for _ in range(4):
        assert _log_in(client, "alice", "wrong").status_code == 200
    assert _log_in(client, "alice", PASSWORD).status_code == 302


def test_one_address_guessing_many_accounts_is_braked(client, alice, charlie):
    for n in range(20):
        _log_in(client, f"user{n}", "wrong")

    response = _log_in(client, "charlie", PASSWORD)

    assert response.status_code == 429
    assert "Too many failed log-ins from your network: at most 20 per 15 minutes." in response.content.decode()
    # Another address is not affected.
    assert _log_in(client, "charlie", PASSWORD, ip="192.0.2.99").status_code == 302


def test_other_accounts_are_not_locked_by_one_accounts_failures(client, alice, charlie):
    for _ in range(6):
        _log_in(client, "alice", "wrong")
    assert _log_in(client, "charlie", PASSWORD).status_code == 302


def test_the_admin_log_in_has_the_same_brakes(client, olga):
    for _ in range(5):
        response = client.post("/admin/login/", {"username": "olga", "password": "wrong"}, REMOTE_ADDR="203.0.113.7")
        assert response.status_code == 200

    response = client.post("/admin/login/", {"username": "olga", "password": PASSWORD}, REMOTE_ADDR="203.0.113.7")

    assert response.status_code == 429
    assert "Too many failed log-ins for this account" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_good_admin_log_in_clears_the_accounts_failures(client, olga):
    for _ in range(4):
        client.post("/admin/login/", {"username": "olga", "password": "wrong"})
    assert client.post("/admin/login/", {"username": "olga", "password": PASSWORD}).status_code == 302
    client.logout()
    for _ in range(4):
        client.post("/admin/login/", {"username": "olga", "password": "wrong"})
    assert client.post("/admin/login/", {"username": "olga", "password": PASSWORD}).status_code == 302
