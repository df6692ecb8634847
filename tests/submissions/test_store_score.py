"""outcomes.store_score: the one write of a score, in long format, used by the worker and by other apps' tests."""

from __future__ import annotations

import math

import pytest

import scoring
from leaderboard.submissions import outcomes
from leaderboard.submissions.models import Result, Submission
from leaderboard.submissions.signals import submission_scored
from tests.submissions.helpers import make_submission

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def fake_score(metrics: dict, report: dict | None = None) -> scoring.Score:
    return scoring.Score(
        task="mudi",
        primary="aware/macro/f1",
        primary_value=metrics.get("aware/macro/f1"),
        metrics=metrics,
        report=report or {},
        n_rows=1,
        scorer_version="9.9.9",
    )


def test_per_seed_keys_become_rows_with_a_seed(mudi_phase, alice, sent):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    outcomes.store_score(
        submission, fake_score({"aware/macro/f1": 0.5, "seed/0/aware/macro/f1": 0.5, "auroc/std": 0.1})
    )
    rows = set(Result.objects.filter(submission=submission).values_list("key", "seed", "value"))
    assert rows == {("aware/macro/f1", None, 0.5), ("aware/macro/f1", 0, 0.5), ("auroc/std", None, 0.1)}
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED and submission.scorer_version == "9.9.9"


def test_values_that_could_not_be_computed_are_not_stored(mudi_phase, alice, sent):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    outcomes.store_score(submission, fake_score({"aware/macro/f1": 0.5, "auroc": math.nan}, {"curve": [math.inf, 1.0]}))
    assert list(Result.objects.filter(submission=submission).values_list("key", flat=True)) == ["aware/macro/f1"]
    submission.refresh_from_db()
    assert submission.report == {"curve": [None, 1.0]}


def test_storing_again_replaces_the_results(mudi_phase, alice, sent):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    outcomes.store_score(submission, fake_score({"aware/macro/f1": 0.5}))
    outcomes.store_score(submission, fake_score({"aware/macro/f1": 0.7}))
    assert list(Result.objects.filter(submission=submission).values_list("value", flat=True)) == [0.7]
    assert submission.primary_value == 0.7


def test_the_signal_is_sent_only_after_commit(mudi_phase, alice, sent, django_capture_on_commit_callbacks):
    received = []
    submission_scored.connect(
        lambda sender, submission, **kw: received.append(submission.status), weak=False, dispatch_uid="t-store"
    )
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    try:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            outcomes.store_score(submission, fake_score({"aware/macro/f1": 0.5}))
        assert received == []
        for callback in callbacks:
            callback()
    finally:
        submission_scored.disconnect(dispatch_uid="t-store")
    assert received == ["scored"]


def test_the_unique_constraints_refuse_a_second_set_of_results(mudi_phase, alice, sent):
    from django.db import IntegrityError, transaction

    submission = make_submission(mudi_phase, alice.personal_team, alice)
    outcomes.store_score(submission, fake_score({"aware/macro/f1": 0.5, "seed/0/aware/macro/f1": 0.5}))
    for seed in (None, 0):
        with pytest.raises(IntegrityError), transaction.atomic():
            Result.objects.create(submission=submission, key="aware/macro/f1", seed=seed, value=0.1)
