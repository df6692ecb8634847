"""/challenges/new/: a host creates a challenge; it starts unpublished and the creator organizes it."""

from __future__ import annotations

from pytest_django.asserts import assertContains, assertNotContains

from leaderboard.challenges.models import AuditEntry, Challenge


def form_data(**overrides) -> dict:
    data = {
        "title": "DDI 2027",
        "slug": "ddi-2027",
        "overview": "Predict **interactions**. <script>alert(1)</script>",
        "rules": "One team per person.",
        "data_description": "MUDI pairs.",
        "terms": "Share your code.",
        "registration_mode": "open",
        "allowed_domains": "",
        "max_team_size": "3",
        "contact_email": "ddi@example.org",
    }
    data.update(overrides)
    return data


def test_a_host_creates_a_challenge_and_becomes_its_organizer(client, olga):
    client.force_login(olga)
    response = client.post("/challenges/new/", form_data())
    assert response.status_code == 302 and response["Location"] == "/challenges/ddi-2027/manage/"
    challenge = Challenge.objects.get(slug="ddi-2027")
    assert challenge.kind == "organized" and not challenge.is_published
    assert list(challenge.organizers.all()) == [olga]
    assert challenge.max_team_size == 3 and challenge.terms == "Share your code."
    entry = AuditEntry.objects.get(challenge=challenge)
    assert (entry.actor, entry.action) == (olga, "challenge.create")


def test_the_overview_is_sanitised_when_shown(client, olga):
    client.force_login(olga)
    client.post("/challenges/new/", form_data())
    page = client.get("/challenges/ddi-2027/")
    assertContains(page, "<strong>interactions</strong>")
    assertNotContains(page, "<script>alert(1)</script>")


def test_the_slug_must_be_new_and_not_reserved(client, olga, challenge):
    client.force_login(olga)
    taken = client.post("/challenges/new/", form_data(slug="mudi-2027"))
    assertContains(taken, "Challenge with this Slug already exists.", status_code=400)
    reserved = client.post("/challenges/new/", form_data(slug="import"))
    assertContains(reserved, "&quot;import&quot; is reserved", status_code=400)
    assert not Challenge.objects.filter(slug="import").exists()


def test_domain_registration_needs_a_domain_and_each_must_be_one(client, olga):
    client.force_login(olga)
    missing = client.post("/challenges/new/", form_data(registration_mode="domains"))
    assertContains(missing, "Name at least one e-mail domain", status_code=400)
    wrong = client.post("/challenges/new/", form_data(registration_mode="domains", allowed_domains="not a domain"))
    assertContains(wrong, "is not an e-mail domain", status_code=400)
    assert not Challenge.objects.filter(slug="ddi-2027").exists()
    client.post("/challenges/new/", form_data(registration_mode="domains", allowed_domains="@Uni-Example.edu\nlab.org"))
    assert Challenge.objects.get(slug="ddi-2027").allowed_domains == ["uni-example.edu", "lab.org"]


def test_errors_name_their_field(client, olga):
    client.force_login(olga)
    response = client.post("/challenges/new/", form_data(title="", contact_email="nobody", max_team_size="0"))
    assert response.status_code == 400
    assertContains(response, 'href="#field-title">Title: This field is required.', status_code=400)
    assertContains(response, "Contact e-mail: Enter a valid email address.", status_code=400)
    assertContains(response, "Maximum team size: A team has at least one member", status_code=400)


def test_a_published_challenge_is_listed(client, olga):
    client.force_login(olga)
    client.post("/challenges/new/", form_data(is_published="on"))
    client.logout()
    assertContains(client.get("/challenges/"), "DDI 2027")
