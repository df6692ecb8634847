"""The one pairwise rule on the site: leader marks, the top-10 matrix and the compare page all call ``pair_outcome``.

Everything here reads stored numbers and never a prediction file: a single-seed task's
``ReplicateSet`` vectors (bootstrap replicates computed by the scoring worker) or a
multi-seed task's per-seed results. The test and the threshold are
``scoring.replicates``' (``pair_test``/``seed_pair_test``, ``PAIR_LEVEL``); this module
only fetches their inputs and says when a pair cannot be tested.

A row's interval (``interval_of``) and its reach come from the same inputs: the 95%
percentile interval of its replicates, or the 95% t-interval over its seeds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from leaderboard.boards.spec import DirectionSpec
from leaderboard.submissions.models import ReplicateSet
from scoring import replicates as stats


@dataclass(frozen=True)
class Statistic:
    """What a row's interval and its comparisons need: its 95% interval and reach, and how to test it."""

    low: float | None
    high: float | None
    reach: float | None


NO_STATISTIC = Statistic(None, None, None)


def seed_values(spec: DirectionSpec, metrics: Mapping[str, Any]) -> list[float] | None:
    """The per-seed values of the view's metric (None when any is missing)."""
    keys = [key for _, key in spec.seed_keys(spec.metric)]
    values = [metrics.get(key) for key in keys]
    if len(values) < 2 or any(v is None for v in values):
        return None
    return [float(v) for v in values if v is not None]


def statistics(spec: DirectionSpec, rows: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, Statistic]:
    """{submission id: Statistic} for (submission id, metrics) pairs: one query for bootstrap views."""
    rows = list(rows)
    if spec.significance == "seeds":
        out = {}
        for sid, metrics in rows:
            values = seed_values(spec, metrics)
            if values is None:
                out[sid] = NO_STATISTIC
                continue
            low, high = stats.seed_interval(values)
            out[sid] = Statistic(low, high, stats.seed_reach(values))
        return out
    found = {
        str(sid): Statistic(low, high, reach)
        for sid, low, high, reach in ReplicateSet.objects.filter(
            submission_id__in=[sid for sid, _ in rows], metric=spec.metric, version=stats.REPLICATES_VERSION
        ).values_list("submission_id", "low", "high", "reach")
    }
    return {sid: found.get(sid, NO_STATISTIC) for sid, _ in rows}


class Inputs:
    """The test inputs of a set of submissions for one view, loaded once (one query for bootstrap views)."""

    def __init__(self, spec: DirectionSpec, metrics: Mapping[str, Mapping[str, Any]]) -> None:
        """``metrics``: {submission id: its result values (the per-seed ones for seed views)}."""
        self.spec = spec
        self.metrics = metrics
        self.replicates: dict[str, stats.Replicates] = {}
        if spec.significance != "seeds":
            for found in ReplicateSet.objects.filter(
                submission_id__in=list(metrics), metric=spec.metric, version=stats.REPLICATES_VERSION
            ):
                self.replicates[str(found.submission_id)] = found.replicates()

    def outcome(self, a_id: str, b_id: str) -> stats.PairOutcome | str:
        """``pair_outcome`` of A against B, or a sentence saying why the pair cannot be tested."""
        return pair_outcome(self.spec, self, str(a_id), str(b_id))


def pair_outcome(spec: DirectionSpec, inputs: Inputs, a_id: str, b_id: str) -> stats.PairOutcome | str:
    """The rule's test of A against B (difference A minus B), or why it cannot be run."""
    if spec.significance == "seeds":
        a = seed_values(spec, inputs.metrics.get(a_id, {}))
        b = seed_values(spec, inputs.metrics.get(b_id, {}))
        if a is None or b is None:
            return "not tested: a per-seed value is missing"
        return stats.seed_pair_test(a, b)
    rep_a, rep_b = inputs.replicates.get(a_id), inputs.replicates.get(b_id)
    if rep_a is None or rep_b is None:
        return "not tested: no stored bootstrap replicates (run manage.py compute_replicates)"
    try:
        return stats.pair_test(rep_a, rep_b)
    except ValueError as error:
        return f"not tested: {error}"


def rule_text(spec: DirectionSpec) -> str:
    """The test and the rule in one statement (shown once on the board, and on the compare page)."""
    if spec.significance == "seeds":
        test = (
            f"a paired t-test over the {len(spec.task.seeds)} per-seed values (two-sided; assumes the "
            "per-seed differences are roughly normal); intervals are 95% t-intervals over the seeds"
        )
    else:
        test = (
            f"a paired bootstrap over test rows ({stats.N_RESAMPLES:,} resamples shared by every submission "
            "on this truth, two-sided); intervals are 95% bootstrap percentile intervals"
        )
    return (
        f"Pairs are compared by {test}. {stats.RULE} ≈ marks entries not told apart from the leader "
        "(the leader itself is marked)."
    )
