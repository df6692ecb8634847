"""Password change (logged in) and password reset by email (console backend by default)."""

import re

from django.core import mail

from tests.conftest import PASSWORD

NEW = "an-even-longer-new-pass-77"


def test_password_change_needs_login(client, db):
    response = client.get("/accounts/password/change/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/accounts/password/change/")


def test_a_user_changes_their_password(client, alice):
    client.force_login(alice)
    assert client.get("/accounts/password/change/").status_code == 200
    response = client.post(
        "/accounts/password/change/",
        {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW},
    )
    assert response.status_code == 302 and response["Location"] == "/accounts/password/change/done/"
    assert "Password changed" in client.get("/accounts/password/change/done/").content.decode()
    alice.refresh_from_db()
    assert alice.check_password(NEW)


def test_password_change_applies_django_validators(client, alice):
    client.force_login(alice)
    response = client.post(
        "/accounts/password/change/", {"old_password": PASSWORD, "new_password1": "abc", "new_password2": "abc"}
    )
    assert response.status_code == 200
    assert "too short" in response.content.decode()


def test_password_reset_emails_a_link_that_sets_a_new_password(client, alice):
    assert client.get("/accounts/password/reset/").status_code == 200
    response = client.post("/accounts/password/reset/", {"email": "alice@example.org"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password/reset/sent/"
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["alice@example.org"]
    assert "Reset your DDI Leaderboard password" in message.subject
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/\S+/)", message.body).group(1)

    form_page = client.get(link, follow=True)
    assert "Choose a new password" in form_page.content.decode()
    set_url = form_page.redirect_chain[-1][0]
    done = client.post(set_url, {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302 and done["Location"] == "/accounts/password/reset/done/"
    alice.refresh_from_db()
    assert alice.check_password(NEW)
    assert "Password set" in client.get("/accounts/password/reset/done/").content.decode()


def test_password_reset_for_an_unknown_address_sends_nothing_and_reveals_nothing(client, db):
    response = client.post("/accounts/password/reset/", {"email": "nobody@example.org"})
    assert response["Location"] == "/accounts/password/reset/sent/"
    assert mail.outbox == []


def test_a_forged_reset_link_is_refused(client, alice):
    response = client.get("/accounts/password/reset/MQ/not-a-token/", follow=True)
    assert "This link has expired" in response.content.decode()


def test_a_too_common_password_is_flagged_under_the_password_not_the_confirmation(client, db):
    data = {"username": "dora", "email": "dora@example.org", "password1": "password123", "password2": "password123"}
    response = client.post("/accounts/signup/", data)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "This password is too common." in errors["password1"]
    assert "password2" not in errors
    page = response.content.decode()
    assert page.index("This password is too common.") < page.index('name="password2"')


def test_a_new_password_is_flagged_under_the_new_password_field(client, alice):
    client.force_login(alice)
    response = client.post(
        "/accounts/password/change/",
        {"old_password": PASSWORD, "new_password1": "password123", "new_password2": "password123"},
    )
    errors = response.context["form"].errors
    assert "This password is too common." in errors["new_password1"] and "new_password2" not in errors
