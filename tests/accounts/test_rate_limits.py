"""Team creation (per user) and sign-up (per client address) are rate-limited with a clear message."""

from __future__ import annotations

from leaderboard.accounts.models import Team, User
from tests.conftest import PASSWORD


def test_team_creation_is_limited_per_user(client, alice, charlie):
    client.force_login(alice)
    for n in range(3):
        assert client.post("/teams/new/", {"name": f"Probe {n}"}).status_code == 302
    response = client.post("/teams/new/", {"name": "Probe 3"})
    assert response.status_code == 429
    assert "Too many new teams: at most 3 per day" in response.content.decode()
    assert not Team.objects.filter(name="Probe 3").exists()
    # Another user is not affected.
    client.force_login(charlie)
    assert client.post("/teams/new/", {"name": "Charlie Lab"}).status_code == 302


def test_sign_up_is_limited_per_ip(client, db):
    def sign_up(n: int, ip: str):
        data = {"username": f"user{n}", "email": f"u{n}@example.org", "password1": PASSWORD, "password2": PASSWORD}
        response = client.post("/accounts/signup/", data, REMOTE_ADDR=ip)
        client.logout()
        return response

    for n in range(5):
        assert sign_up(n, "203.0.113.7").status_code == 302
    response = sign_up(5, "203.0.113.7")
    assert response.status_code == 429
    assert "Too many sign-ups from your network: at most 5 per hour" in response.content.decode()
    assert not User.objects.filter(username="user5").exists()
    assert sign_up(6, "198.51.100.2").status_code == 302
