"""The scoring task, run in-process: claim, score, store once, fail with a kind, retry transient errors."""

from __future__ import annotations

import uuid

import pytest
from django.core import mail
from django.db import OperationalError

import scoring
from leaderboard.submissions import outcomes, runs, tasks
from leaderboard.submissions.models import Result, Submission
from leaderboard.submissions.signals import submission_scored
from tests.submissions.helpers import invalid_mudi_csv, make_submission, mudi_truth_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def run(submission, **kwargs) -> str:
    return tasks.score_submission.apply(args=[str(submission.pk)], kwargs=kwargs).get()


@pytest.fixture
def queued(mudi_phase, alice, sent):
    return make_submission(mudi_phase, alice.personal_team, alice)


def expected_score(submission):
    with submission.file.open("rb") as handle:
        return scoring.score_files("mudi", mudi_truth_csv(), handle)


def test_it_scores_a_queued_submission_with_the_numbers_scoring_gives(queued):
    assert run(queued) == "scored"
    queued.refresh_from_db()
    expected = expected_score(queued)
    assert queued.status == Submission.Status.SCORED
    assert queued.primary_value == pytest.approx(expected.primary_value)
    assert queued.scorer_version == scoring.__version__
    stored = dict(queued.results.values_list("key", "value"))
    assert stored == pytest.approx({k: v for k, v in expected.metrics.items()})
    assert queued.report["aware"] is not None
    assert queued.attempts == 1 and queued.started_at and queued.finished_at
    assert "pid" in queued.worker_host


def test_a_duplicate_delivery_is_a_no_op(queued):
    assert run(queued) == "scored"
    count = Result.objects.filter(submission=queued).count()
    assert run(queued) == "duplicate"
    queued.refresh_from_db()
    assert Result.objects.filter(submission=queued).count() == count
    assert queued.attempts == 1


def test_a_redelivery_of_a_running_row_takes_it_over_and_the_stale_claimant_is_discarded(queued):
    first = outcomes.claim(queued.pk)
    assert outcomes.claim(queued.pk) is None  # a plain duplicate cannot take a running row
    second = outcomes.claim(queued.pk, redelivered=True)
    assert second and second != first
    score = expected_score(queued)
    assert outcomes.store_score(queued, score, claim_token=first) is False
    assert Result.objects.filter(submission=queued).count() == 0
    assert outcomes.store_score(queued, score, claim_token=second) is True
    assert outcomes.store_score(queued, score, claim_token=second) is False  # finished: no second write
    assert Result.objects.filter(submission=queued).count() == len(score.metrics)


def test_the_same_message_arriving_again_may_take_over_but_another_message_may_not(queued):
    assert outcomes.claim(queued.pk, task_id="task-1")
    assert outcomes.claim(queued.pk, task_id="task-2") is None  # a second publish while it runs
    assert outcomes.claim(queued.pk, task_id="task-1")  # the first message requeued after its worker died
    queued.refresh_from_db()
    assert queued.attempts == 2 and queued.task_id == "task-1"


def test_a_running_row_whose_lease_expired_can_be_claimed_again(queued, settings):
    settings.CELERY_TASK_TIME_LIMIT = 0
    settings.SUBMISSION_LEASE_MARGIN_SECONDS = 0
    assert outcomes.claim(queued.pk)
    assert outcomes.claim(queued.pk)  # started_at is already in the past with a zero lease


def test_an_invalid_file_ends_failed_invalid_and_is_never_retried(mudi_phase, alice, sent):
    submission = make_submission(mudi_phase, alice.personal_team, alice, content=invalid_mudi_csv())
    assert run(submission) == "invalid"
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert submission.error_kind == Submission.ErrorKind.INVALID
    assert "Friendship" in submission.error_message
    assert submission.report["error_count"] >= 2
    assert {p["line"] for p in submission.report["errors"]} >= {2}
    assert not Submission.objects.charged().filter(pk=submission.pk).exists()
    assert submission.attempts == 1


def test_an_unexpected_error_is_a_platform_failure_with_a_sentence_not_a_traceback(queued, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("boom in a metric")

    monkeypatch.setattr(scoring, "align_counted", explode)
    assert run(queued) == "platform"
    queued.refresh_from_db()
    assert queued.status == Submission.Status.FAILED
    assert queued.error_kind == Submission.ErrorKind.PLATFORM
    assert "error on our side" in queued.error_message
    assert "Traceback" not in queued.error_message and "boom" not in queued.error_message
    assert not Submission.objects.charged().filter(pk=queued.pk).exists()


def test_a_transient_error_is_retried_and_then_scores(queued, monkeypatch):
    real = scoring.align_counted
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("database is locked")
        return real(*args, **kwargs)

    monkeypatch.setattr(scoring, "align_counted", flaky)
    monkeypatch.setattr(runs.random, "random", lambda: 0.0)
    result = tasks.score_submission.apply(args=[str(queued.pk)])
    assert result.get() == "scored"
    queued.refresh_from_db()
    assert queued.status == Submission.Status.SCORED and len(calls) == 2
    assert queued.attempts == 2


def test_a_persistent_transient_error_gives_up_as_a_platform_failure(queued, monkeypatch):
    def down(*args, **kwargs):
        raise OSError("storage unavailable")

    monkeypatch.setattr(scoring, "align_counted", down)
    assert tasks.score_submission.apply(args=[str(queued.pk)]).get() == "platform"
    queued.refresh_from_db()
    assert queued.status == Submission.Status.FAILED and queued.error_kind == Submission.ErrorKind.PLATFORM
    assert queued.attempts == runs.MAX_RETRIES + 1


def test_a_submission_whose_worker_keeps_dying_is_stopped(queued, settings):
    import datetime as dt

    from django.utils import timezone

    settings.SUBMISSION_MAX_ATTEMPTS = 2
    long_ago = timezone.now() - dt.timedelta(hours=2)
    # Two earlier runs died while running; this delivery finds the lease expired and claims a third time.
    Submission.objects.filter(pk=queued.pk).update(status=Submission.Status.RUNNING, attempts=2, started_at=long_ago)
    assert run(queued) == "gave-up"
    queued.refresh_from_db()
    assert queued.status == Submission.Status.FAILED and queued.error_kind == Submission.ErrorKind.PLATFORM
    assert "interrupted 2 times" in queued.error_message


def test_the_submitter_is_emailed_and_the_signal_sent_after_commit(
    queued, alice, result_emails_sent_at_once, django_capture_on_commit_callbacks
):
    received = []
    submission_scored.connect(
        lambda sender, submission, **kw: received.append(submission.pk), weak=False, dispatch_uid="t-scored"
    )
    try:
        with django_capture_on_commit_callbacks(execute=True):
            run(queued)
    finally:
        submission_scored.disconnect(dispatch_uid="t-scored")
    assert received == [queued.pk]
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [alice.email]
    assert "Macro F1 (direction-aware)" in mail.outbox[0].subject
    assert f"/submissions/{queued.pk}/" in mail.outbox[0].body


def test_no_email_when_the_submitter_switched_them_off(
    queued, alice, result_emails_sent_at_once, django_capture_on_commit_callbacks
):
    alice.email_results = False
    alice.save()
    with django_capture_on_commit_callbacks(execute=True):
        run(queued)
    assert mail.outbox == []


def test_a_failure_is_emailed_with_its_reason(
    mudi_phase, alice, sent, result_emails_sent_at_once, django_capture_on_commit_callbacks
):
    submission = make_submission(mudi_phase, alice.personal_team, alice, content=invalid_mudi_csv())
    with django_capture_on_commit_callbacks(execute=True):
        run(submission)
    assert "scoring failed" in mail.outbox[0].subject
    assert "Friendship" in mail.outbox[0].body


def test_the_task_of_a_missing_submission_is_a_no_op(db):
    assert tasks.score_submission.apply(args=[str(uuid.uuid4())]).get() == "duplicate"


def test_the_result_email_is_a_background_job_not_sent_by_the_scoring_process(
    queued, alice, monkeypatch, django_capture_on_commit_callbacks
):
    from leaderboard.submissions import emails

    queued_jobs = []
    monkeypatch.setattr(emails.email_result, "delay", lambda submission_id: queued_jobs.append(submission_id))
    with django_capture_on_commit_callbacks(execute=True):
        run(queued)
    assert mail.outbox == [] and queued_jobs == [str(queued.pk)]
    assert emails.email_result(str(queued.pk)) is True and len(mail.outbox) == 1
