"""As a probe would try it: fresh accounts and fresh teams must not buy fresh quota.

The attack: sign up without an e-mail check, create team after team and get a fresh quota
on the same phase with each. This test repeats the whole chain through the public surface. The
pieces have their own tests: tests/submissions/test_team_bypass.py (one team per phase, limits
per team and per user), tests/api/test_submission_endpoints.py (the same through the API),
tests/accounts/test_rate_limits.py and test_email_verification.py.
"""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client

from leaderboard.accounts.models import Team
from leaderboard.submissions.models import Submission
from tests.conftest import PASSWORD, finish_sign_up
from tests.submissions.helpers import as_post_file, mudi_prediction_csv, mudi_truth_csv, post_data
from tests.submissions.helpers import standing_phase_with_truth as phase_with_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def _submit(client: Client, team: Team):
    data = post_data(team)
    data["file"] = as_post_file(mudi_prediction_csv())
    return client.post("/tasks/mudi/submit/", data)


def test_the_probe_gets_one_quota_however_many_accounts_and_teams_it_makes(db, sent, settings):
    phase = phase_with_truth("mudi", mudi_truth_csv())
    phase.daily_limit = 1
    phase.save(update_fields=["daily_limit"])

    # 1. A new account exists only once the link mailed to its address is opened.
    probe = Client()
    response = probe.post(
        "/accounts/signup/",
        {"username": "prober", "email": "prober@example.org", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert not Team.objects.filter(memberships__user__username="prober").exists()
    finish_sign_up(probe, mail.outbox[-1])
    team = Team.objects.get(personal=True, memberships__user__username="prober")

    # 2. Verified: one submission uses the day's quota.
    assert _submit(probe, team).status_code == 302

    # 3. New teams: a few are allowed, but none of them submits to the same phase again.
    made = []
    for n in range(5):
        response = probe.post("/teams/new/", {"name": f"Probe team {n}"})
        if response.status_code == 302:
            made.append(Team.objects.get(name=f"Probe team {n}"))
        else:
            assert response.status_code == 429
            assert "Too many" in response.content.decode()
    assert 0 < len(made) < 5
    for other in made:
        response = _submit(probe, other)
        assert response.status_code == 400
        assert "You submit to this task through the team" in response.content.decode()

    # 4. More accounts from the same network are refused after a few.
    statuses = []
    for n in range(6):  # the probe made one; five per hour per address
        response = Client().post(
            "/accounts/signup/",
            {"username": f"sock{n}", "email": f"sock{n}@example.org", "password1": PASSWORD, "password2": PASSWORD},
        )
        statuses.append(response.status_code)
    assert 429 in statuses

    assert Submission.objects.count() == 1
