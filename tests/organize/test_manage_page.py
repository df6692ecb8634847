"""/challenges/<slug>/manage/: edit the challenge, its organizers, export it; the audit log; who may see it."""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml
from pytest_django.asserts import assertContains, assertNotContains

from leaderboard.challenges import audit
from leaderboard.challenges.models import AuditEntry, Challenge
from tests.organize.test_new_challenge_page import form_data

# Every organizer page of the challenge (GET), with the phase and truth pages.
MANAGE_URLS = [
    "/challenges/mudi-2027/manage/",
    "/challenges/mudi-2027/manage/phases/",
    "/challenges/mudi-2027/manage/phases/new/",
    "/challenges/mudi-2027/manage/phases/development/",
    "/challenges/mudi-2027/manage/phases/development/truth/download",
    "/challenges/mudi-2027/manage/bundle.zip",
]


@pytest.mark.storage
def test_anonymous_visitors_are_sent_to_log_in(client, phase_with_truth):
    for url in MANAGE_URLS:
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), url


@pytest.mark.storage
@pytest.mark.parametrize("who", ["alice", "charlie", "otto"])
def test_participants_outsiders_and_other_organizers_get_404(client, phase_with_truth, who, request):
    client.force_login(request.getfixturevalue(who))
    for url in MANAGE_URLS:
        assert client.get(url).status_code == 404, url
    for url in ("/challenges/mudi-2027/manage/", "/challenges/mudi-2027/manage/organizers/",
                "/challenges/mudi-2027/manage/phases/development/truth/"):  # fmt: skip
        assert client.post(url, {"username": who, "title": "Mine"}).status_code == 404, url
    assert Challenge.objects.get(slug="mudi-2027").title == "MUDI held-out pairs 2027"


@pytest.mark.storage
@pytest.mark.parametrize("who", ["olga", "staff"])
def test_the_organizer_and_staff_may_manage(client, phase_with_truth, who, request):
    client.force_login(request.getfixturevalue(who))
    for url in MANAGE_URLS:
        assert client.get(url).status_code == 200, url


def test_an_unknown_challenge_or_a_standing_one_is_404(client, olga, staff):
    from leaderboard.challenges.services import sync_standing_challenges

    sync_standing_challenges()
    client.force_login(staff)
    assert client.get("/challenges/no-such/manage/").status_code == 404
    assert client.get("/challenges/mudi/manage/").status_code == 404


def test_the_organizer_edits_and_publishes_the_challenge(client, olga, challenge):
    client.force_login(olga)
    page = client.get("/challenges/mudi-2027/manage/")
    assertContains(page, 'value="MUDI held-out pairs 2027"')
    response = client.post("/challenges/mudi-2027/manage/", form_data(slug="mudi-2027", is_published="on"))
    assert response.status_code == 302
    challenge.refresh_from_db()
    assert challenge.title == "DDI 2027" and challenge.is_published
    entry = AuditEntry.objects.get(challenge=challenge, action="challenge.edit")
    assert "is_published" in entry.details["fields"] and "title" in entry.details["fields"]
    # The entry says what changed, before and after, and the audit log shows it.
    assert entry.details["changes"]["title"] == {"before": "MUDI held-out pairs 2027", "after": "DDI 2027"}
    assert entry.details["changes"]["is_published"] == {"before": False, "after": True}
    page = client.get("/challenges/mudi-2027/manage/")
    assertContains(page, "<code>title</code>: <del>MUDI held-out pairs 2027</del> → <ins>DDI 2027</ins>", html=True)
    assertContains(page, "<code>is_published</code>: <del>no</del> → <ins>yes</ins>", html=True)


def test_an_invalid_edit_changes_nothing_and_names_the_field(client, olga, challenge):
    client.force_login(olga)
    response = client.post("/challenges/mudi-2027/manage/", form_data(slug="mudi-2027", registration_mode="domains"))
    assertContains(response, "Allowed e-mail domains: Name at least one e-mail domain", status_code=400)
    challenge.refresh_from_db()
    assert challenge.title == "MUDI held-out pairs 2027"


def test_co_organizers_are_added_by_username(client, olga, charlie, challenge):
    client.force_login(olga)
    response = client.post("/challenges/mudi-2027/manage/organizers/", {"username": "charlie"})
    assert response.status_code == 302
    assert set(challenge.organizers.values_list("username", flat=True)) == {"olga", "charlie"}
    assert AuditEntry.objects.filter(challenge=challenge, action="organizer.add", target="user charlie").exists()
    client.force_login(charlie)
    assert client.get("/challenges/mudi-2027/manage/").status_code == 200


def test_an_unknown_username_is_a_clear_error(client, olga, challenge):
    client.force_login(olga)
    response = client.post("/challenges/mudi-2027/manage/organizers/", {"username": "nobody"})
    assertContains(response, "There is no user &quot;nobody&quot; on this site", status_code=400)
    assert challenge.organizers.count() == 1


def test_a_co_organizer_is_removed_but_the_last_organizer_stays(client, olga, charlie, challenge):
    challenge.organizers.add(charlie)
    client.force_login(olga)
    client.post(f"/challenges/mudi-2027/manage/organizers/{charlie.pk}/remove/")
    assert list(challenge.organizers.all()) == [olga]
    response = client.post(f"/challenges/mudi-2027/manage/organizers/{olga.pk}/remove/", follow=True)
    assertContains(response, "olga is the last organizer; add another organizer before removing them.")
    assert list(challenge.organizers.all()) == [olga]
    assert list(AuditEntry.objects.filter(challenge=challenge).values_list("action", flat=True)) == ["organizer.remove"]


def test_the_audit_log_shows_who_what_when_why_newest_first_paginated(client, olga, charlie, challenge):
    for i in range(30):
        audit.record(challenge, olga, "submission.hide", target=f"submission {i:04d}", reason=f"reason {i}")
    client.force_login(olga)
    first = client.get("/challenges/mudi-2027/manage/").content.decode()
    assert "submission 0029" in first and "reason 29" in first and "olga" in first
    assert first.index("submission 0029") < first.index("submission 0028")
    assert "submission 0004" not in first and "Page 1 of 2" in first
    second = client.get("/challenges/mudi-2027/manage/?page=2")
    assertContains(second, "submission 0004")
    assertNotContains(second, "submission 0029")


@pytest.mark.storage
def test_the_bundle_export_is_the_challenge_with_its_truth(client, olga, phase_with_truth):
    client.force_login(olga)
    page = client.get("/challenges/mudi-2027/manage/")
    assertContains(page, 'href="/challenges/mudi-2027/manage/bundle.zip"')
    response = client.get("/challenges/mudi-2027/manage/bundle.zip")
    assert response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        definition = yaml.safe_load(archive.read("challenge.yaml"))
        assert definition["challenge"]["slug"] == "mudi-2027"
        assert [p["slug"] for p in definition["phases"]] == ["development"]
        assert archive.read(definition["phases"][0]["truth"]).startswith(b"Drug1,Interaction,Drug2")
    assert AuditEntry.objects.filter(challenge=phase_with_truth.challenge, action="challenge.export").exists()


def test_the_manage_nav_links_the_pages(client, olga, challenge):
    client.force_login(olga)
    page = client.get("/challenges/mudi-2027/manage/")
    assertContains(page, 'href="/challenges/mudi-2027/manage/phases/"')
    assertContains(page, 'href="/challenges/mudi-2027/"')


def test_the_challenge_page_links_its_organizers_to_the_manage_page(client, olga, alice, challenge):
    challenge.is_published = True
    challenge.save()
    client.force_login(olga)
    assertContains(client.get("/challenges/mudi-2027/"), 'href="/challenges/mudi-2027/manage/"')
    client.force_login(alice)
    assertNotContains(client.get("/challenges/mudi-2027/"), "/manage/")


def test_the_challenge_list_offers_hosts_a_new_challenge(client, olga, alice):
    client.force_login(olga)
    assertContains(client.get("/challenges/"), 'href="/challenges/new/"')
    client.force_login(alice)
    assertNotContains(client.get("/challenges/"), 'href="/challenges/new/"')
