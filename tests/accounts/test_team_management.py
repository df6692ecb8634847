"""Owners remove members and hand a team over; leaving asks first; the team page lists submissions and quotas."""

from __future__ import annotations

import pytest

from leaderboard.accounts.models import Membership
from tests.submissions.helpers import make_submission, mudi_truth_csv, standing_phase_with_truth


def test_an_owner_removes_a_member_who_loses_access(client, alice_lab, alice, bob):
    client.force_login(alice)
    response = client.post(f"/teams/alice-lab/members/{bob.pk}/remove/")
    assert response.status_code == 302 and response["Location"] == "/teams/alice-lab/"
    assert not Membership.objects.filter(team=alice_lab, user=bob).exists()
    assert "bob is no longer a member of Alice Lab." in client.get("/teams/alice-lab/").content.decode()
    client.force_login(bob)
    assert client.get("/teams/alice-lab/").status_code == 404


def test_an_owner_cannot_remove_themselves_that_way(client, alice_lab, alice):
    client.force_login(alice)
    page = client.post(f"/teams/alice-lab/members/{alice.pk}/remove/", follow=True).content.decode()
    assert "use Leave team" in page
    assert Membership.objects.filter(team=alice_lab, user=alice).exists()


def test_a_member_who_is_not_an_owner_cannot_remove_or_hand_over(client, alice_lab, alice, bob):
    client.force_login(bob)
    assert client.post(f"/teams/alice-lab/members/{alice.pk}/remove/").status_code == 403
    assert client.post(f"/teams/alice-lab/members/{bob.pk}/hand-over/").status_code == 403
    assert Membership.objects.get(team=alice_lab, user=alice).role == Membership.Role.OWNER


def test_an_outsider_cannot_remove_or_hand_over(client, alice_lab, bob, charlie):
    client.force_login(charlie)
    assert client.post(f"/teams/alice-lab/members/{bob.pk}/remove/").status_code == 404
    assert client.post(f"/teams/alice-lab/members/{bob.pk}/hand-over/").status_code == 404


def test_removing_someone_who_is_not_a_member_is_a_404(client, alice_lab, alice, charlie):
    client.force_login(alice)
    assert client.post(f"/teams/alice-lab/members/{charlie.pk}/remove/").status_code == 404


def test_an_owner_hands_the_team_over_and_becomes_a_member(client, alice_lab, alice, bob):
    client.force_login(alice)
    response = client.post(f"/teams/alice-lab/members/{bob.pk}/hand-over/", follow=True)
    assert "bob now owns Alice Lab; you are a member." in response.content.decode()
    assert Membership.objects.get(team=alice_lab, user=bob).role == Membership.Role.OWNER
    assert Membership.objects.get(team=alice_lab, user=alice).role == Membership.Role.MEMBER
    assert client.post(f"/teams/alice-lab/members/{bob.pk}/remove/").status_code == 403


def test_owner_actions_are_shown_to_owners_only(client, alice_lab, alice, bob):
    client.force_login(alice)
    page = client.get("/teams/alice-lab/").content.decode()
    assert f'action="/teams/alice-lab/members/{bob.pk}/remove/"' in page
    assert f'action="/teams/alice-lab/members/{bob.pk}/hand-over/"' in page
    assert f'action="/teams/alice-lab/members/{alice.pk}/remove/"' not in page
    client.force_login(bob)
    assert "/members/" not in client.get("/teams/alice-lab/").content.decode()


def test_leaving_asks_for_confirmation_first(client, alice_lab, bob):
    client.force_login(bob)
    page = client.get("/teams/alice-lab/").content.decode()
    assert 'href="/teams/alice-lab/leave/confirm/"' in page
    assert 'action="/teams/alice-lab/leave/"' not in page
    confirm = client.get("/teams/alice-lab/leave/confirm/")
    assert confirm.status_code == 200
    assert "Leave Alice Lab?" in confirm.content.decode()
    assert 'action="/teams/alice-lab/leave/"' in confirm.content.decode()
    assert Membership.objects.filter(team=alice_lab, user=bob).exists()


def test_the_personal_team_has_no_leave_confirmation(client, alice):
    client.force_login(alice)
    response = client.get(f"/teams/{alice.personal_team.slug}/leave/confirm/")
    assert response.status_code == 302


def test_an_outsider_gets_no_leave_confirmation(client, alice_lab, charlie):
    client.force_login(charlie)
    assert client.get("/teams/alice-lab/leave/confirm/").status_code == 404


@pytest.mark.storage
def test_the_team_page_lists_the_teams_submissions_and_its_quota_per_task(client, alice_lab, alice, bob):
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    make_submission(phase, alice_lab, alice, method_name="LabMethod", is_public=False)
    make_submission(phase, bob.personal_team, bob, method_name="SoloMethod")
    client.force_login(bob)
    page = client.get("/teams/alice-lab/").content.decode()
    assert "LabMethod" in page and "SoloMethod" not in page
    assert "Quota per task" in page
    assert f"{phase.daily_limit - 1} of {phase.daily_limit} left today" in page


def test_a_pending_invitation_shows_as_a_badge_in_the_navigation(client, alice_lab, alice, charlie):
    client.force_login(alice)
    client.post("/teams/alice-lab/invite/", {"username": "charlie"})
    client.force_login(charlie)
    page = client.get("/benchmarks/").content.decode()
    assert 'class="badge badge-accent invitations-badge" href="/accounts/profile/#invitations"' in page
    assert "1 invitation<" in page
    client.force_login(alice)
    assert "invitations-badge" not in client.get("/benchmarks/").content.decode()


def test_logging_out_says_so(client, alice):
    client.force_login(alice)
    response = client.post("/accounts/logout/", follow=True)
    assert "You have logged out." in response.content.decode()
