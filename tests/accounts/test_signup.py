"""/accounts/signup/: create an account with its personal team, then land logged in on the profile."""

from django.contrib.auth import get_user_model

from leaderboard.accounts.models import Membership, Team

GOOD = {"username": "dora", "email": "dora@example.org", "password1": "a-long-unusual-pass-42", "password2": ""}
GOOD["password2"] = GOOD["password1"]


def test_the_signup_page_shows_the_form(client, db):
    response = client.get("/accounts/signup/")
    assert response.status_code == 200
    for name in ("username", "email", "password1", "password2"):
        assert f'name="{name}"' in response.content.decode()


def test_it_creates_the_user_and_a_personal_team_and_logs_them_in(client, db):
    response = client.post("/accounts/signup/", GOOD)
    assert response.status_code == 302
    assert response["Location"] == "/accounts/profile/"
    user = get_user_model().objects.get(username="dora")
    assert user.email == "dora@example.org"
    assert user.email_results is True
    team = Team.objects.get(memberships__user=user)
    assert team.personal and team.name == "dora"
    assert Membership.objects.get(team=team, user=user).role == Membership.Role.OWNER
    profile = client.get("/accounts/profile/")
    assert profile.status_code == 200
    assert "Welcome, dora" in profile.content.decode()


def test_it_rejects_a_password_that_django_validators_refuse(client, db):
    data = {**GOOD, "password1": "12345678", "password2": "12345678"}
    response = client.post("/accounts/signup/", data)
    assert response.status_code == 200
    assert "too common" in response.content.decode() or "entirely numeric" in response.content.decode()
    assert not get_user_model().objects.filter(username="dora").exists()


def test_it_rejects_a_password_similar_to_the_username(client, db):
    data = {**GOOD, "username": "averylongname", "password1": "averylongname1", "password2": "averylongname1"}
    response = client.post("/accounts/signup/", data)
    assert "too similar" in response.content.decode()


def test_it_rejects_an_email_already_used_whatever_its_case(client, alice):
    response = client.post("/accounts/signup/", {**GOOD, "email": "ALICE@example.org"})
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert not get_user_model().objects.filter(username="dora").exists()


def test_it_rejects_a_taken_username_whatever_its_case(client, alice):
    response = client.post("/accounts/signup/", {**GOOD, "username": "Alice"})
    assert response.status_code == 200
    assert not get_user_model().objects.filter(email="dora@example.org").exists()


def test_it_requires_an_email(client, db):
    response = client.post("/accounts/signup/", {**GOOD, "email": ""})
    assert response.status_code == 200
    assert not get_user_model().objects.filter(username="dora").exists()


def test_a_personal_team_gets_a_fresh_name_when_the_username_is_taken_as_a_team_name(client, alice):
    from leaderboard.accounts.services import create_team

    create_team(alice, "dora")
    client.post("/accounts/signup/", GOOD)
    team = Team.objects.get(memberships__user__username="dora")
    assert team.personal and team.name == "dora (2)"


def test_it_follows_a_safe_next_url_but_not_an_external_one(client, db):
    response = client.post("/accounts/signup/?next=/benchmarks/", GOOD)
    assert response["Location"] == "/benchmarks/"
    client.logout()
    other = {**GOOD, "username": "eve", "email": "eve@example.org"}
    response = client.post("/accounts/signup/?next=https://evil.example/", other)
    assert response["Location"] == "/accounts/profile/"


def test_a_logged_in_user_is_sent_to_the_profile(client, alice):
    client.force_login(alice)
    response = client.get("/accounts/signup/")
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"
