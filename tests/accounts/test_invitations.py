"""Inviting by username, accepting, declining and withdrawing invitations."""

from django.core import mail

from leaderboard.accounts.models import Invitation, Membership


def test_an_owner_invites_a_user_by_username_and_they_get_an_email(
    client, alice_lab, alice, charlie, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/teams/alice-lab/invite/", {"username": "Charlie"})
    assert response.status_code == 302 and response["Location"] == "/teams/alice-lab/"
    invitation = Invitation.objects.get(team=alice_lab, invited_user=charlie)
    assert invitation.status == Invitation.Status.PENDING and invitation.invited_by == alice
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["charlie@example.org"]
    assert "alice invited you to join Alice Lab" == mail.outbox[0].subject
    assert "/accounts/profile/" in mail.outbox[0].body
    assert "charlie" in client.get("/teams/alice-lab/").content.decode()


def test_inviting_an_unknown_username_shows_an_error(client, alice_lab, alice):
    client.force_login(alice)
    response = client.post("/teams/alice-lab/invite/", {"username": "nobody"})
    assert response.status_code == 400
    assert "There is no user named" in response.content.decode()
    assert not Invitation.objects.exists()


def test_inviting_a_member_again_shows_an_error(client, alice_lab, alice, bob):
    client.force_login(alice)
    response = client.post("/teams/alice-lab/invite/", {"username": "bob"})
    assert response.status_code == 400
    assert "already a member" in response.content.decode()


def test_inviting_twice_shows_an_error(client, alice_lab, alice, charlie):
    client.force_login(alice)
    client.post("/teams/alice-lab/invite/", {"username": "charlie"})
    response = client.post("/teams/alice-lab/invite/", {"username": "charlie"})
    assert response.status_code == 400
    assert "already has a pending invitation" in response.content.decode()
    assert Invitation.objects.filter(invited_user=charlie).count() == 1


def test_nobody_can_be_invited_into_a_personal_team(client, alice, charlie):
    client.force_login(alice)
    response = client.post("/teams/alice/invite/", {"username": "charlie"})
    assert response.status_code == 400
    assert "personal team" in response.content.decode()


def test_a_member_who_is_not_an_owner_cannot_invite(client, alice_lab, bob, charlie):
    client.force_login(bob)
    assert client.post("/teams/alice-lab/invite/", {"username": "charlie"}).status_code == 403
    assert not Invitation.objects.exists()


def test_an_outsider_cannot_invite(client, alice_lab, charlie, olga):
    client.force_login(charlie)
    assert client.post("/teams/alice-lab/invite/", {"username": "olga"}).status_code == 404
    assert not Invitation.objects.exists()


def test_inviting_needs_post(client, alice_lab, alice):
    client.force_login(alice)
    assert client.get("/teams/alice-lab/invite/").status_code == 405


def test_the_invited_user_accepts_and_becomes_a_member(client, alice_lab, alice, charlie):
    invitation = Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(charlie)
    response = client.post(f"/accounts/invitations/{invitation.id}/accept/")
    assert response.status_code == 302 and response["Location"] == "/teams/alice-lab/"
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.ACCEPTED and invitation.responded_at is not None
    assert Membership.objects.get(team=alice_lab, user=charlie).role == Membership.Role.MEMBER
    assert client.get("/teams/alice-lab/").status_code == 200


def test_the_invited_user_declines_and_stays_out(client, alice_lab, alice, charlie):
    invitation = Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(charlie)
    response = client.post(f"/accounts/invitations/{invitation.id}/decline/")
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.DECLINED
    assert not Membership.objects.filter(team=alice_lab, user=charlie).exists()


def test_someone_else_cannot_accept_or_decline_an_invitation(client, alice_lab, alice, charlie, olga):
    invitation = Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(olga)
    assert client.post(f"/accounts/invitations/{invitation.id}/accept/").status_code == 404
    assert client.post(f"/accounts/invitations/{invitation.id}/decline/").status_code == 404
    assert not Membership.objects.filter(team=alice_lab, user=olga).exists()
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.PENDING


def test_an_answered_invitation_cannot_be_used_again(client, alice_lab, alice, charlie):
    invitation = Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(charlie)
    client.post(f"/accounts/invitations/{invitation.id}/decline/")
    assert client.post(f"/accounts/invitations/{invitation.id}/accept/").status_code == 404
    assert not Membership.objects.filter(team=alice_lab, user=charlie).exists()


def test_accepting_needs_post(client, alice_lab, alice, charlie):
    invitation = Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(charlie)
    assert client.get(f"/accounts/invitations/{invitation.id}/accept/").status_code == 405


def test_an_owner_withdraws_a_pending_invitation(client, alice_lab, alice, charlie):
    invitation = Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(alice)
    response = client.post(f"/teams/alice-lab/invitations/{invitation.id}/revoke/")
    assert response.status_code == 302
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.REVOKED
    client.force_login(charlie)
    assert client.post(f"/accounts/invitations/{invitation.id}/accept/").status_code == 404


def test_a_member_who_is_not_an_owner_cannot_withdraw_an_invitation(client, alice_lab, alice, bob, charlie):
    invitation = Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(bob)
    assert client.post(f"/teams/alice-lab/invitations/{invitation.id}/revoke/").status_code == 403


def test_an_outsider_cannot_withdraw_an_invitation(client, alice_lab, alice, charlie, olga):
    invitation = Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(olga)
    assert client.post(f"/teams/alice-lab/invitations/{invitation.id}/revoke/").status_code == 404
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.PENDING


def test_an_invitation_of_another_team_cannot_be_withdrawn_through_mine(client, alice_lab, alice, charlie, olga):
    from leaderboard.accounts.services import create_team

    create_team(olga, "Olga Org")
    invitation = Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(olga)
    assert client.post(f"/teams/olga-org/invitations/{invitation.id}/revoke/").status_code == 404


def test_pending_invitations_are_listed_for_owners_only(client, alice_lab, alice, bob, charlie):
    Invitation.objects.create(team=alice_lab, invited_user=charlie, invited_by=alice)
    client.force_login(alice)
    assert "Pending invitations" in client.get("/teams/alice-lab/").content.decode()
    client.force_login(bob)
    assert "Pending invitations" not in client.get("/teams/alice-lab/").content.decode()
