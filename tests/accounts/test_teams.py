"""/teams/new/ and /teams/<slug>/: creating a team and who may see it."""

from leaderboard.accounts.models import Membership, Team


def test_creating_a_team_needs_login(client, db):
    response = client.get("/teams/new/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert client.post("/teams/new/", {"name": "X"}).status_code == 302
    assert not Team.objects.filter(name="X").exists()


def test_a_user_creates_a_team_and_owns_it(client, alice):
    client.force_login(alice)
    assert client.get("/teams/new/").status_code == 200
    response = client.post("/teams/new/", {"name": "  Graph   Lab "})
    team = Team.objects.get(name="Graph Lab")
    assert response.status_code == 302 and response["Location"] == f"/teams/{team.slug}/"
    assert team.slug == "graph-lab" and not team.personal
    assert Membership.objects.get(team=team, user=alice).role == Membership.Role.OWNER


def test_team_names_are_unique_whatever_their_case(client, alice_lab, charlie):
    client.force_login(charlie)
    response = client.post("/teams/new/", {"name": "alice lab"})
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert Team.objects.filter(name__iexact="alice lab").count() == 1


def test_a_team_name_that_slugifies_to_nothing_still_gets_a_slug(client, alice):
    client.force_login(alice)
    client.post("/teams/new/", {"name": "???"})
    assert Team.objects.get(name="???").slug == "team"


def test_members_see_the_team_page_with_its_members(client, alice_lab, bob):
    client.force_login(bob)
    response = client.get("/teams/alice-lab/")
    body = response.content.decode()
    assert response.status_code == 200
    assert "Alice Lab" in body and "alice" in body and "bob" in body
    assert "Owner" in body and "Member" in body


def test_members_who_are_not_owners_do_not_get_the_invite_form(client, alice_lab, bob):
    client.force_login(bob)
    assert 'action="/teams/alice-lab/invite/"' not in client.get("/teams/alice-lab/").content.decode()


def test_owners_get_the_invite_form(client, alice_lab, alice):
    client.force_login(alice)
    assert 'action="/teams/alice-lab/invite/"' in client.get("/teams/alice-lab/").content.decode()


def test_an_outsider_gets_404_on_a_team_page(client, alice_lab, charlie):
    client.force_login(charlie)
    assert client.get("/teams/alice-lab/").status_code == 404


def test_an_anonymous_visitor_is_sent_to_login_from_a_team_page(client, alice_lab):
    response = client.get("/teams/alice-lab/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_an_unknown_team_is_404(client, alice):
    client.force_login(alice)
    assert client.get("/teams/no-such-team/").status_code == 404


def test_the_personal_team_page_explains_it_has_one_member(client, alice):
    client.force_login(alice)
    body = client.get("/teams/alice/").content.decode()
    assert "personal team" in body
    assert "/leave/" not in body and "/invite/" not in body


def test_a_team_named_like_a_team_url_gets_another_slug(client, alice):
    client.force_login(alice)
    response = client.post("/teams/new/", {"name": "New"})
    assert response["Location"] == "/teams/new-2/"
    assert client.get("/teams/new-2/").status_code == 200
