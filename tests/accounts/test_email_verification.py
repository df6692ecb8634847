"""Submitting needs a verified address; an unverified one gets a signed link by mail; resending is rate-limited."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from leaderboard.accounts.models import User
from leaderboard.submissions.models import Submission
from tests.conftest import PASSWORD, finish_sign_up
from tests.submissions.helpers import (
    as_post_file,
    mudi_prediction_csv,
    mudi_truth_csv,
    post_data,
    standing_phase_with_truth,
)


def sign_up(client, username="dana", email="dana@example.org"):
    """An account whose address is not verified (made by an admin, or before sign-up confirmed addresses),
    logged in, with a verification link mailed from its profile."""
    from leaderboard.accounts.services import create_user

    user = create_user(username, email, PASSWORD)
    client.force_login(user)
    return client.post("/accounts/verify/resend/")


def link_in(message) -> str:
    return re.search(r"https?://[^/\s]+(/accounts/verify/[^\s]+/)", message.body).group(1)


def test_the_mailed_link_verifies_the_address(client, db):
    assert sign_up(client).status_code == 302
    dana = User.objects.get(username="dana")
    assert not dana.email_verified
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["dana@example.org"]
    response = client.get(link_in(mail.outbox[0]), follow=True)
    assert "dana@example.org is verified" in response.content.decode()
    dana.refresh_from_db()
    assert dana.email_verified


def test_an_account_made_by_signing_up_is_verified_by_its_sign_up_link(client, db):
    data = {"username": "dora", "email": "dora@example.org", "password1": PASSWORD, "password2": PASSWORD}
    client.post("/accounts/signup/", data)
    finish_sign_up(client, mail.outbox[0])
    assert User.objects.get(username="dora").email_verified


@pytest.mark.storage
def test_an_unverified_user_sees_the_notice_and_cannot_submit(client, db):
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    sign_up(client)
    dana = User.objects.get(username="dana")
    page = client.get("/tasks/mudi/submit/").content.decode()
    assert "Verify your address" in page and 'action="/accounts/verify/resend/"' in page
    data = post_data(dana.personal_team)
    data["file"] = as_post_file(mudi_prediction_csv())
    response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 400
    assert "Verify your e-mail address before submitting" in response.content.decode()
    assert not Submission.objects.filter(phase=phase).exists()


def test_a_tampered_or_foreign_link_does_nothing(client, db):
    sign_up(client)
    link = link_in(mail.outbox[0])
    response = client.get(link[:-3] + "xx/", follow=True)
    assert "invalid or has expired" in response.content.decode()
    # A link stops working when the address changes.
    User.objects.filter(username="dana").update(email="other@example.org")
    client.get(link)
    assert not User.objects.get(username="dana").email_verified


def test_resending_the_link_is_rate_limited(client, db):
    sign_up(client)
    mail.outbox.clear()
    for _ in range(2):  # the third of the hour was sign_up's
        response = client.post("/accounts/verify/resend/", follow=True)
        assert "We sent a new verification link" in response.content.decode()
    response = client.post("/accounts/verify/resend/", follow=True)
    assert "Too many verification mails: at most 3 per hour" in response.content.decode()
    assert len(mail.outbox) == 2


def test_the_cast_is_verified(alice, bob, charlie, olga):
    assert all(u.email_verified for u in (alice, bob, charlie, olga))
