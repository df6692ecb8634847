"""/submissions/<id>/, status.json, file download, re-run and visibility: who sees and does what."""

from __future__ import annotations

import pytest

import scoring
from leaderboard.submissions import outcomes
from leaderboard.submissions.models import Submission
from leaderboard.submissions.signals import board_changed
from tests.submissions.helpers import make_submission, mudi_prediction_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_a_public_scored_submission_shows_its_metrics_to_anyone(client, public_scored):
    response = client.get(f"/submissions/{public_scored.pk}/")
    assert response.status_code == 200
    assert b"Macro F1 (direction-aware)" in response.content
    assert f"{public_scored.primary_value:.4f}".encode() in response.content
    assert b'data-status-url="/submissions/' in response.content
    assert b"js/submission_status.js" in response.content
    assert b"<script>x()" not in response.content  # the Markdown description is sanitised
    assert b"<strong>bold</strong>" in response.content


def test_the_status_json_has_the_documented_shape(client, public_scored):
    response = client.get(f"/submissions/{public_scored.pk}/status.json")
    data = response.json()
    assert {"id", "status", "error", "primary", "metrics"} <= set(data)
    assert data["id"] == str(public_scored.pk)
    assert data["status"] == "scored"
    assert data["error"] is None
    assert data["primary"]["key"] == "aware/macro/f1"
    assert data["primary"]["value"] == pytest.approx(public_scored.primary_value)
    assert data["metrics"]["aware/macro/f1"] == pytest.approx(public_scored.primary_value)
    assert response["Cache-Control"] == "no-store"


def test_a_queued_submission_reports_its_queue_position(client, mudi_phase, alice, sent):
    first = make_submission(mudi_phase, alice.personal_team, alice)
    second = make_submission(mudi_phase, alice.personal_team, alice)
    assert client.get(f"/submissions/{first.pk}/status.json").json()["queue_position"] == 1
    assert client.get(f"/submissions/{second.pk}/status.json").json()["queue_position"] == 2
    page = client.get(f"/submissions/{second.pk}/")
    assert b'position <span id="queue-position">2</span>' in page.content


def test_a_failed_invalid_submission_shows_its_problems(client, mudi_phase, alice, sent):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    error = scoring.ScoringError([scoring.Problem(3, "Interaction", 'Line 3: "x" is not a class.')], total=7)
    token = outcomes.claim(submission.pk)
    outcomes.mark_failed(submission.pk, "invalid", "7 problems", claim_token=token, problems=error.to_dict())
    page = client.get(f"/submissions/{submission.pk}/")
    assert b"Invalid submission" in page.content
    assert b"7 problems found" in page.content and b"is not a class" in page.content
    data = client.get(f"/submissions/{submission.pk}/status.json").json()
    assert data["status"] == "failed" and data["error_kind"] == "invalid"
    assert data["problems"][0]["line"] == 3 and data["problem_count"] == 7


@pytest.mark.parametrize("who", ["alice", "bob", "olga"])
def test_a_private_submission_is_visible_to_the_team_and_staff(client, private_lab, who, request):
    client.force_login(request.getfixturevalue(who))
    assert client.get(f"/submissions/{private_lab.pk}/").status_code == 200
    assert client.get(f"/submissions/{private_lab.pk}/status.json").status_code == 200
    assert client.get(f"/submissions/{private_lab.pk}/file").status_code == 200


def test_a_private_submission_is_hidden_from_an_outsider(client, private_lab, charlie):
    client.force_login(charlie)
    assert client.get(f"/submissions/{private_lab.pk}/").status_code == 404
    assert client.get(f"/submissions/{private_lab.pk}/status.json").status_code == 404
    assert client.get(f"/submissions/{private_lab.pk}/file").status_code == 404


def test_a_private_submission_is_hidden_from_anonymous_visitors(client, private_lab):
    assert client.get(f"/submissions/{private_lab.pk}/").status_code == 404
    assert client.get(f"/submissions/{private_lab.pk}/status.json").status_code == 404


def test_the_challenge_organizers_see_private_submissions(client, private_lab, charlie):
    private_lab.phase.challenge.organizers.add(charlie)
    client.force_login(charlie)
    assert client.get(f"/submissions/{private_lab.pk}/").status_code == 200
    assert client.get(f"/submissions/{private_lab.pk}/file").status_code == 200


def test_the_uploaded_file_downloads_for_the_team(client, public_scored, alice):
    client.force_login(alice)
    response = client.get(f"/submissions/{public_scored.pk}/file")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == mudi_prediction_csv()
    assert "attachment" in response["Content-Disposition"]


def test_the_public_cannot_download_the_file_of_a_public_submission(client, public_scored, charlie):
    assert client.get(f"/submissions/{public_scored.pk}/file").status_code == 403
    client.force_login(charlie)
    assert client.get(f"/submissions/{public_scored.pk}/file").status_code == 403
    assert b"/file" not in client.get(f"/submissions/{public_scored.pk}/").content.split(b"download")[0][-200:]


def test_an_unknown_submission_is_404(client, db):
    assert client.get("/submissions/00000000-0000-0000-0000-000000000000/").status_code == 404


def test_an_organizer_can_rerun_a_submission(client, public_scored, olga, sent, django_capture_on_commit_callbacks):
    client.force_login(olga)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/submissions/{public_scored.pk}/rerun")
    assert response.status_code == 302
    public_scored.refresh_from_db()
    assert public_scored.status == Submission.Status.QUEUED
    assert public_scored.results.count() == 0 and public_scored.primary_value is None
    assert sent[-1] == str(public_scored.pk)


def test_a_team_member_cannot_rerun_their_submission(client, public_scored, alice):
    client.force_login(alice)
    assert client.post(f"/submissions/{public_scored.pk}/rerun").status_code == 403
    public_scored.refresh_from_db()
    assert public_scored.status == Submission.Status.SCORED


def test_rerun_needs_a_post(client, public_scored, olga):
    client.force_login(olga)
    assert client.get(f"/submissions/{public_scored.pk}/rerun").status_code == 405


def test_a_team_member_can_make_a_submission_private(client, public_scored, alice, django_capture_on_commit_callbacks):
    changed = []
    board_changed.connect(lambda sender, phase, **kw: changed.append(phase), weak=False, dispatch_uid="t-vis")
    client.force_login(alice)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            client.post(f"/submissions/{public_scored.pk}/visibility", {"visibility": "private"})
    finally:
        board_changed.disconnect(dispatch_uid="t-vis")
    public_scored.refresh_from_db()
    assert not public_scored.is_public
    assert changed == [public_scored.phase]


def test_an_outsider_cannot_change_visibility(client, public_scored, charlie):
    client.force_login(charlie)
    assert client.post(f"/submissions/{public_scored.pk}/visibility", {"visibility": "private"}).status_code == 403
    public_scored.refresh_from_db()
    assert public_scored.is_public


@pytest.mark.parametrize(
    "who, manages, reruns",
    [("alice", True, False), ("bob", False, False), ("olga", False, True), ("charlie", False, False)],
)
def test_the_page_offers_each_user_only_their_actions(client, public_scored, who, manages, reruns, request):
    client.force_login(request.getfixturevalue(who))
    page = client.get(f"/submissions/{public_scored.pk}/").content.decode()
    assert (f'action="/submissions/{public_scored.pk}/visibility"' in page) is manages
    assert (f'action="/submissions/{public_scored.pk}/rerun"' in page) is reruns
    assert (f'href="/submissions/{public_scored.pk}/file"' in page) is (manages or reruns)


def test_the_page_decides_access_once(client, private_lab, alice):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    private_lab.phase.challenge.organizers.add(alice)
    client.force_login(alice)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/submissions/{private_lab.pk}/").status_code == 200
    sql = [q["sql"] for q in queries.captured_queries]
    assert len([s for s in sql if 'FROM "accounts_membership"' in s]) == 1
    assert len([s for s in sql if '"challenges_challenge_organizers"' in s]) == 1
