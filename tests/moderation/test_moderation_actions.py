"""Moderating one submission: hide, show, baseline, verified, re-run; and re-running a phase's submissions."""

from __future__ import annotations

import pytest

from leaderboard.challenges.models import AuditEntry
from leaderboard.submissions.models import Result, Submission
from tests.moderation.conftest import board_submission_ids, login, make_submission, rebuild

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def graph(phase, alice_lab, alice_registered):
    submission = make_submission(phase, alice_lab, "GraphDDI")
    rebuild(phase)
    return submission


def act_url(submission) -> str:
    return f"/challenges/mudi-2027/manage/submissions/{submission.pk}/act"


def post(client, submission, django_capture_on_commit_callbacks, **data):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(act_url(submission), data, follow=True)


def test_the_moderation_page_shows_the_private_score_and_the_actions(client, oscar, graph):
    login(client, oscar)
    response = client.get(f"/challenges/mudi-2027/manage/submissions/{graph.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "0.4321" in html
    for action in ("hide", "baseline", "verify", "rerun"):
        assert f'value="{action}"' in html


def test_hiding_takes_the_submission_off_the_boards_and_the_team_sees_why(
    client, oscar, alice, graph, tasks_run_at_once, django_capture_on_commit_callbacks
):
    assert str(graph.pk) in board_submission_ids(graph.phase)
    login(client, oscar)
    response = post(
        client, graph, django_capture_on_commit_callbacks, action="hide", reason="Probing the public split."
    )
    assert "Hidden: the submission is on no board" in response.content.decode()
    graph.refresh_from_db()
    assert graph.is_hidden and graph.hidden_reason == "Probing the public split."
    assert str(graph.pk) not in board_submission_ids(graph.phase)
    entry = AuditEntry.objects.get(action="submission.hide")
    assert (entry.actor, entry.reason) == (oscar, "Probing the public split.")
    assert "GraphDDI" in entry.target
    login(client, alice)
    page = client.get(f"/submissions/{graph.pk}/").content.decode()
    assert "Hidden by the organizers" in page and "Probing the public split." in page


def test_an_outsider_reading_a_hidden_public_submission_does_not_see_the_reason(client, charlie, graph, oscar):
    from leaderboard.organize.moderation import moderate_submission

    moderate_submission(graph, "hide", oscar, reason="Suspected label leak.")
    login(client, charlie)
    page = client.get(f"/submissions/{graph.pk}/").content.decode()
    assert "Hidden by the organizers" in page
    assert "Suspected label leak." not in page


def test_hiding_needs_a_reason_and_changes_nothing_without_one(
    client, oscar, graph, django_capture_on_commit_callbacks
):
    login(client, oscar)
    response = post(client, graph, django_capture_on_commit_callbacks, action="hide", reason="  ")
    assert "Give a reason to hide: the team sees it." in response.content.decode()
    graph.refresh_from_db()
    assert not graph.is_hidden
    assert not AuditEntry.objects.exists()


def test_showing_a_hidden_submission_puts_it_back_on_the_boards(
    client, oscar, graph, tasks_run_at_once, django_capture_on_commit_callbacks
):
    login(client, oscar)
    post(client, graph, django_capture_on_commit_callbacks, action="hide", reason="Checking the code.")
    response = post(client, graph, django_capture_on_commit_callbacks, action="unhide")
    assert "back on the boards" in response.content.decode()
    graph.refresh_from_db()
    assert not graph.is_hidden and graph.hidden_reason == ""
    assert str(graph.pk) in board_submission_ids(graph.phase)
    assert list(AuditEntry.objects.order_by("created_at").values_list("action", flat=True)) == [
        "submission.hide",
        "submission.unhide",
    ]
    history = client.get(f"/challenges/mudi-2027/manage/submissions/{graph.pk}/").content.decode()
    assert "submission.hide</code>: Checking the code." in history and "submission.unhide" in history


def test_marking_a_baseline_shows_on_the_board_row(
    client, oscar, graph, tasks_run_at_once, django_capture_on_commit_callbacks
):
    from leaderboard.boards.models import BoardRow

    login(client, oscar)
    post(client, graph, django_capture_on_commit_callbacks, action="baseline")
    graph.refresh_from_db()
    assert graph.is_baseline
    assert BoardRow.objects.filter(submission=graph, is_baseline=True).exists()
    response = post(client, graph, django_capture_on_commit_callbacks, action="baseline")
    assert "already marked as a baseline" in response.content.decode()
    post(client, graph, django_capture_on_commit_callbacks, action="unbaseline")
    graph.refresh_from_db()
    assert not graph.is_baseline


def test_verifying_needs_a_note_or_a_link_and_puts_the_badge_on_the_board(
    client, oscar, graph, tasks_run_at_once, django_capture_on_commit_callbacks
):
    from leaderboard.boards.models import BoardRow

    login(client, oscar)
    refused = post(client, graph, django_capture_on_commit_callbacks, action="verify")
    assert "Say how the result was verified" in refused.content.decode()
    post(client, graph, django_capture_on_commit_callbacks, action="verify", note="reproduced at commit 1a2b3c4",
         url="https://example.org/log")  # fmt: skip
    graph.refresh_from_db()
    assert graph.is_verified and graph.verified_at is not None
    assert (graph.verification_note, graph.verification_url) == (
        "reproduced at commit 1a2b3c4",
        "https://example.org/log",
    )
    assert BoardRow.objects.filter(submission=graph, tags__contains="|verified=yes|").exists()
    post(client, graph, django_capture_on_commit_callbacks, action="unverify")
    graph.refresh_from_db()
    assert not graph.is_verified and graph.verification_note == ""
    assert AuditEntry.objects.filter(action="submission.verify", details__note="reproduced at commit 1a2b3c4").exists()


def test_re_running_one_submission_clears_its_results_and_queues_it(
    client, oscar, graph, tasks_run_at_once, django_capture_on_commit_callbacks
):
    login(client, oscar)
    response = post(client, graph, django_capture_on_commit_callbacks, action="rerun", reason="new scorer")
    assert "Queued again" in response.content.decode()
    graph.refresh_from_db()
    assert graph.status == "queued"
    assert graph.primary_value is None and graph.private_primary_value is None
    assert not Result.objects.filter(submission=graph).exists()
    assert tasks_run_at_once == [str(graph.pk)]
    again = post(client, graph, django_capture_on_commit_callbacks, action="rerun")
    assert "already waiting to be scored" in again.content.decode()
    assert AuditEntry.objects.filter(action="submission.rerun").count() == 1


def test_an_unknown_action_is_a_clear_error(client, oscar, graph, django_capture_on_commit_callbacks):
    login(client, oscar)
    response = post(client, graph, django_capture_on_commit_callbacks, action="delete")
    assert "Action: Select a valid choice. delete is not one of the available choices." in response.content.decode()


@pytest.mark.parametrize("who", ["alice", "charlie", "otto"])
def test_only_organizers_may_act_others_get_a_404(client, request, graph, who, django_capture_on_commit_callbacks):
    login(client, request.getfixturevalue(who))
    response = client.post(act_url(graph), {"action": "hide", "reason": "mine now"})
    assert response.status_code == 404
    assert client.get(f"/challenges/mudi-2027/manage/submissions/{graph.pk}/").status_code == 404
    graph.refresh_from_db()
    assert not graph.is_hidden


def test_actions_are_posts_with_a_csrf_token(graph, oscar):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(oscar)
    assert client.get(act_url(graph)).status_code == 405
    assert client.post(act_url(graph), {"action": "hide", "reason": "x"}).status_code == 403


# --- a phase at once ------------------------------------------------------------------------------


@pytest.fixture
def mixed(phase, alice_lab, charlie):
    return [
        make_submission(phase, alice_lab, "Scored"),
        make_submission(phase, charlie.personal_team, "Failed one", status="failed"),
        make_submission(phase, charlie.personal_team, "Failed two", status="failed"),
        make_submission(phase, alice_lab, "Waiting", status="queued"),
    ]


def rerun(client, django_capture_on_commit_callbacks, **data):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post("/challenges/mudi-2027/manage/submissions/rerun", data, follow=True)


def test_re_running_the_failed_ones_queues_only_those(
    client, oscar, mixed, tasks_run_at_once, django_capture_on_commit_callbacks
):
    login(client, oscar)
    response = rerun(client, django_capture_on_commit_callbacks, phase="test", which="failed", reason="worker fixed")
    assert "Re-running 2 failed submissions of &#x27;Test phase&#x27;." in response.content.decode()
    assert sorted(tasks_run_at_once) == sorted(str(s.pk) for s in mixed[1:3])
    assert Submission.objects.filter(status="queued").count() == 3
    entry = AuditEntry.objects.get(action="phase.rerun")
    assert entry.details == {"which": "failed", "count": 2} and entry.reason == "worker fixed"


def test_re_running_all_leaves_the_waiting_ones_alone(
    client, oscar, mixed, tasks_run_at_once, django_capture_on_commit_callbacks
):
    login(client, oscar)
    rerun(client, django_capture_on_commit_callbacks, phase="test", which="all")
    assert sorted(tasks_run_at_once) == sorted(str(s.pk) for s in mixed[:3])
    assert not Submission.objects.exclude(status="queued").exists()


def test_a_phase_with_nothing_to_re_run_says_so(
    client, oscar, phase, tasks_run_at_once, django_capture_on_commit_callbacks
):
    login(client, oscar)
    response = rerun(client, django_capture_on_commit_callbacks, phase="test", which="failed")
    assert "has no failed submissions to re-run" in response.content.decode()
    assert not AuditEntry.objects.exists()


def test_the_phase_re_run_task_is_a_no_op_when_delivered_twice(phase, alice_lab, tasks_run_at_once):
    from leaderboard.organize.moderation import rerun_phase_task

    make_submission(phase, alice_lab, "Failed", status="failed")
    assert rerun_phase_task(phase.pk, "failed") == 1
    assert rerun_phase_task(phase.pk, "failed") == 0
