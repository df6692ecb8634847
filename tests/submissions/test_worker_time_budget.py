"""Worker time per account: invalid files cost no quota, but their worker seconds have a daily budget;
the worker stops reading an upload at a bound proportional to the truth's rows."""

from __future__ import annotations

import datetime as dt
import gzip

import pytest
from django.utils import timezone

import scoring
from leaderboard.submissions import quotas, runs, tasks
from leaderboard.submissions.models import Submission
from tests.submissions.helpers import as_post_file, make_submission, mudi_prediction_csv, post_data

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def failed_invalid(phase, user, seconds: float, *, finished=None, kind=Submission.ErrorKind.INVALID):
    submission = make_submission(phase, user.personal_team, user)
    finished = finished or timezone.now()
    Submission.objects.filter(pk=submission.pk).update(
        status=Submission.Status.FAILED,
        error_kind=kind,
        started_at=finished - dt.timedelta(seconds=seconds),
        finished_at=finished,
    )
    return submission


def submit(client, team):
    data = post_data(team)
    data["file"] = as_post_file(mudi_prediction_csv())
    return client.post("/tasks/mudi/submit/", data)


def test_uploads_are_refused_once_invalid_files_used_the_daily_worker_budget(client, mudi_phase, alice, sent, settings):
    settings.SUBMISSION_INVALID_WORKER_SECONDS_PER_DAY = 60
    mudi_phase.daily_limit = 50
    mudi_phase.save()
    failed_invalid(mudi_phase, alice, 45)
    client.force_login(alice)
    assert submit(client, alice.personal_team).status_code == 302  # 45 s of 60: still allowed

    failed_invalid(mudi_phase, alice, 20)
    response = submit(client, alice.personal_team)
    assert response.status_code == 400
    reset = quotas.utc_day_start(timezone.now()) + dt.timedelta(days=1)
    assert b"took 65 s of scoring time today" in response.content
    assert b"the daily budget for invalid files being 60 s" in response.content
    assert f"resets at {reset:%Y-%m-%d} 00:00 UTC".encode() in response.content
    assert Submission.objects.filter(status=Submission.Status.QUEUED).count() == 1


def test_the_budget_counts_only_todays_invalid_runs_of_the_account(mudi_phase, alice, bob, sent, settings):
    settings.SUBMISSION_INVALID_WORKER_SECONDS_PER_DAY = 60
    yesterday = quotas.utc_day_start(timezone.now()) - dt.timedelta(minutes=5)
    failed_invalid(mudi_phase, alice, 500, finished=yesterday)
    failed_invalid(mudi_phase, alice, 500, kind=Submission.ErrorKind.PLATFORM)  # our fault: never counted
    failed_invalid(mudi_phase, bob, 500)  # another account
    assert quotas.invalid_worker_seconds(alice) == 0
    assert quotas.worker_time_refusal(alice) is None
    assert "took 500 s" in quotas.worker_time_refusal(bob)


def test_the_refusal_says_when_the_budget_resets(mudi_phase, alice, sent, settings):
    settings.SUBMISSION_INVALID_WORKER_SECONDS_PER_DAY = 10
    now = quotas.utc_day_start(timezone.now()) + dt.timedelta(hours=20, minutes=30)
    failed_invalid(mudi_phase, alice, 30, finished=now - dt.timedelta(minutes=1))
    refusal = quotas.worker_time_refusal(alice, now)
    assert f"at {now:%Y-%m-%d} 00:00 UTC" not in refusal
    assert "00:00 UTC (in 3 h 30 min)" in refusal


def test_the_worker_stops_reading_a_gzip_bomb_at_the_bound_with_a_specific_message(mudi_phase, alice, sent, settings):
    settings.SUBMISSION_MIN_READ_BYTES = 64 * 1024  # the 12-row test truth: the floor is the bound
    bomb = gzip.compress(b"Drug1,Interaction,Drug2\n" + b"0" * (50 * 1024 * 1024))
    assert len(bomb) < 100 * 1024
    submission = make_submission(mudi_phase, alice.personal_team, alice, content=bomb)
    assert tasks.score_submission.apply(args=[str(submission.pk)]).get() == "invalid"
    submission.refresh_from_db()
    assert submission.error_kind == Submission.ErrorKind.INVALID
    assert "The prediction file is larger than the limit of 65,536 bytes (uncompressed)." in submission.error_message
    assert submission.started_at is not None and submission.finished_at is not None


def test_the_read_bound_grows_with_the_cells_a_file_can_hold_up_to_the_upload_cap(settings):
    class Truth:
        n_rows = 89_418  # MUDI's test set

    mudi = scoring.get_task("mudi")
    settings.SUBMISSION_MAX_BYTES_PER_CELL = 48
    settings.SUBMISSION_MAX_BYTES = 10**9
    assert runs.read_bound(Truth(), mudi) == 89_418 * runs.cells_per_row(mudi) * 48
    settings.SUBMISSION_MAX_BYTES = 1024 * 1024
    assert runs.read_bound(Truth(), mudi) == 1024 * 1024
    assert runs.read_bound(None) == 1024 * 1024


def test_a_full_precision_file_of_a_many_class_task_fits_the_read_bound(settings):
    """An 86-class ImDrug file writes 86 probabilities per row: its bound follows its columns."""
    task = scoring.get_task("imdrug-drugbank-standard")

    class Truth:
        n_rows = 1_000

    settings.SUBMISSION_MAX_BYTES = 10**9
    row = ",".join(["123456", "0.0116279069767442"] + ["0.0116279069767442"] * len(task.classes)) + "\n"
    seeds = max(1, len(task.seeds))
    assert len(row) * Truth.n_rows * seeds < runs.read_bound(Truth(), task)
