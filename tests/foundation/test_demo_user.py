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
