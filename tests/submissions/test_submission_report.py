"""/submissions/<id>/report: the live part of the page that the status poll swaps in."""

from __future__ import annotations

import pytest

from leaderboard.boards.recompute import recompute_phase
from tests.submissions.helpers import make_submission, score_now

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_the_report_of_a_scored_submission_has_its_rank_link_metrics_and_charts(client, public_scored):
    recompute_phase(public_scored.phase)
    response = client.get(f"/submissions/{public_scored.pk}/report")
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    html = response.content.decode()
    assert "Rank <strong>1 of 1</strong> on the board" in html
    assert f'href="/tasks/mudi/#row-{public_scored.pk}" id="standing-link"' in html
    assert '<span class="tag">primary</span>' in html
    assert 'id="figure-confusion-aware"' in html
    assert "Scored on " in html
    assert "<html" not in html  # a fragment, not a page


def test_the_full_page_has_the_same_report(client, public_scored):
    recompute_phase(public_scored.phase)
    html = client.get(f"/submissions/{public_scored.pk}/").content.decode()
    assert 'id="live-report" data-report-url="/submissions/' in html
    assert "Rank <strong>1 of 1</strong> on the board" in html
    assert 'role="status" aria-live="polite"' in html


def test_the_report_says_when_the_board_has_not_taken_the_score_in_yet(client, public_scored):
    html = client.get(f"/submissions/{public_scored.pk}/report").content.decode()
    assert 'data-standing-pending="1"' in html


def test_a_second_ranked_submission_reads_two_of_two(client, public_scored, alice, sent):
    second = make_submission(public_scored.phase, alice.personal_team, alice, method_name="Other")
    score_now(second)
    recompute_phase(public_scored.phase)
    html = client.get(f"/submissions/{second.pk}/report").content.decode()
    assert " of 2</strong> on the board" in html


def test_an_outsider_gets_no_report_of_a_private_submission(client, private_lab, charlie):
    client.force_login(charlie)
    assert client.get(f"/submissions/{private_lab.pk}/report").status_code == 404
