"""/accounts/signup/: the form mails a link; the link creates the account with its personal team and logs in.

The form answers the same whether or not the address already has an account: the mail says which.
"""

import re

from django.contrib.auth import get_user_model
from django.core import mail

from leaderboard.accounts.models import Membership, PendingSignup, Team
from tests.conftest import finish_sign_up, signup_link

GOOD = {"username": "dora", "email": "dora@example.org", "password1": "a-long-unusual-pass-42", "password2": ""}
GOOD["password2"] = GOOD["password1"]


def test_the_signup_page_shows_the_form(client, db):
    response = client.get("/accounts/signup/")
    assert response.status_code == 200
    for name in ("username", "email", "password1", "password2"):
        assert f'name="{name}"' in response.content.decode()


def test_the_form_mails_a_link_and_creates_nothing_yet(client, db):
    response = client.post("/accounts/signup/", GOOD)

    assert response.status_code == 302 and response["Location"] == "/accounts/signup/sent/"
    page = client.get(response["Location"]).content.decode()
    assert "We sent a message to dora@example.org. Open the link in it to finish signing up." in page
    assert not get_user_model().objects.filter(username="dora").exists()
    assert "_auth_user_id" not in client.session
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["dora@example.org"]
    assert "Finish creating your DDI Leaderboard account" == mail.outbox[0].subject


def test_the_link_creates_the_verified_user_and_a_personal_team_and_logs_them_in(client, db):
    client.post("/accounts/signup/", GOOD)
    confirm = client.get(signup_link(mail.outbox[0])).content.decode()
    assert "Create the account <strong>dora</strong> for dora@example.org" in confirm

    response = client.post(signup_link(mail.outbox[0]))

    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"
    user = get_user_model().objects.get(username="dora")
    assert user.email == "dora@example.org" and user.email_verified and user.email_results is True
    assert user.check_password(GOOD["password1"])
    team = Team.objects.get(memberships__user=user)
    assert team.personal and team.name == "dora"
    assert Membership.objects.get(team=team, user=user).role == Membership.Role.OWNER
    profile = client.get("/accounts/profile/")
    assert "Welcome, dora" in profile.content.decode()
    assert not PendingSignup.objects.exists()


def test_a_registered_address_gets_the_same_answer_and_a_reminder_by_mail(client, alice):
    new = client.post("/accounts/signup/", GOOD)
    new_page = client.get(new["Location"]).content.decode()
    taken = client.post("/accounts/signup/", {**GOOD, "username": "dora2", "email": "ALICE@example.org"})
    taken_page = client.get(taken["Location"]).content.decode()

    assert (taken.status_code, taken["Location"]) == (new.status_code, new["Location"])
    assert taken_page == new_page.replace("dora@example.org", "ALICE@example.org")
    assert not get_user_model().objects.filter(username="dora2").exists()
    reminder = mail.outbox[-1]
    assert reminder.to == ["alice@example.org"] and "its username is alice." in reminder.body
    assert "/accounts/password/reset/" in reminder.body and "/accounts/signup/confirm/" not in reminder.body


def test_a_link_works_once_and_a_made_up_one_not_at_all(client, db):
    client.post("/accounts/signup/", GOOD)
    finish_sign_up(client, mail.outbox[0])
    client.logout()
    for path in (signup_link(mail.outbox[0]), "/accounts/signup/confirm/made-up/"):
        response = client.post(path, follow=True)
        assert "This sign-up link is invalid, used or expired" in response.content.decode()
    assert get_user_model().objects.filter(username="dora").count() == 1


def test_a_name_taken_while_the_link_waited_is_said_at_the_link(client, db):
    from leaderboard.accounts.services import create_user

    client.post("/accounts/signup/", GOOD)
    create_user("Dora", "someone@example.org", None)
    response = finish_sign_up(client, mail.outbox[0])
    assert response["Location"] == "/accounts/signup/"
    assert "The username dora was taken while the link waited" in client.get("/accounts/signup/").content.decode()
    assert not get_user_model().objects.filter(email="dora@example.org").exists()


def test_it_rejects_a_password_that_django_validators_refuse(client, db):
    data = {**GOOD, "password1": "12345678", "password2": "12345678"}
    response = client.post("/accounts/signup/", data)
    assert response.status_code == 200
    assert "too common" in response.content.decode() or "entirely numeric" in response.content.decode()
    assert mail.outbox == []


def test_it_rejects_a_password_similar_to_the_username(client, db):
    data = {**GOOD, "username": "averylongname", "password1": "averylongname1", "password2": "averylongname1"}
    response = client.post("/accounts/signup/", data)
    assert "too similar" in response.content.decode()


def test_it_rejects_a_taken_username_whatever_its_case(client, alice):
    response = client.post("/accounts/signup/", {**GOOD, "username": "Alice"})
    assert response.status_code == 200
    assert mail.outbox == []


def test_it_requires_an_email(client, db):
    response = client.post("/accounts/signup/", {**GOOD, "email": ""})
    assert response.status_code == 200
    assert mail.outbox == []


def test_a_personal_team_gets_a_fresh_name_when_the_username_is_taken_as_a_team_name(client, alice):
    from leaderboard.accounts.services import create_team

    create_team(alice, "dora")
    client.post("/accounts/signup/", GOOD)
    finish_sign_up(client, mail.outbox[0])
    team = Team.objects.get(memberships__user__username="dora")
    assert team.personal and team.name == "dora (2)"


def test_it_follows_a_safe_next_url_but_not_an_external_one(client, db):
    client.post("/accounts/signup/?next=/benchmarks/", GOOD)
    assert finish_sign_up(client, mail.outbox[-1])["Location"] == "/benchmarks/"
    client.logout()
    other = {**GOOD, "username": "eve", "email": "eve@example.org"}
    client.post("/accounts/signup/?next=https://evil.example/", other)
    assert finish_sign_up(client, mail.outbox[-1])["Location"] == "/accounts/profile/"


def test_a_logged_in_user_is_sent_to_the_profile(client, alice):
    client.force_login(alice)
    response = client.get("/accounts/signup/")
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"


def test_the_mail_link_points_at_the_site(client, db, settings):
    settings.SITE_URL = "https://ddi.example.org"
    client.post("/accounts/signup/", GOOD)
    assert re.search(r"https://ddi\.example\.org/accounts/signup/confirm/\S+/", mail.outbox[0].body)
