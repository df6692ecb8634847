"""The scoring worker stores each single-seed submission's bootstrap replicates with its score."""

from __future__ import annotations

import numpy as np
import pytest

import scoring
from leaderboard.submissions import tasks
from leaderboard.submissions.models import ReplicateSet
from scoring import replicates as stats
from scoring.significance import paired_bootstrap
from tests.submissions.helpers import make_submission, mudi_prediction_csv, mudi_truth_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def run(submission) -> str:
    return tasks.score_submission.apply(args=[str(submission.pk)]).get()


@pytest.fixture
def two_scored(mudi_phase, alice, sent):
    first = make_submission(mudi_phase, alice.personal_team, alice, mudi_prediction_csv(wrong=1))
    second = make_submission(mudi_phase, alice.personal_team, alice, mudi_prediction_csv(wrong=4))
    assert run(first) == "scored" and run(second) == "scored"
    return first, second


def test_a_scored_mudi_submission_has_replicates_of_each_view_metric(two_scored):
    first, _ = two_scored
    sets = {s.metric: s for s in ReplicateSet.objects.filter(submission=first)}
    assert set(sets) == {"aware/macro/f1", "agnostic/macro/f1"}
    aware = sets["aware/macro/f1"]
    assert len(aware.sums) == 8 * stats.N_RESAMPLES
    assert aware.observed == pytest.approx(first.results.get(key="aware/macro/f1", seed=None).value)
    assert aware.low <= aware.observed <= aware.high
    assert aware.version == stats.REPLICATES_VERSION


def test_stored_replicates_give_the_from_files_paired_bootstrap_exactly(two_scored):
    first, second = two_scored
    a, b = (ReplicateSet.objects.get(submission=s, metric="aware/macro/f1").replicates() for s in two_scored)
    aligned = [scoring.align("mudi", mudi_truth_csv(), s.file.open("rb")) for s in (first, second)]
    files = paired_bootstrap(scoring.get_task("mudi"), *aligned, n_resamples=stats.N_RESAMPLES, seed=a.seed)
    assert stats.pair_test(a, b).p_value == files.p_value
    assert np.array_equal(a.sums, b.sums) is False


def test_the_submission_page_and_its_status_show_the_primary_metrics_95_percent_interval(client, two_scored, alice):
    first, _ = two_scored
    stored = ReplicateSet.objects.get(submission=first, metric="aware/macro/f1")
    client.force_login(alice)
    html = client.get(f"/submissions/{first.pk}/").content.decode()
    assert f'title="95% interval">[{stored.low:.4f}, {stored.high:.4f}]</span>' in html
    payload = client.get(f"/submissions/{first.pk}/status.json").json()
    assert payload["primary"]["interval"] == [stored.low, stored.high]
