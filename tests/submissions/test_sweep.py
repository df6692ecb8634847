"""The sweep (manage.py sweep_submissions, beat): re-send lost queued rows, recover or fail abandoned running ones."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.core.management import call_command
from django.utils import timezone

from leaderboard.submissions import outcomes, sweeping
from leaderboard.submissions.models import Submission
from tests.submissions.helpers import make_submission

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def age(submission, seconds: float, **fields) -> None:
    past = timezone.now() - dt.timedelta(seconds=seconds)
    Submission.objects.filter(pk=submission.pk).update(queued_at=past, enqueued_at=past, **fields)


@pytest.fixture
def old_and_new(mudi_phase, alice, sent):
    old = make_submission(mudi_phase, alice.personal_team, alice)
    new = make_submission(mudi_phase, alice.personal_team, alice)
    age(old, 300)
    return old, new


def test_it_re_enqueues_rows_queued_longer_than_the_threshold(old_and_new, sent):
    old, new = old_and_new
    report = sweeping.sweep()
    assert report.requeued == [old.pk]
    assert sent == [str(old.pk)]
    old.refresh_from_db()
    assert timezone.now() - old.enqueued_at < dt.timedelta(seconds=5)
    assert sweeping.sweep().requeued == []  # not again until the threshold passes once more


def test_the_threshold_comes_from_settings(old_and_new, sent, settings):
    settings.SWEEP_REQUEUE_AFTER_SECONDS = 600
    assert sweeping.sweep().requeued == []


def test_it_fails_rows_running_past_the_hard_limit_as_worker_lost(mudi_phase, alice, sent, settings):
    settings.SUBMISSION_MAX_ATTEMPTS = 1  # no attempt left after the first claim (see the recovery tests below)
    settings.CELERY_TASK_TIME_LIMIT = 60
    settings.SUBMISSION_LEASE_MARGIN_SECONDS = 30
    stuck = make_submission(mudi_phase, alice.personal_team, alice)
    busy = make_submission(mudi_phase, alice.personal_team, alice)
    for submission, seconds in ((stuck, 91), (busy, 80)):
        outcomes.claim(submission.pk)
        Submission.objects.filter(pk=submission.pk).update(started_at=timezone.now() - dt.timedelta(seconds=seconds))
    report = sweeping.sweep()
    assert report.failed == [stuck.pk]
    stuck.refresh_from_db()
    busy.refresh_from_db()
    assert stuck.status == Submission.Status.FAILED
    assert stuck.error_kind == Submission.ErrorKind.PLATFORM
    assert "worker lost" in stuck.error_message
    assert not Submission.objects.charged().filter(pk=stuck.pk).exists()
    assert busy.status == Submission.Status.RUNNING


def test_a_late_result_from_a_lost_worker_is_discarded(mudi_phase, alice, sent, settings):
    import scoring
    from tests.submissions.helpers import mudi_truth_csv

    settings.SUBMISSION_MAX_ATTEMPTS = 1
    settings.CELERY_TASK_TIME_LIMIT = 0
    settings.SUBMISSION_LEASE_MARGIN_SECONDS = 0
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    token = outcomes.claim(submission.pk)
    sweeping.sweep()
    with submission.file.open("rb") as handle:
        score = scoring.score_files("mudi", mudi_truth_csv(), handle)
    assert outcomes.store_score(submission, score, claim_token=token) is False
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED and submission.results.count() == 0


def expire_lease(submission, settings) -> uuid.UUID:
    settings.CELERY_TASK_TIME_LIMIT = 60
    settings.SUBMISSION_LEASE_MARGIN_SECONDS = 30
    token = outcomes.claim(submission.pk)
    Submission.objects.filter(pk=submission.pk).update(started_at=timezone.now() - dt.timedelta(seconds=91))
    return token


def test_an_expired_lease_with_attempts_left_is_queued_and_sent_again(
    mudi_phase, alice, sent, settings, django_capture_on_commit_callbacks
):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    stale = expire_lease(submission, settings)
    with django_capture_on_commit_callbacks(execute=True):
        report = sweeping.sweep()
    assert report.recovered == [submission.pk] and report.failed == []
    assert sent == [str(submission.pk)]
    submission.refresh_from_db()
    assert submission.status == Submission.Status.QUEUED and submission.attempts == 1
    # The lost worker's late result is discarded; the new delivery claims and scores it.
    with submission.file.open("rb") as handle:
        import scoring
        from tests.submissions.helpers import mudi_truth_csv

        score = scoring.score_files("mudi", mudi_truth_csv(), handle)
    assert outcomes.store_score(submission, score, claim_token=stale) is False
    token = outcomes.claim(submission.pk)
    assert token is not None and outcomes.store_score(submission, score, claim_token=token)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED and submission.attempts == 2


def test_recovery_is_bounded_by_the_attempts_then_failed_as_platform_uncharged(mudi_phase, alice, sent, settings):
    settings.SUBMISSION_MAX_ATTEMPTS = 3
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    outcomes = []
    for _ in range(3):
        expire_lease(submission, settings)
        report = sweeping.sweep()
        outcomes.append("recovered" if report.recovered else "failed" if report.failed else "-")
    assert outcomes == ["recovered", "recovered", "failed"]
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED and submission.attempts == 3
    assert submission.error_kind == Submission.ErrorKind.PLATFORM and "worker lost" in submission.error_message
    assert not Submission.objects.charged().filter(pk=submission.pk).exists()


def test_the_command_reports_what_it_did(old_and_new, sent, capsys):
    call_command("sweep_submissions", "--requeue-after", "0")
    out = capsys.readouterr().out
    assert "Re-enqueued 2; failed 0 as worker lost." in out


def test_the_sweep_runs_every_minute_under_celery_beat():
    from leaderboard.celery import app

    entry = app.conf.beat_schedule["sweep-submissions"]
    assert entry["task"] == "submissions.sweep" and entry["schedule"] == 60.0
    assert "submissions.sweep" in app.tasks
