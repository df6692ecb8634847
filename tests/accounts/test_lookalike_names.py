"""A username or team name that looks like an existing one (Cyrillic а, accents, ...) is refused."""

from __future__ import annotations

import pytest
from django.core import mail

from leaderboard.accounts.models import Team, User
from leaderboard.accounts.names import skeleton
from leaderboard.accounts.services import create_team, create_user
from tests.conftest import PASSWORD, finish_sign_up

CYRILLIC_A = "\u0430"


@pytest.fixture
def baselines(db):
    return create_user("Baselines", "baselines@example.org", None)


def _sign_up(client, username: str):
    data = {"username": username, "email": "new@example.org", "password1": PASSWORD, "password2": PASSWORD}
    return client.post("/accounts/signup/", data)


@pytest.mark.parametrize(
    "name",
    [
        f"B{CYRILLIC_A}selines",  # Cyrillic а
        "Ｂａｓｅｌｉｎｅｓ",  # fullwidth (NFKC)
        "Basel\u00ednes",  # í
        "Base\u200dlines",  # a zero-width joiner
        "BASELINES",
    ],
)
def test_sign_up_refuses_a_lookalike_of_an_existing_team_or_user(client, baselines, name):
    response = _sign_up(client, name)
    assert response.status_code == 200
    assert not User.objects.filter(username=name).exists()
    text = response.content.decode()
    # NFKC makes the fullwidth and upper-case forms the same name (Django's "already exists").
    assert "looks like the existing name “Baselines”" in text or "already exists" in text


def test_the_message_names_the_lookalike_and_says_what_to_do(client, baselines):
    text = _sign_up(client, f"B{CYRILLIC_A}selines").content.decode()
    assert f"“B{CYRILLIC_A}selines” looks like the existing name “Baselines”" in text
    assert "Choose a name that reads differently." in text


def test_a_name_that_reads_differently_is_accepted(client, baselines):
    assert _sign_up(client, "Baseliner").status_code == 302
    finish_sign_up(client, mail.outbox[-1])
    assert User.objects.filter(username="Baseliner").exists()


def test_a_team_name_is_checked_against_usernames_and_teams(client, alice, baselines):
    client.force_login(alice)
    response = client.post("/teams/new/", {"name": f"B{CYRILLIC_A}selines"})
    assert response.status_code == 200
    assert "looks like the existing name “Baselines”" in response.content.decode()
    assert not Team.objects.filter(name=f"B{CYRILLIC_A}selines").exists()
    assert client.post("/teams/new/", {"name": "Baseline Lab"}).status_code == 302


def test_a_team_rename_in_the_admin_refuses_a_lookalike(client, olga, alice, baselines):
    olga.is_superuser = True
    olga.save(update_fields=["is_superuser"])
    team = create_team(alice, "Alice Lab")
    client.force_login(olga)

    def rename(name: str):
        data = {
            "name": name,
            "slug": team.slug,
            "memberships-TOTAL_FORMS": "0",
            "memberships-INITIAL_FORMS": "0",
            "memberships-MIN_NUM_FORMS": "0",
            "memberships-MAX_NUM_FORMS": "1000",
        }
        return client.post(f"/admin/accounts/team/{team.pk}/change/", data)

    response = rename(f"B{CYRILLIC_A}selines")
    assert response.status_code == 200
    assert "looks like the existing name" in response.content.decode()
    team.refresh_from_db()
    assert team.name == "Alice Lab"
    assert rename("Alice Research").status_code == 302
    team.refresh_from_db()
    assert team.name == "Alice Research" and team.name_key == skeleton("Alice Research")


def test_a_username_rename_refuses_a_lookalike_and_leaves_existing_rows_alone(db, baselines):
    from leaderboard.accounts.forms import AdminUserChangeForm

    # Two rows that already look alike (made before the rule) stay as they are and can still be edited.
    twin = create_user(f"B{CYRILLIC_A}selines", "twin@example.org", None)
    assert User.objects.filter(name_key=skeleton("Baselines")).count() == 2

    def admin_form(user, **changes):
        form = AdminUserChangeForm(instance=user)
        data = {name: form[name].value() for name in form.fields if form[name].value() is not None}
        data.pop("password", None)
        data.update(changes)
        for field in ("last_login", "date_joined"):
            data.pop(field, None)
        return AdminUserChangeForm(data=data, instance=user)

    unchanged = admin_form(twin, email="twin2@example.org")
    assert "username" not in unchanged.errors
    renamed = admin_form(create_user("dana", "dana@example.org", None), username="Basel\u00ednes")
    assert "looks like the existing name" in str(renamed.errors["username"])


def test_existing_names_get_their_key_when_saved_and_renamed(db):
    user = create_user("Ada", "ada@example.org", None)
    assert user.name_key == "ada"
    user.username = f"{CYRILLIC_A}da"
    user.save(update_fields=["username"])
    user.refresh_from_db()
    assert user.name_key == "ada"
