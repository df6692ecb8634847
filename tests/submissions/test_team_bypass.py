"""A user submits to a phase through one team only, and limits count per team and per user.

The attack creates several teams to get a fresh quota on the same phase with each;
these tests try it through the form (tests/api/test_submission_endpoints.py
repeats it through the API).
"""

from __future__ import annotations

import pytest

from leaderboard.accounts.services import create_team
from leaderboard.submissions import quotas
from leaderboard.submissions.models import PhaseEntry, Submission
from tests.submissions.helpers import as_post_file, make_submission, mudi_prediction_csv, post_data

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def submit(client, team):
    data = post_data(team)
    data["file"] = as_post_file(mudi_prediction_csv())
    return client.post("/tasks/mudi/submit/", data)


def test_a_second_team_on_the_same_phase_is_refused_naming_the_first(client, alice, mudi_phase, sent):
    mudi_phase.daily_limit = 1
    mudi_phase.save(update_fields=["daily_limit"])
    client.force_login(alice)
    first, second, third = (create_team(alice, f"Probe {n}") for n in (1, 2, 3))
    assert submit(client, first).status_code == 302
    for other in (second, third, alice.personal_team):
        response = submit(client, other)
        assert response.status_code == 400
        assert "You submit to this task through the team Probe 1" in response.content.decode()
    assert Submission.objects.count() == 1
    # The form now offers the bound team first.
    assert "You submit to this task through Probe 1" in client.get("/tasks/mudi/submit/").content.decode()


def test_an_organizer_can_move_a_user_to_another_team(alice, alice_lab, mudi_phase, sent):
    make_submission(mudi_phase, alice.personal_team, alice)
    PhaseEntry.objects.filter(user=alice, phase=mudi_phase).update(team=alice_lab)
    make_submission(mudi_phase, alice_lab, alice)
    assert Submission.objects.filter(team=alice_lab).count() == 1


def test_limits_count_the_users_own_submissions_too(alice, alice_lab, mudi_phase, sent):
    mudi_phase.daily_limit = 1
    mudi_phase.save(update_fields=["daily_limit"])
    make_submission(mudi_phase, alice.personal_team, alice)
    # An organizer moved her to the lab: the lab's quota is fresh, hers is not.
    PhaseEntry.objects.filter(user=alice, phase=mudi_phase).update(team=alice_lab)
    with pytest.raises(quotas.QuotaExceeded, match="You have used all 1 submissions allowed today"):
        make_submission(mudi_phase, alice_lab, alice)
