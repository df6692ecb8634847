"""/challenges/<slug>/<phase>/submit/ and its API twin: only the registered team submits, in the phase's window."""

# ruff: noqa: F811 (the fixtures imported from tests.challenges.participants are test arguments)
from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from leaderboard.submissions.models import PhaseEntry, Submission
from tests.api.helpers import bearer
from tests.challenges.participants import mudi_2027, register, sent, submit_to  # noqa: F401
from tests.submissions.helpers import as_post_file, mudi_prediction_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def test_anonymous_visitors_are_sent_to_the_login_page(client, mudi_2027):
    response = client.get("/challenges/mudi-2027/dev/submit/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_an_unpublished_challenge_or_an_unknown_phase_is_404(alice_client, mudi_2027):
    assert alice_client.get("/challenges/mudi-2027/nope/submit/").status_code == 404
    mudi_2027.is_published = False
    mudi_2027.save()
    assert alice_client.get("/challenges/mudi-2027/dev/submit/").status_code == 404
    assert submit_to(alice_client, mudi_2027.organizers.get().personal_team).status_code == 404
    assert not Submission.objects.exists()


def test_an_approved_team_submits_and_is_bound_to_the_phase(
    alice_client, alice, alice_lab, mudi_2027, sent, django_capture_on_commit_callbacks
):
    register(alice_lab, alice, mudi_2027)
    page = alice_client.get("/challenges/mudi-2027/dev/submit/")
    assertContains(page, 'id="submission-form"')
    # The one team that can take the submission is offered, chosen already.
    assertContains(page, f'<option value="{alice_lab.pk}" selected>Alice Lab</option>', html=True)
    assertNotContains(page, f'<option value="{alice.personal_team.pk}"')  # only the registered team is offered
    assertContains(page, 'href="/challenges/mudi-2027/"')
    # The phase's own downloads, not the standing task's (another truth).
    assertContains(page, 'href="/challenges/mudi-2027/dev/inputs.csv"')
    assertContains(page, 'href="/challenges/mudi-2027/dev/example.csv"')
    assertNotContains(page, "/tasks/mudi/")
    with django_capture_on_commit_callbacks(execute=True):
        response = submit_to(alice_client, alice_lab)
    submission = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == submission.get_absolute_url()
    assert (submission.team, submission.phase.slug, submission.phase.challenge) == (alice_lab, "dev", mudi_2027)
    assert PhaseEntry.objects.get(user=alice).team == alice_lab
    assert sent == [str(submission.pk)]


def test_a_team_without_registration_is_told_to_register_and_nothing_is_stored(alice_client, alice, mudi_2027, sent):
    page = alice_client.get("/challenges/mudi-2027/dev/submit/")
    assertContains(page, "Register a team for MUDI held-out pairs 2027 first")
    assertContains(page, 'href="/challenges/mudi-2027/register/"')
    assertNotContains(page, 'id="submission-form"')
    submit_to(alice_client, alice.personal_team)
    assert not Submission.objects.exists() and not PhaseEntry.objects.exists()


def test_a_pending_team_cannot_submit_yet(alice_client, alice, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027, status="pending")
    assertContains(alice_client.get("/challenges/mudi-2027/dev/submit/"), "is waiting for the organizers")
    submit_to(alice_client, alice.personal_team)
    assert not Submission.objects.exists()


@pytest.mark.parametrize("status", ["rejected", "disqualified"])
def test_a_rejected_or_disqualified_team_is_refused_with_the_reason(alice_client, alice, mudi_2027, sent, status):
    register(alice.personal_team, alice, mudi_2027, status=status, reason="Two accounts, one person.")
    page = alice_client.get("/challenges/mudi-2027/dev/submit/")
    assertContains(page, f"was {status} from MUDI held-out pairs 2027, so it cannot submit.")
    assertContains(page, "The reason given: Two accounts, one person.")
    submit_to(alice_client, alice.personal_team)
    assert not Submission.objects.exists()


def test_an_upcoming_phase_refuses_with_its_opening_date(alice_client, alice, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027)
    test = mudi_2027.phases.get(slug="test")
    test.starts_at = dt.datetime(2027, 1, 10, tzinfo=dt.UTC)
    test.ends_at = dt.datetime(2027, 2, 10, tzinfo=dt.UTC)
    test.save()
    page = alice_client.get("/challenges/mudi-2027/test/submit/")
    assertContains(page, "Test opens 2027-01-10 00:00 UTC: it does not take submissions yet.")
    assertNotContains(page, 'id="submission-form"')
    submit_to(alice_client, alice.personal_team, phase="test")
    assert not Submission.objects.exists()


def test_a_closed_phase_refuses_with_its_closing_date(alice_client, alice, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027)
    dev = mudi_2027.phases.get(slug="dev")
    dev.starts_at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    dev.ends_at = dt.datetime(2026, 2, 1, 12, 30, tzinfo=dt.UTC)
    dev.save()
    assertContains(
        alice_client.get("/challenges/mudi-2027/dev/submit/"),
        "Development closed on 2026-02-01 12:30 UTC: it no longer takes submissions.",
    )
    submit_to(alice_client, alice.personal_team)
    assert not Submission.objects.exists()


def test_the_rules_live_in_check_may_submit(alice, alice_lab, mudi_2027):
    """One place: the services (and so the API and any future caller) refuse the same way."""
    from leaderboard.submissions import quotas

    dev = mudi_2027.phases.get(slug="dev")
    with pytest.raises(quotas.NotRegistered, match="is not registered for MUDI held-out pairs 2027"):
        quotas.check_may_submit(alice, alice_lab, dev)
    register(alice_lab, alice, mudi_2027)
    quotas.check_may_submit(alice, alice_lab, dev)  # no refusal
    with pytest.raises(quotas.NotRegistered, match="Submit as Alice Lab, the team you registered."):
        quotas.check_may_submit(alice, alice.personal_team, dev)
    with pytest.raises(quotas.PhaseNotOpen, match="Test opens "):
        quotas.check_may_submit(alice, alice_lab, mudi_2027.phases.get(slug="test"))


def test_a_team_that_grew_past_the_size_limit_cannot_submit(alice, alice_lab, charlie, mudi_2027):
    from leaderboard.accounts.models import Membership
    from leaderboard.submissions import quotas

    mudi_2027.max_team_size = 2
    mudi_2027.save()
    register(alice_lab, alice, mudi_2027)
    Membership.objects.create(team=alice_lab, user=charlie)
    with pytest.raises(quotas.NotRegistered, match="now has 3 members; MUDI held-out pairs 2027 allows at most 2"):
        quotas.check_may_submit(alice, alice_lab, mudi_2027.phases.get(slug="dev"))


def test_a_refusal_uses_no_quota(alice_client, alice, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027, status="pending")
    submit_to(alice_client, alice.personal_team)
    registration = alice.personal_team.registrations.get()
    registration.status = "approved"
    registration.save()
    page = alice_client.get("/challenges/mudi-2027/dev/submit/")
    assertContains(page, "5 of 5 left today")


def test_the_standing_submit_page_still_takes_no_registration(alice_client, alice, sent):
    from tests.submissions.helpers import mudi_truth_csv, post_data, standing_phase_with_truth

    standing_phase_with_truth("mudi", mudi_truth_csv())
    data = post_data(alice.personal_team)
    data["file"] = as_post_file(mudi_prediction_csv())
    assert alice_client.post("/tasks/mudi/submit/", data).status_code == 302
    assert Submission.objects.get().phase.challenge.kind == "standing"


# --- the API refuses the same way ---------------------------------------------------------------


@pytest.fixture
def token(alice):
    from leaderboard.api.tokens import create_token

    return create_token(alice, "script", "submit", None)[1]


def api_post(client, token, phase: str = "dev", **fields):
    data = {"method_name": "GraphDDI", "modalities": ["graph", "text"], "file": as_post_file(mudi_prediction_csv())}
    data.update(fields)
    return client.post(f"/api/v1/challenges/mudi-2027/phases/{phase}/submissions", data, **bearer(token))


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def test_the_api_refuses_an_unregistered_team_with_403(client, token, mudi_2027, sent):
    response = api_post(client, token)
    assert response.status_code == 403
    body = response.json()
    assert body["type"].endswith("/not-registered")
    assert "is not registered for MUDI held-out pairs 2027" in body["detail"]
    assert not Submission.objects.exists()


def test_the_api_refuses_a_pending_team_with_403(client, token, alice, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027, status="pending")
    response = api_post(client, token)
    assert response.status_code == 403
    assert "waiting for the organizers' approval" in response.json()["detail"]


def test_the_api_refuses_outside_the_window_with_the_date(client, token, alice, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027)
    mudi_2027.phases.filter(slug="test").update(starts_at=dt.datetime(2027, 1, 10, tzinfo=dt.UTC))
    response = api_post(client, token, phase="test")
    assert response.status_code == 409
    body = response.json()
    assert body["type"].endswith("/phase-closed")
    assert body["detail"] == "Test opens 2027-01-10 00:00 UTC: it does not take submissions yet."
    mudi_2027.phases.filter(slug="dev").update(ends_at=timezone.now() - dt.timedelta(minutes=1))
    assert "closed on" in api_post(client, token).json()["detail"]
    assert not Submission.objects.exists()


def test_the_api_takes_a_submission_from_the_registered_team(client, token, alice, alice_lab, mudi_2027, sent):
    register(alice_lab, alice, mudi_2027)
    refused = api_post(client, token)  # the personal team by default: not the registered one
    assert refused.status_code == 403
    assert "Submit as Alice Lab" in refused.json()["detail"]
    response = api_post(client, token, team=alice_lab.slug)
    assert response.status_code == 202
    assert Submission.objects.get().team == alice_lab


def test_the_api_gives_404_for_a_phase_of_an_unpublished_challenge(client, token, alice, mudi_2027, sent):
    mudi_2027.is_published = False
    mudi_2027.save()
    response = api_post(client, token)
    assert response.status_code == 404
    assert "MUDI held-out pairs 2027" not in response.content.decode()
    assert not Submission.objects.exists()


def test_an_organizer_submits_a_baseline_without_registering(client, olga, mudi_2027, sent):
    client.force_login(olga)
    assertContains(client.get("/challenges/mudi-2027/dev/submit/"), 'id="submission-form"')
    submit_to(client, olga.personal_team, method_name="Organizers' baseline")
    assert Submission.objects.get().team == olga.personal_team


def test_an_organizer_of_another_challenge_is_not_one_here(client, charlie, mudi_2027, sent):
    from tests.challenges.participants import organized_challenge

    organized_challenge(slug="other-2027").organizers.add(charlie)
    client.force_login(charlie)
    assertContains(client.get("/challenges/mudi-2027/dev/submit/"), "Register a team for MUDI held-out pairs 2027")
    submit_to(client, charlie.personal_team)
    assert not Submission.objects.exists()


def test_a_spent_quota_names_the_phase_it_belongs_to(alice_client, alice, mudi_2027, sent):
    mudi_2027.phases.filter(slug="dev").update(daily_limit=1)
    register(alice.personal_team, alice, mudi_2027)
    assert submit_to(alice_client, alice.personal_team).status_code == 302
    response = submit_to(alice_client, alice.personal_team)
    assertContains(response, "submissions allowed today in the phase \u201cDevelopment\u201d", status_code=400)
    assertNotContains(response, "on this task", status_code=400)
