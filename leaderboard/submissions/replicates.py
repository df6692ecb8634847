"""Stored bootstrap replicates of a scored submission (``ReplicateSet``): computed in the worker, with the score.

The scoring task (``runs.score_claimed``) hands the aligned public rows to ``compute`` and the
result to ``outcomes.store_score``, which writes them in the score's transaction. Submissions
scored before replicates existed, or under another version of them, are filled in by
``manage.py compute_replicates`` (a worker's job: it reads the stored files).
"""

from __future__ import annotations

import logging
from typing import Any

from leaderboard.submissions.models import ReplicateSet, Submission
from scoring import replicates as stats
from scoring.kinds import kind_of

log = logging.getLogger(__name__)


def truth_identity(submission: Submission) -> str:
    """What the resamples are derived from: the phase's truth file (its sha256) and, with a split, the public part."""
    phase = submission.phase
    split = "" if phase.split_spec is None else ":public"
    return f"{phase.truth_sha256}{split}"


def compute(submission: Submission, aligned: Any) -> list[stats.Replicates]:
    """The replicates of each ranking metric of a single-seed task (empty for multi-seed tasks).

    A metric that is undefined for this submission has no replicates (its rows show no interval).
    """
    task = submission.phase.task
    if not stats.uses_bootstrap(task) or kind_of(task).bootstrap is None:
        return []
    seed = stats.resample_seed(truth_identity(submission))
    found = []
    for metric in kind_of(task).ranking_metrics(task):
        try:
            found.append(stats.bootstrap_replicates(task, aligned, metric, seed=seed))
        except ValueError as error:
            log.info("submission %s: no replicates of %s (%s)", submission.pk, metric, error)
    return found


def rows_for(submission_id: Any, found: list[stats.Replicates]) -> list[ReplicateSet]:
    rows = []
    for reps in found:
        interval = stats.percentile_interval(reps.values)
        rows.append(
            ReplicateSet(
                submission_id=submission_id,
                metric=reps.metric,
                observed=reps.observed,
                sums=reps.to_bytes(),
                n_units=reps.n_units,
                seed=reps.seed,
                low=interval[0] if interval else None,
                high=interval[1] if interval else None,
                reach=stats.replicate_reach(reps),
                version=stats.REPLICATES_VERSION,
            )
        )
    return rows


def replace_sets(submission_id: Any, found: list[stats.Replicates]) -> None:
    """Replace the submission's stored replicates (call inside the transaction that stores its score)."""
    ReplicateSet.objects.filter(submission_id=submission_id).delete()
    ReplicateSet.objects.bulk_create(rows_for(submission_id, found))
