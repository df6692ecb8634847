"""/challenges/<slug>/register/: a team joins an organized challenge, accepts its terms, or is refused with why."""

# ruff: noqa: F811 (the fixtures imported from tests.challenges.participants are test arguments)

from __future__ import annotations

import pytest
from pytest_django.asserts import assertContains, assertNotContains, assertRedirects

from leaderboard.challenges.models import Registration
from tests.challenges.participants import mudi_2027, register, sent, submit_to  # noqa: F401

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def set_fields(challenge, **fields):
    for name, value in fields.items():
        setattr(challenge, name, value)
    challenge.save()
    return challenge


def test_anonymous_visitors_are_sent_to_the_login_page(client, mudi_2027):
    response = client.get("/challenges/mudi-2027/register/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/challenges/mudi-2027/register/")


def test_an_unpublished_challenge_cannot_be_registered_for(alice_client, mudi_2027):
    set_fields(mudi_2027, is_published=False)
    assert alice_client.get("/challenges/mudi-2027/register/").status_code == 404
    assert alice_client.post("/challenges/mudi-2027/register/", {"team": 1}).status_code == 404
    assert not Registration.objects.exists()


def test_the_page_offers_the_users_teams(alice_client, mudi_2027, alice_lab):
    response = alice_client.get("/challenges/mudi-2027/register/")
    assertContains(response, "Just me (my personal team)")
    assertContains(response, "Alice Lab (2 members)")
    assertContains(response, "Open to everyone")


def test_an_open_challenge_approves_the_team_at_once(alice_client, alice, mudi_2027):
    response = alice_client.post(
        "/challenges/mudi-2027/register/", {"team": alice.personal_team.pk, "wants_announcements": "on"}
    )
    assertRedirects(response, "/challenges/mudi-2027/", fetch_redirect_response=False)
    registration = Registration.objects.get()
    assert (registration.team, registration.user, registration.status) == (alice.personal_team, alice, "approved")
    assert registration.wants_announcements is True
    assert registration.accepted_terms_at is None  # no terms to accept
    page = alice_client.get("/challenges/mudi-2027/")
    assertContains(page, "is registered: you can submit to the open phases.")
    assertContains(page, '<span class="badge status-approved">Approved</span>', html=True)


def test_the_announcements_opt_in_is_stored(alice_client, alice, mudi_2027):
    alice_client.post("/challenges/mudi-2027/register/", {"team": alice.personal_team.pk})
    assert Registration.objects.get().wants_announcements is False


def test_approval_mode_leaves_the_team_pending_and_says_so(alice_client, alice, mudi_2027):
    set_fields(mudi_2027, registration_mode="approval")
    assertContains(alice_client.get("/challenges/mudi-2027/register/"), "The organizers approve each team")
    response = alice_client.post("/challenges/mudi-2027/register/", {"team": alice.personal_team.pk}, follow=True)
    assertContains(response, "is registered and waiting for the organizers&#x27; approval.")
    assert Registration.objects.get().status == "pending"
    assertContains(alice_client.get("/challenges/mudi-2027/register/"), "Waiting for approval")


def test_terms_must_be_accepted_and_the_time_is_stored(alice_client, alice, mudi_2027):
    set_fields(mudi_2027, terms="Do not **probe** the public split.")
    page = alice_client.get("/challenges/mudi-2027/register/")
    assertContains(page, "<strong>probe</strong>", html=False)
    assertContains(page, "I accept the terms above for my team")
    response = alice_client.post("/challenges/mudi-2027/register/", {"team": alice.personal_team.pk})
    assert response.status_code == 400
    assertContains(response, "Accept the challenge&#x27;s terms to register.", status_code=400)
    assert not Registration.objects.exists()
    alice_client.post("/challenges/mudi-2027/register/", {"team": alice.personal_team.pk, "accept_terms": "on"})
    assert Registration.objects.get().accepted_terms_at is not None


def test_a_challenge_without_terms_asks_for_none(alice_client, mudi_2027):
    assertNotContains(alice_client.get("/challenges/mudi-2027/register/"), "I accept the terms")


def test_a_domain_restricted_challenge_refuses_other_domains_with_the_reason(alice_client, alice, mudi_2027):
    set_fields(mudi_2027, registration_mode="domains", allowed_domains=["uni-example.edu"])
    response = alice_client.post("/challenges/mudi-2027/register/", {"team": alice.personal_team.pk})
    assertContains(
        response,
        "This challenge is open to addresses at uni-example.edu (and their subdomains) only; yours is at example.org.",
        status_code=400,
    )
    assert not Registration.objects.exists()


@pytest.mark.parametrize(
    ("address", "allowed"),
    [("alice@uni-example.edu", True), ("alice@cs.uni-example.edu", True), ("alice@evil-uni-example.edu", False),
     ("alice@uni-example.edu.attacker.org", False), ("ALICE@UNI-EXAMPLE.EDU", True)],
)  # fmt: skip
def test_an_allowed_domain_admits_its_subdomains_on_whole_labels(alice_client, alice, mudi_2027, address, allowed):
    set_fields(mudi_2027, registration_mode="domains", allowed_domains=["uni-example.edu"])
    alice.email = address
    alice.save()
    alice_client.post("/challenges/mudi-2027/register/", {"team": alice.personal_team.pk})
    assert Registration.objects.filter(status="approved").exists() is allowed


def test_an_unverified_address_cannot_register(alice_client, alice, mudi_2027):
    alice.email_verified = False
    alice.save()
    response = alice_client.post("/challenges/mudi-2027/register/", {"team": alice.personal_team.pk})
    assertContains(response, "Verify your e-mail address before registering", status_code=400)
    assert not Registration.objects.exists()


def test_a_team_over_the_size_limit_is_refused_with_both_numbers(alice_client, alice_lab, mudi_2027):
    set_fields(mudi_2027, max_team_size=1)
    response = alice_client.post("/challenges/mudi-2027/register/", {"team": alice_lab.pk})
    assertContains(
        response, "The team Alice Lab has 2 members; this challenge allows at most 1 per team.", status_code=400
    )
    assert not Registration.objects.exists()


def test_a_person_already_in_another_registered_team_is_refused(client, alice, bob, alice_lab, mudi_2027):
    register(alice_lab, alice, mudi_2027)
    client.force_login(bob)
    response = client.post("/challenges/mudi-2027/register/", {"team": bob.personal_team.pk})
    # bob's page shows Alice Lab's registration, so he cannot even reach the form...
    assert response.status_code == 200
    assertContains(response, "Your team: Alice Lab")
    assert Registration.objects.count() == 1


def test_the_service_refuses_a_second_team_of_the_same_person(bob, alice, alice_lab, mudi_2027):
    from leaderboard.challenges import registration

    register(alice_lab, alice, mudi_2027)
    with pytest.raises(registration.RegistrationRefused, match="^You are already in the team Alice Lab"):
        registration.register(mudi_2027, bob.personal_team, bob, accept_terms=True)


def test_a_team_with_a_member_of_another_registered_team_is_refused(alice_client, alice, bob, alice_lab, mudi_2027):
    register(bob.personal_team, bob, mudi_2027)
    response = alice_client.post("/challenges/mudi-2027/register/", {"team": alice_lab.pk})
    # alice is not in bob's personal team, so she gets the form, and the refusal names bob.
    assertContains(
        response,
        "bob is already in the team bob, which is registered for this challenge: "
        "a person takes part through one team only.",
        status_code=400,
    )
    assert Registration.objects.count() == 1


def test_a_rejected_registration_does_not_hold_its_members(alice_client, alice, bob, alice_lab, mudi_2027):
    register(bob.personal_team, bob, mudi_2027, status="rejected", reason="Duplicate account.")
    alice_client.post("/challenges/mudi-2027/register/", {"team": alice_lab.pk})
    assert Registration.objects.filter(team=alice_lab, status="approved").exists()


def test_after_a_rejection_the_page_offers_another_team(alice_client, alice, alice_lab, mudi_2027):
    register(alice.personal_team, alice, mudi_2027, status="rejected", reason="Use your lab's team.")
    page = alice_client.get("/challenges/mudi-2027/register/")
    assertContains(page, "Reason: Use your lab&#x27;s team.")
    assertContains(page, "Register another team")
    alice_client.post("/challenges/mudi-2027/register/", {"team": alice_lab.pk})
    assert Registration.objects.get(team=alice_lab).status == "approved"
    assertContains(alice_client.get("/challenges/mudi-2027/register/"), "Your team: Alice Lab")


def test_a_team_registers_only_once(alice_client, alice, mudi_2027):
    from leaderboard.challenges import registration

    register(alice.personal_team, alice, mudi_2027)
    with pytest.raises(registration.RegistrationRefused, match="already registered for this challenge"):
        registration.register(mudi_2027, alice.personal_team, alice, accept_terms=True)
    assert Registration.objects.count() == 1


def test_an_organizer_cannot_take_part(client, olga, mudi_2027):
    client.force_login(olga)
    response = client.post("/challenges/mudi-2027/register/", {"team": olga.personal_team.pk})
    assertContains(response, "includes an organizer of this challenge", status_code=400)
    assert not Registration.objects.exists()


def test_a_finished_challenge_takes_no_registration(alice_client, alice, mudi_2027):
    from django.utils import timezone

    mudi_2027.phases.update(starts_at=timezone.now().replace(year=2020), ends_at=timezone.now().replace(year=2021))
    assertContains(alice_client.get("/challenges/mudi-2027/register/"), "Registration is closed")
    alice_client.post("/challenges/mudi-2027/register/", {"team": alice.personal_team.pk})
    assert not Registration.objects.exists()


def test_someone_elses_team_cannot_be_registered(alice_client, charlie, mudi_2027):
    response = alice_client.post("/challenges/mudi-2027/register/", {"team": charlie.personal_team.pk})
    assert response.status_code == 400
    assert not Registration.objects.exists()


@pytest.mark.parametrize("status", ["rejected", "disqualified"])
def test_a_rejected_or_disqualified_team_sees_the_reason(alice_client, alice, mudi_2027, status):
    register(alice.personal_team, alice, mudi_2027, status=status, reason="Labels found in the inputs.")
    for url in ("/challenges/mudi-2027/register/", "/challenges/mudi-2027/"):
        assertContains(alice_client.get(url), "Labels found in the inputs.")


def test_the_reason_is_not_shown_to_others(client, alice, charlie, mudi_2027):
    register(alice.personal_team, alice, mudi_2027, status="rejected", reason="Labels found in the inputs.")
    client.force_login(charlie)
    for url in ("/challenges/mudi-2027/register/", "/challenges/mudi-2027/"):
        assertNotContains(client.get(url), "Labels found in the inputs.")


def test_a_team_withdraws_before_its_first_submission(alice_client, alice, mudi_2027):
    register(alice.personal_team, alice, mudi_2027)
    assertContains(alice_client.get("/challenges/mudi-2027/register/"), "Withdraw the registration")
    response = alice_client.post("/challenges/mudi-2027/register/withdraw")
    assertRedirects(response, "/challenges/mudi-2027/", fetch_redirect_response=False)
    assert not Registration.objects.exists()


def test_a_team_that_submitted_cannot_withdraw(alice_client, alice, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027)
    submit_to(alice_client, alice.personal_team)
    assertNotContains(alice_client.get("/challenges/mudi-2027/register/"), "Withdraw the registration")
    response = alice_client.post("/challenges/mudi-2027/register/withdraw", follow=True)
    assertContains(response, "has already submitted to this challenge, so its registration stays.")
    assert Registration.objects.count() == 1


def test_a_disqualified_team_cannot_withdraw_to_start_again(alice_client, alice, mudi_2027):
    register(alice.personal_team, alice, mudi_2027, status="disqualified")
    response = alice_client.post("/challenges/mudi-2027/register/withdraw", follow=True)
    assertContains(response, "A disqualified registration cannot be withdrawn")
    assert Registration.objects.count() == 1


def test_withdraw_takes_post_only(alice_client, alice, mudi_2027):
    register(alice.personal_team, alice, mudi_2027)
    assert alice_client.get("/challenges/mudi-2027/register/withdraw").status_code == 405
    assert Registration.objects.count() == 1
