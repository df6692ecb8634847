"""Issue 14, item 1: submitting needs a verified address; sign-up mails a signed link; resending is rate-limited."""

from __future__ import annotations

import re

from django.core import mail

from leaderboard.accounts.models import User
from leaderboard.submissions.models import Submission
from tests.conftest import PASSWORD
from tests.submissions.helpers import (
    as_post_file,
    mudi_prediction_csv,
    mudi_truth_csv,
    post_data,
    standing_phase_with_truth,
)


def sign_up(client, username="dana", email="dana@example.org", **extra):
    return client.post(
        "/accounts/signup/",
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
        **extra,
    )


def link_in(message) -> str:
    return re.search(r"https?://[^/\s]+(/accounts/verify/[^\s]+/)", message.body).group(1)


def test_sign_up_mails_a_link_that_verifies_the_address(client, db):
    assert sign_up(client).status_code == 302
    dana = User.objects.get(username="dana")
    assert not dana.email_verified
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["dana@example.org"]
    response = client.get(link_in(mail.outbox[0]), follow=True)
    assert "dana@example.org is verified" in response.content.decode()
    dana.refresh_from_db()
    assert dana.email_verified


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
    for _ in range(3):
        response = client.post("/accounts/verify/resend/", follow=True)
        assert "We sent a new verification link" in response.content.decode()
    response = client.post("/accounts/verify/resend/", follow=True)
    assert "Too many verification mails: at most 3 per hour" in response.content.decode()
    assert len(mail.outbox) == 3


def test_the_cast_is_verified(alice, bob, charlie, olga):
    assert all(u.email_verified for u in (alice, bob, charlie, olga))
