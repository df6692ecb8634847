"""manage.py ensure_demo_user: the login that make run prints."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from leaderboard.accounts.models import User


def test_it_creates_the_demo_user_with_a_personal_team_and_prints_the_login(db, settings):
    settings.DEBUG = True
    out = StringIO()
    call_command("ensure_demo_user", stdout=out)
    assert "Demo login: demo / demo-leaderboard" in out.getvalue()
    user = User.objects.get(username="demo")
    assert user.check_password("demo-leaderboard")
    assert user.personal_team.name == "demo"


def test_running_it_again_resets_the_password_and_creates_nothing(db, settings):
    settings.DEBUG = True
    call_command("ensure_demo_user", stdout=StringIO())
    user = User.objects.get(username="demo")
    user.set_password("changed-by-someone")
    user.save()
    call_command("ensure_demo_user", stdout=StringIO())
    assert User.objects.filter(username="demo").count() == 1
    user.refresh_from_db()
    assert user.check_password("demo-leaderboard")


def test_demo_password_comes_from_the_environment(db, settings, monkeypatch):
    settings.DEBUG = True
    monkeypatch.setenv("DEMO_PASSWORD", "another-demo-pass")
    out = StringIO()
    call_command("ensure_demo_user", stdout=out)
    assert "demo / another-demo-pass" in out.getvalue()


def test_it_refuses_with_debug_off(db, settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG off"):
        call_command("ensure_demo_user", stdout=StringIO())
    assert not User.objects.filter(username="demo").exists()


def test_the_demo_login_is_refused_with_debug_off_even_if_the_row_exists(client, db, settings):
    from leaderboard.ops.demo import demo_password

    settings.DEBUG = True
    call_command("ensure_demo_user", stdout=StringIO())
    response = client.post("/accounts/login/", {"username": "demo", "password": demo_password()})
    assert response.status_code == 302
    client.logout()

    settings.DEBUG = False
    response = client.post("/accounts/login/", {"username": "demo", "password": demo_password()})
    assert response.status_code == 200 and "_auth_user_id" not in client.session


def test_a_demo_session_from_development_ends_with_debug_off(client, db, settings):
    settings.DEBUG = True
    call_command("ensure_demo_user", stdout=StringIO())
    client.force_login(User.objects.get(username="demo"))
    settings.DEBUG = False
    assert client.get("/accounts/profile/").status_code == 302  # sent to the login page
