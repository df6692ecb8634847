"""The host role: manage.py grant_host (and --revoke), the staff page /staff/hosts/, and whom the pages name."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from pytest_django.asserts import assertContains, assertNotContains

HOST = "challenges.host_challenges"


def may_host(user) -> bool:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(pk=user.pk).has_perm(HOST)


def test_the_command_grants_the_role_and_the_user_creates_a_challenge(client, charlie):
    out = io.StringIO()
    call_command("grant_host", "charlie", stdout=out)
    assert "charlie can host challenges" in out.getvalue()
    assert may_host(charlie)
    client.force_login(charlie)
    assert client.get("/challenges/new/").status_code == 200


def test_the_command_revokes_the_role(charlie):
    call_command("grant_host", "charlie", stdout=io.StringIO())
    out = io.StringIO()
    call_command("grant_host", "charlie", "--revoke", stdout=out)
    assert "charlie can no longer create challenges" in out.getvalue()
    assert not may_host(charlie)


def test_the_command_names_an_unknown_user(db):
    with pytest.raises(CommandError, match="There is no user 'nobody'."):
        call_command("grant_host", "nobody")


def test_staff_grant_and_revoke_on_the_staff_page(client, staff, charlie):
    client.force_login(staff)
    page = client.get("/staff/hosts/")
    assertContains(page, "python manage.py grant_host USERNAME")
    response = client.post("/staff/hosts/", {"username": "charlie"})
    assert response.status_code == 302 and response["Location"] == "/staff/hosts/"
    assert may_host(charlie)
    assertContains(client.get("/staff/hosts/"), "<td>charlie</td><td>host role</td>", html=False)
    response = client.post("/staff/hosts/charlie/revoke/")
    assert response.status_code == 302
    assert not may_host(charlie)


def test_the_staff_page_names_an_unknown_username(client, staff):
    client.force_login(staff)
    response = client.post("/staff/hosts/", {"username": "nobody"})
    assertContains(response, "There is no user &#x27;nobody&#x27;.", status_code=400)


def test_staff_keep_the_role_whatever_the_page_says(client, staff):
    client.force_login(staff)
    client.post(f"/staff/hosts/{staff.username}/revoke/")
    page = client.get("/staff/hosts/")
    assertContains(page, "staff may always host")


def test_nobody_but_staff_sees_the_staff_page(client, olga, charlie):
    assert client.get("/staff/hosts/").status_code == 302  # log in first
    for user in (olga, charlie):  # a host, an outsider
        client.force_login(user)
        assert client.get("/staff/hosts/").status_code == 404
        assert client.post("/staff/hosts/", {"username": "charlie"}).status_code == 404
        assert client.post("/staff/hosts/charlie/revoke/").status_code == 404


def test_the_refusal_and_the_manage_page_name_the_staff_to_ask(client, olga, staff, charlie, challenge):
    client.force_login(charlie)
    assertContains(client.get("/challenges/new/"), f"a staff member ({staff.username})", status_code=403)
    client.force_login(olga)
    page = client.get("/challenges/mudi-2027/manage/")
    assertContains(page, f"asks a staff member ({staff.username}) for the host role")
    assertNotContains(page, "olga)")
