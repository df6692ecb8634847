"""Password resets, sign-ups and invitations send a bounded number of mails, per sender and per recipient."""

from __future__ import annotations

from django.core import mail

from leaderboard.accounts.models import Invitation
from tests.conftest import PASSWORD


def test_twenty_resets_of_one_address_send_at_most_the_limit(client, alice):
    responses = [
        client.post("/accounts/password/reset/", {"email": "alice@example.org"}, REMOTE_ADDR=f"198.51.100.{n}")
        for n in range(20)
    ]

    assert len(mail.outbox) == 3
    # Every answer is the same "if an account uses that address" page: the limit reveals no account.
    assert all(r.status_code == 302 and r["Location"] == "/accounts/password/reset/sent/" for r in responses)


def test_resets_of_an_unknown_address_look_the_same(client, db):
    response = client.post("/accounts/password/reset/", {"email": "nobody@example.org"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password/reset/sent/"
    assert mail.outbox == []


def test_one_client_asking_for_many_addresses_is_told_to_wait(client, alice):
    for n in range(10):
        client.post("/accounts/password/reset/", {"email": f"probe{n}@example.org"}, REMOTE_ADDR="203.0.113.9")

    response = client.post("/accounts/password/reset/", {"email": "alice@example.org"}, REMOTE_ADDR="203.0.113.9")

    assert response.status_code == 429
    assert "Too many password-reset requests from your network: at most 10 per hour." in response.content.decode()
    assert mail.outbox == []


def test_invite_and_revoke_cycles_send_at_most_the_limit_per_invitee(
    client, alice, alice_lab, charlie, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    for _ in range(8):
        with django_capture_on_commit_callbacks(execute=True):
            client.post("/teams/alice-lab/invite/", {"username": "charlie"})
        pending = Invitation.objects.filter(invited_user=charlie, status=Invitation.Status.PENDING).first()
        if pending is not None:
            client.post(f"/teams/alice-lab/invitations/{pending.pk}/revoke/")

    assert len(mail.outbox) == 5
    response = client.post("/teams/alice-lab/invite/", {"username": "charlie"})
    assert response.status_code == 429
    assert "Too many invitations to charlie: at most 5 per hour." in response.content.decode()


def test_a_team_sends_at_most_ten_invitations_an_hour(client, alice, alice_lab, django_capture_on_commit_callbacks):
    from leaderboard.accounts.services import create_user

    client.force_login(alice)
    for n in range(12):
        create_user(f"guest{n}", f"guest{n}@example.org", "x-unused-password-1")
        with django_capture_on_commit_callbacks(execute=True):
            client.post("/teams/alice-lab/invite/", {"username": f"guest{n}"})

    assert len(mail.outbox) == 10
    response = client.post("/teams/alice-lab/invite/", {"username": "guest11"})
    assert "Too many invitations from this team: at most 10 per hour." in response.content.decode()


def test_sign_ups_with_one_address_send_it_at_most_three_mails_an_hour(client, alice):
    """Per recipient: whoever signs up with it, from wherever, and whether or not it has an account."""
    for n in range(10):
        data = {"username": f"probe{n}", "email": "alice@example.org", "password1": PASSWORD, "password2": PASSWORD}
        response = client.post("/accounts/signup/", data, REMOTE_ADDR=f"198.51.100.{n}")
        # The answer never changes, so the limit reveals nothing either.
        assert response.status_code == 302 and response["Location"] == "/accounts/signup/sent/"
    for n in range(10):
        data = {"username": f"new{n}", "email": "new@example.org", "password1": PASSWORD, "password2": PASSWORD}
        client.post("/accounts/signup/", data, REMOTE_ADDR=f"192.0.2.{n}")

    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.org"] * 3 + ["new@example.org"] * 3


def test_one_client_signing_up_many_addresses_is_told_to_wait(client, db):
    """Per sender: the client's address (5 sign-ups an hour, each a mail)."""
    codes = [
        client.post(
            "/accounts/signup/",
            {"username": f"u{n}", "email": f"u{n}@example.org", "password1": PASSWORD, "password2": PASSWORD},
            REMOTE_ADDR="203.0.113.9",
        ).status_code
        for n in range(7)
    ]
    assert codes == [302] * 5 + [429] * 2
    assert len(mail.outbox) == 5


def test_one_owner_inviting_from_several_teams_is_braked_as_a_sender(
    client, alice, alice_lab, settings, django_capture_on_commit_callbacks
):
    from leaderboard.accounts.services import create_team, create_user

    settings.RATE_LIMITS = {"invite-mail-sender": (4, 3600)}
    second = create_team(alice, "Alice Second Lab")
    client.force_login(alice)
    codes = []
    for n in range(6):
        create_user(f"guest{n}", f"guest{n}@example.org", "x-unused-password-1")
        slug = alice_lab.slug if n % 2 else second.slug
        with django_capture_on_commit_callbacks(execute=True):
            codes.append(client.post(f"/teams/{slug}/invite/", {"username": f"guest{n}"}).status_code)

    assert codes == [302] * 4 + [429] * 2
    assert len(mail.outbox) == 4
    response = client.post(f"/teams/{alice_lab.slug}/invite/", {"username": "guest5"})
    assert "Too many invitations sent by you: at most 4 per hour." in response.content.decode()
