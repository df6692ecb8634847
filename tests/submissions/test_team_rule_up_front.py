"""Issue 23, point 2: the one-team rule is said before it bites, and teams that cannot submit are disabled."""

from __future__ import annotations

import re

import pytest

from leaderboard.submissions.models import Submission
from tests.submissions.helpers import as_post_file, make_submission, mudi_prediction_csv, post_data

# It saves or reads files through the site's storages (CI runs it against a bucket too).
pytestmark = pytest.mark.storage


def option(html: str, team) -> str:
    found = re.search(rf'<option value="{team.pk}"[^>]*>[^<]*</option>', html)
    assert found, f"no option for {team.name}"
    return found.group(0)


def test_the_first_submission_says_which_team_it_binds_and_that_it_is_final(client, alice, alice_lab, mudi_phase):
    client.force_login(alice)
    response = client.get("/tasks/mudi/submit/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="team-binding"' in html
    assert f'<strong id="binding-team">{alice.personal_team.name}</strong>' in html
    assert "That is final" in html
    # A standing board names its contact (BOARD_CONTACT), with a link to write to it.
    assert 'href="mailto:leaderboard@localhost"' in html
    assert "binds you to the team you choose here: it is final" in html


def test_the_contact_comes_from_the_setting(client, settings, alice, mudi_phase):
    settings.BOARD_CONTACT = "Dr Rivera <rivera@example.org>"
    client.force_login(alice)
    html = client.get("/tasks/mudi/submit/").content.decode()
    assert '<a href="mailto:rivera@example.org">Dr Rivera</a> can change it' in html


def test_after_a_first_submission_other_teams_are_disabled_with_the_reason(client, alice, alice_lab, mudi_phase, sent):
    make_submission(mudi_phase, alice.personal_team, alice)
    client.force_login(alice)
    html = client.get("/tasks/mudi/submit/").content.decode()
    lab = option(html, alice_lab)
    assert "disabled" in lab
    assert f"not available: you submit to this task through {alice.personal_team.name}" in lab
    assert "disabled" not in option(html, alice.personal_team)
    # The quota list does not promise the lab's fresh quota to her.
    assert f'<strong>{alice_lab.name}</strong>: <span class="exhausted">not available to you' in html
    assert 'id="team-binding"' not in html
    assert "The DDI Leaderboard maintainers (leaderboard@localhost) can move you to another team" in html


def test_posting_a_disabled_team_anyway_is_refused_with_whom_to_ask(client, alice, alice_lab, mudi_phase, sent):
    make_submission(mudi_phase, alice.personal_team, alice)
    client.force_login(alice)
    data = post_data(alice_lab)
    data["file"] = as_post_file(mudi_prediction_csv())
    response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 400
    assert "or ask The DDI Leaderboard maintainers (leaderboard@localhost) to move you to another team" in (
        response.content.decode()
    )
    assert Submission.objects.count() == 1


def test_a_team_with_no_submission_left_is_disabled_and_another_chosen(client, alice, bob, alice_lab, mudi_phase, sent):
    mudi_phase.daily_limit = 1
    mudi_phase.save(update_fields=["daily_limit"])
    make_submission(mudi_phase, alice_lab, bob)
    client.force_login(alice)
    html = client.get("/tasks/mudi/submit/").content.decode()
    assert "disabled" in option(html, alice_lab)
    assert "used all 1 submissions allowed today" in option(html, alice_lab)
    assert "selected" in option(html, alice.personal_team)


def test_an_outsider_is_not_offered_someone_elses_team(client, charlie, alice_lab, mudi_phase):
    client.force_login(charlie)
    html = client.get("/tasks/mudi/submit/").content.decode()
    assert f'<option value="{alice_lab.pk}"' not in html
