"""/accounts/profile/: account info, the email toggle, teams, invitations and submissions."""

import re

import pytest

from leaderboard.accounts.models import Invitation


def test_the_profile_needs_login(client, db):
    response = client.get("/accounts/profile/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/accounts/profile/"


def test_the_profile_shows_account_info_and_teams(client, alice_lab, alice):
    client.force_login(alice)
    response = client.get("/accounts/profile/")
    body = response.content.decode()
    assert response.status_code == 200
    assert "alice@example.org" in body
    assert 'href="/teams/alice/"' in body and "personal" in body
    assert 'href="/teams/alice-lab/"' in body and "2 members" in body
    assert "Email me when a submission is scored" in body
    assert re.search(r'<input type="checkbox" name="email_results"[^>]* checked>', body)


def test_the_email_toggle_turns_notifications_off_and_on(client, alice):
    client.force_login(alice)
    response = client.post("/accounts/profile/notifications/", {})
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"
    alice.refresh_from_db()
    assert alice.email_results is False
    client.post("/accounts/profile/notifications/", {"email_results": "on"})
    alice.refresh_from_db()
    assert alice.email_results is True


def test_the_email_toggle_only_accepts_post(client, alice):
    client.force_login(alice)
    assert client.get("/accounts/profile/notifications/").status_code == 405


def test_the_email_toggle_needs_login(client, alice):
    response = client.post("/accounts/profile/notifications/", {})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.email_results is True


def test_the_profile_lists_pending_invitations(client, alice_lab, alice, charlie):
    Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(charlie)
    body = client.get("/accounts/profile/").content.decode()
    assert "alice</strong> invited you to <strong>Alice Lab" in body
    assert "/accept/" in body and "/decline/" in body


def test_the_profile_says_so_when_there_are_no_submissions(client, alice):
    client.force_login(alice)
    assert "No submissions yet" in client.get("/accounts/profile/").content.decode()


@pytest.fixture
def lab_phase(db):
    from leaderboard.challenges.models import Challenge, Phase

    challenge = Challenge.objects.create(slug="mudi", title="MUDI", family="mudi")
    return Phase.objects.create(challenge=challenge, slug="mudi", title="MUDI", task_slug="mudi")


def _submission(phase, team, user, name, **fields):
    from leaderboard.submissions.models import Submission

    return Submission.objects.create(
        phase=phase, team=team, user=user, method_name=name, file_name="p.csv", sha256="0" * 64, **fields
    )


def test_the_profile_lists_my_and_my_teams_submissions_but_not_others(
    client, lab_phase, alice_lab, alice, bob, charlie
):
    mine = _submission(lab_phase, alice.personal_team, alice, "AliceNet", status="scored", primary_value=0.4602)
    teammates = _submission(lab_phase, alice_lab, bob, "BobNet")
    _submission(lab_phase, charlie.personal_team, charlie, "CharlieNet")
    client.force_login(alice)
    body = client.get("/accounts/profile/").content.decode()
    assert f'href="/submissions/{mine.id}/"' in body and "AliceNet" in body
    assert f'href="/submissions/{teammates.id}/"' in body and "BobNet" in body
    assert "CharlieNet" not in body
    assert 'href="/tasks/mudi/"' in body
    assert "0.4602" in body
    assert 'class="pill pill-scored"' in body and 'class="pill pill-queued"' in body


def test_the_profile_says_when_the_user_may_host_challenges(client, alice):
    from django.contrib.auth.models import Permission
    from pytest_django.asserts import assertContains, assertNotContains

    client.force_login(alice)
    assertNotContains(client.get("/accounts/profile/"), "You can host challenges")
    alice.user_permissions.add(Permission.objects.get(codename="host_challenges"))
    assertContains(client.get("/accounts/profile/"), "You can host challenges")
