"""/teams/<slug>/leave/: leaving a team, and the rules that keep every team with an owner."""

from leaderboard.accounts.models import Membership, Team


def test_a_member_leaves_a_team(client, alice_lab, bob):
    client.force_login(bob)
    response = client.post("/teams/alice-lab/leave/")
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"
    assert not Membership.objects.filter(team=alice_lab, user=bob).exists()
    assert client.get("/teams/alice-lab/").status_code == 404


def test_the_personal_team_cannot_be_left(client, alice):
    client.force_login(alice)
    response = client.post("/teams/alice/leave/", follow=True)
    assert "You cannot leave your personal team" in response.content.decode()
    assert Membership.objects.filter(team__slug="alice", user=alice).exists()


def test_when_the_last_owner_leaves_the_longest_standing_member_becomes_owner(client, alice_lab, alice, bob):
    client.force_login(alice)
    client.post("/teams/alice-lab/leave/")
    assert not Membership.objects.filter(team=alice_lab, user=alice).exists()
    assert Membership.objects.get(team=alice_lab, user=bob).role == Membership.Role.OWNER


def test_an_owner_leaving_while_another_owner_remains_promotes_nobody(client, alice_lab, alice, bob, charlie):
    Membership.objects.create(team=alice_lab, user=charlie, role=Membership.Role.OWNER)
    client.force_login(alice)
    client.post("/teams/alice-lab/leave/")
    assert Membership.objects.get(team=alice_lab, user=bob).role == Membership.Role.MEMBER
    assert Membership.objects.get(team=alice_lab, user=charlie).role == Membership.Role.OWNER


def test_the_last_member_leaving_keeps_the_team_for_its_submissions(client, alice):
    from leaderboard.accounts.services import create_team

    create_team(alice, "Solo Lab")
    client.force_login(alice)
    client.post("/teams/solo-lab/leave/")
    team = Team.objects.get(slug="solo-lab")
    assert team.memberships.count() == 0


def test_an_outsider_cannot_leave_a_team_they_are_not_in(client, alice_lab, charlie):
    client.force_login(charlie)
    assert client.post("/teams/alice-lab/leave/").status_code == 404
    assert alice_lab.memberships.count() == 2


def test_leaving_needs_post(client, alice_lab, bob):
    client.force_login(bob)
    assert client.get("/teams/alice-lab/leave/").status_code == 405
    assert Membership.objects.filter(team=alice_lab, user=bob).exists()
