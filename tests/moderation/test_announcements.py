"""/challenges/<slug>/manage/announcements/: post an announcement, e-mailed by a worker to those who want it."""

from __future__ import annotations

import pytest
from django.core import mail

from leaderboard.challenges.models import Announcement, AuditEntry
from tests.moderation.conftest import login, register

URL = "/challenges/mudi-2027/manage/announcements/"


@pytest.fixture
def registered(challenge, alice, alice_lab, charlie, bob):
    from leaderboard.accounts.services import create_user

    dave = create_user("dave", "dave@example.org", "correct-horse-battery-staple", email_verified=True)
    erin = create_user("erin", "erin@example.org", "correct-horse-battery-staple", email_verified=True)
    register(challenge, alice_lab, alice, wants_announcements=True)
    register(challenge, charlie.personal_team, charlie, status="pending", wants_announcements=True)
    register(challenge, dave.personal_team, dave, wants_announcements=False)
    register(challenge, erin.personal_team, erin, status="disqualified", wants_announcements=True)


def announce(client, django_capture_on_commit_callbacks, **data):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(URL, data, follow=True)


def test_an_announcement_is_listed_audited_and_e_mailed_to_those_who_want_it(
    client, oscar, registered, tasks_run_at_once, django_capture_on_commit_callbacks
):
    login(client, oscar)
    response = announce(client, django_capture_on_commit_callbacks, title="Test phase opens",
                        body="The **test** phase opens on Monday.", email="on")  # fmt: skip
    assert "It is being e-mailed to 2 participants." in response.content.decode()
    announcement = Announcement.objects.get()
    assert (announcement.title, announcement.created_by) == ("Test phase opens", oscar)
    assert announcement.emailed_at is not None
    assert "<strong>test</strong>" in response.content.decode()
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.org", "charlie@example.org"]
    assert mail.outbox[0].subject == "[MUDI held-out pairs 2027] Test phase opens"
    assert "The **test** phase opens on Monday." in mail.outbox[0].body
    assert AuditEntry.objects.filter(action="announcement.create", actor=oscar).exists()


def test_without_the_e_mail_box_nobody_is_e_mailed(
    client, oscar, registered, tasks_run_at_once, django_capture_on_commit_callbacks
):
    login(client, oscar)
    announce(client, django_capture_on_commit_callbacks, title="Quiet note", body="")
    assert Announcement.objects.get().emailed_at is None
    assert not mail.outbox


def test_the_e_mail_task_sends_once_when_delivered_twice(challenge, oscar, registered):
    from leaderboard.organize.moderation import announce as post_announcement
    from leaderboard.organize.moderation import email_announcement_task

    announcement = post_announcement(challenge, oscar, title="Deadline moved", body="By a week.", email=False)
    assert email_announcement_task(announcement.pk) == 2
    assert email_announcement_task(announcement.pk) == 0
    assert len(mail.outbox) == 2


def test_the_markdown_body_is_sanitised(
    client, oscar, challenge, tasks_run_at_once, django_capture_on_commit_callbacks
):
    login(client, oscar)
    response = announce(client, django_capture_on_commit_callbacks, title="Hi", body="<script>alert(1)</script>ok")
    assert "<script>alert(1)" not in response.content.decode()


def test_a_title_is_required(client, oscar, challenge, django_capture_on_commit_callbacks):
    login(client, oscar)
    response = announce(client, django_capture_on_commit_callbacks, title="", body="Body without a title")
    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    assert "Body without a title" in response.content.decode()  # nothing typed is lost
    assert not Announcement.objects.exists()


@pytest.mark.parametrize("who", ["alice", "charlie", "otto"])
def test_only_organizers_may_announce(client, request, challenge, who):
    login(client, request.getfixturevalue(who))
    assert client.get(URL).status_code == 404
    assert client.post(URL, {"title": "Free pizza"}).status_code == 404
    assert not Announcement.objects.exists()
