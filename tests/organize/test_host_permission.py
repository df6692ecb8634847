"""Who may host: staff grant "can host challenges" in the admin; the profile says so and links to the form."""

from __future__ import annotations

from django.contrib.auth.models import Permission
from pytest_django.asserts import assertContains, assertNotContains

from tests.organize.conftest import grant_host


def test_staff_grant_the_permission_on_the_users_admin_page(client, db, charlie):
    from leaderboard.accounts.services import create_user
    from tests.conftest import PASSWORD

    admin = create_user("root", "root@example.org", PASSWORD, email_verified=True)
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    page = client.get(f"/admin/accounts/user/{charlie.pk}/change/")
    assertContains(page, "Can host challenges")
    permission = Permission.objects.get(codename="host_challenges")
    form = page.context["adminform"].form
    data = {name: form[name].value() for name in form.fields if form[name].value() is not None}
    data.update({"user_permissions": [permission.pk], "groups": [], "date_joined_0": "2026-01-01",
                 "date_joined_1": "00:00:00", "last_login_0": "", "last_login_1": ""})  # fmt: skip
    data = {k: v for k, v in data.items() if not isinstance(v, bool) or v}
    response = client.post(f"/admin/accounts/user/{charlie.pk}/change/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else ""
    charlie.refresh_from_db()
    from django.contrib.auth import get_user_model

    assert get_user_model().objects.get(pk=charlie.pk).has_perm("challenges.host_challenges")


def test_the_profile_of_a_host_links_to_the_new_challenge_form(client, charlie):
    client.force_login(charlie)
    assertNotContains(client.get("/accounts/profile/"), "You can host challenges")
    grant_host(charlie)
    response = client.get("/accounts/profile/")
    assertContains(response, "You can host challenges")
    assertContains(response, 'href="/challenges/new/"')


def test_a_user_without_the_permission_gets_a_403_page_saying_how_to_get_it(client, charlie):
    client.force_login(charlie)
    for url in ("/challenges/new/", "/challenges/import/"):
        response = client.get(url)
        assertContains(response, "needs the host role", status_code=403)
        assertContains(response, "python manage.py grant_host YOUR-USERNAME", status_code=403)
        assertContains(response, "/staff/hosts/", status_code=403)


def test_anonymous_visitors_are_sent_to_log_in(client, db):
    for url in ("/challenges/new/", "/challenges/import/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_hosts_and_staff_get_the_form(client, olga, staff):
    for user in (olga, staff):
        client.force_login(user)
        assertContains(client.get("/challenges/new/"), "Create the challenge")
