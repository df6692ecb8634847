"""/challenges/<slug>/manage/participants/: registrations by status; approve, reject, disqualify, reinstate."""

from __future__ import annotations

import pytest
from django.core import mail

from leaderboard.challenges.models import AuditEntry, Registration
from tests.moderation.conftest import board_submission_ids, login, make_submission, rebuild, register

URL = "/challenges/mudi-2027/manage/participants/"


@pytest.fixture
def pending(challenge, charlie):
    return register(challenge, charlie.personal_team, charlie, status="pending")


def decide(client, team_slug, django_capture_on_commit_callbacks, **data):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(f"{URL}{team_slug}/decide", data, follow=True)


def test_the_page_lists_teams_with_member_counts_and_status_counts(client, oscar, alice_registered, pending):
    login(client, oscar)
    response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Alice Lab" in html and "charlie" in html
    counts = {value: n for value, _, n in response.context["status_counts"]}
    assert counts == {"pending": 1, "approved": 1, "rejected": 0, "disqualified": 0}
    members = {e["registration"].team.name: e["registration"].n_members for e in response.context["entries"]}
    assert members["Alice Lab"] == 2


def test_it_filters_by_status(client, oscar, alice_registered, pending):
    login(client, oscar)
    response = client.get(URL, {"status": "pending"})
    assert [e["registration"].pk for e in response.context["entries"]] == [pending.pk]
    unknown = client.get(URL, {"status": "sleeping"}, follow=True)
    assert "Unknown status" in unknown.content.decode()
    assert len(unknown.context["entries"]) == 2


def test_a_pending_team_offers_approve_and_reject(client, oscar, pending):
    login(client, oscar)
    entry = client.get(URL).context["entries"][0]
    assert entry["decisions"] == ["approve", "reject"]


def test_approving_is_audited_and_e_mailed_to_the_team(
    client, oscar, charlie, pending, tasks_run_at_once, django_capture_on_commit_callbacks
):
    login(client, oscar)
    response = decide(client, charlie.personal_team.slug, django_capture_on_commit_callbacks, decision="approve")
    assert "approved; its members are e-mailed" in response.content.decode()
    pending.refresh_from_db()
    assert pending.status == "approved" and pending.decided_by == oscar and pending.decided_at is not None
    assert AuditEntry.objects.filter(action="team.approve", actor=oscar).exists()
    assert [m.to for m in mail.outbox] == [["charlie@example.org"]]
    assert "was approved" in mail.outbox[0].body


def test_rejecting_needs_a_reason_which_the_team_is_sent(
    client, oscar, charlie, pending, tasks_run_at_once, django_capture_on_commit_callbacks
):
    login(client, oscar)
    refused = decide(client, charlie.personal_team.slug, django_capture_on_commit_callbacks, decision="reject")
    assert "Give a reason to reject: the team sees it." in refused.content.decode()
    pending.refresh_from_db()
    assert pending.status == "pending" and not mail.outbox
    decide(client, charlie.personal_team.slug, django_capture_on_commit_callbacks, decision="reject",
           reason="Your e-mail is not from a partner lab.")  # fmt: skip
    pending.refresh_from_db()
    assert (pending.status, pending.reason) == ("rejected", "Your e-mail is not from a partner lab.")
    assert "Your e-mail is not from a partner lab." in mail.outbox[0].body


@pytest.mark.storage
def test_disqualifying_takes_every_submission_of_the_team_off_the_boards(
    client, oscar, alice, bob, alice_lab, alice_registered, phase, tasks_run_at_once, django_capture_on_commit_callbacks
):
    first = make_submission(phase, alice_lab, "GraphDDI")
    second = make_submission(phase, alice_lab, "TextDDI")
    rebuild(phase)
    assert {str(first.pk), str(second.pk)} <= board_submission_ids(phase)
    login(client, oscar)
    decide(client, "alice-lab", django_capture_on_commit_callbacks, decision="disqualify",
           reason="Used the public test labels.")  # fmt: skip
    alice_registered.refresh_from_db()
    assert alice_registered.status == "disqualified"
    assert not {str(first.pk), str(second.pk)} & board_submission_ids(phase)
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.org", "bob@example.org"]
    assert "Used the public test labels." in mail.outbox[0].body
    entry = AuditEntry.objects.get(action="team.disqualify")
    assert entry.details == {"from": "approved", "to": "disqualified"}

    decide(client, "alice-lab", django_capture_on_commit_callbacks, decision="reinstate", reason="Appeal upheld.")
    alice_registered.refresh_from_db()
    assert alice_registered.status == "approved"
    assert {str(first.pk), str(second.pk)} <= board_submission_ids(phase)


def test_a_decision_that_does_not_fit_the_status_is_refused(
    client, oscar, alice_registered, django_capture_on_commit_callbacks
):
    login(client, oscar)
    response = decide(client, "alice-lab", django_capture_on_commit_callbacks, decision="reject", reason="late")
    assert "Team Alice Lab is approved; it cannot be rejected." in response.content.decode()
    assert not AuditEntry.objects.exists()


def test_an_unregistered_team_is_a_404(client, oscar, challenge, charlie):
    login(client, oscar)
    assert client.post(f"{URL}{charlie.personal_team.slug}/decide", {"decision": "approve"}).status_code == 404


@pytest.mark.parametrize("who", ["alice", "charlie", "otto"])
def test_only_organizers_see_the_page_or_decide(client, request, pending, who):
    login(client, request.getfixturevalue(who))
    assert client.get(URL).status_code == 404
    assert client.post(f"{URL}{pending.team.slug}/decide", {"decision": "approve"}).status_code == 404
    pending.refresh_from_db()
    assert pending.status == Registration.Status.PENDING


@pytest.mark.storage
def test_a_disqualified_team_sees_why_on_the_challenge_page_and_can_no_longer_submit(
    client, oscar, alice, alice_registered, phase, tasks_run_at_once, django_capture_on_commit_callbacks
):
    from leaderboard.api.tokens import create_token
    from tests.submissions.helpers import as_post_file, mudi_prediction_csv

    login(client, oscar)
    decide(client, "alice-lab", django_capture_on_commit_callbacks, decision="disqualify", reason="Shared accounts.")
    login(client, alice)
    page = client.get("/challenges/mudi-2027/").content.decode()
    assert "The organizers disqualified the team: Shared accounts." in page
    token = create_token(alice, "script", "submit", None)[1]
    response = client.post(
        "/api/v1/challenges/mudi-2027/phases/test/submissions",
        {"file": as_post_file(mudi_prediction_csv()), "method_name": "GraphDDI", "team": "alice-lab",
         "modalities": "graph"},
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )  # fmt: skip
    assert response.status_code == 403
    assert response.json()["type"].endswith("/problems/not-registered")
    assert not phase.submissions.exists()


def test_the_number_of_queries_does_not_grow_with_the_teams(client, oscar, challenge, alice_registered):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from leaderboard.accounts.services import create_user

    login(client, oscar)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(URL).status_code == 200
        return len(captured)

    few = queries()
    for i in range(10):
        user = create_user(f"user{i}", f"user{i}@example.org", "correct-horse-battery-staple")
        register(challenge, user.personal_team, user, status="pending" if i % 2 else "approved")
    assert queries() == few


def test_each_team_links_to_its_submissions_in_the_table(client, oscar, alice_registered):
    login(client, oscar)
    html = client.get(URL).content.decode()
    assert 'href="/challenges/mudi-2027/manage/submissions/?team=alice-lab"' in html
    assert 'href="/teams/alice-lab/"' not in html  # a team's page is for its members: a 404 for organizers
