"""Quotas per team, per phase, per UTC day and in total; only charged submissions count."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from django.db import transaction
from django.utils import timezone

from leaderboard.submissions import quotas
from leaderboard.submissions.models import Submission
from tests.submissions.helpers import make_submission

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_a_fresh_team_has_the_phase_limits_left(mudi_phase, alice):
    quota = quotas.quota_for(alice.personal_team, mudi_phase)
    assert (quota.daily_remaining, quota.total_remaining) == (5, 100)
    assert quota.resets_at.hour == 0 and quota.resets_at > timezone.now()


def test_yesterdays_submissions_do_not_count_today(mudi_phase, alice, sent):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    Submission.objects.filter(pk=submission.pk).update(
        created_at=quotas.utc_day_start(timezone.now()) - dt.timedelta(seconds=1)
    )
    quota = quotas.quota_for(alice.personal_team, mudi_phase)
    assert quota.daily_used == 0 and quota.total_used == 1


def test_the_total_limit_applies_across_days(mudi_phase, alice, sent):
    mudi_phase.total_limit = 1
    mudi_phase.save()
    make_submission(mudi_phase, alice.personal_team, alice)
    with pytest.raises(quotas.QuotaExceeded, match="all 1 submissions allowed on this task"):
        make_submission(mudi_phase, alice.personal_team, alice)


def test_quotas_are_per_team(mudi_phase, alice, bob, alice_lab, sent):
    # (Alice herself now submits to a phase through one team only: see test_team_bypass.py.)
    mudi_phase.daily_limit = 1
    mudi_phase.save()
    make_submission(mudi_phase, alice.personal_team, alice)
    make_submission(mudi_phase, alice_lab, bob)
    assert Submission.objects.count() == 2


def stored_files(storage, folder: str) -> set:
    """Every file under ``folder``, through the storage API (a local folder or a bucket)."""
    folders, files = storage.listdir(folder)
    found = {f"{folder}/{name}" for name in files}
    for sub in folders:
        found |= stored_files(storage, f"{folder}/{sub}")
    return found


def test_a_refused_upload_leaves_no_file_behind(mudi_phase, alice, sent, monkeypatch):
    mudi_phase.daily_limit = 1
    mudi_phase.save()
    first = make_submission(mudi_phase, alice.personal_team, alice)
    storage, root = first.file.storage, first.file.name.rsplit("/", 2)[0]  # submissions/<phase>
    before = stored_files(storage, root)
    with pytest.raises(quotas.QuotaExceeded):
        make_submission(mudi_phase, alice.personal_team, alice)
    # Also when the early check passes and the locked one refuses (a concurrent upload won the race).
    real = quotas.quota_for
    calls = []

    def stale_then_real(*args, **kwargs):
        calls.append(1)
        quota = real(*args, **kwargs)
        return dataclasses.replace(quota, daily_used=0) if len(calls) == 1 else quota

    monkeypatch.setattr(quotas, "quota_for", stale_then_real)
    with pytest.raises(quotas.QuotaExceeded):
        make_submission(mudi_phase, alice.personal_team, alice)
    assert len(calls) == 2
    assert stored_files(storage, root) == before


def test_failures_of_either_kind_are_not_charged(mudi_phase, alice, sent):
    for kind in (Submission.ErrorKind.PLATFORM, Submission.ErrorKind.INVALID):
        s = make_submission(mudi_phase, alice.personal_team, alice)
        Submission.objects.filter(pk=s.pk).update(status=Submission.Status.FAILED, error_kind=kind)
    assert quotas.quota_for(alice.personal_team, mudi_phase).daily_used == 0


@pytest.mark.django_db(transaction=True)
def test_the_lock_refuses_to_run_outside_a_transaction(mudi_phase, alice):
    with pytest.raises(RuntimeError):
        quotas.lock(alice.personal_team)
    with transaction.atomic():
        quotas.lock(alice.personal_team)
        assert quotas.enforce(alice.personal_team, mudi_phase).remaining == 5


def test_enforce_counts_the_new_submission_and_reports_usage_before_it(mudi_phase, alice, sent):
    mudi_phase.daily_limit = 1
    mudi_phase.save()
    make_submission(mudi_phase, alice.personal_team, alice)
    with pytest.raises(quotas.QuotaExceeded) as raised, transaction.atomic():
        Submission.objects.create(
            phase=mudi_phase, team=alice.personal_team, user=alice, method_name="x", sha256="0" * 64
        )
        quotas.enforce(alice.personal_team, mudi_phase)
    assert raised.value.quota.daily_used == 1 and raised.value.quota.daily_remaining == 0
    assert Submission.objects.count() == 1
