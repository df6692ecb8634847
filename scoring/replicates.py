"""Statistics from stored numbers: bootstrap replicates, 95% intervals and the one pairwise rule.

Single-seed tasks (MUDI). When a submission is scored, ``bootstrap_replicates``
evaluates each ranking metric on ``N_RESAMPLES`` resamples of the test rows.
The resamples depend only on the truth (its identity, through
``resample_seed``) and the number of test items, never on the submission:
every submission scored against the same truth is evaluated on the very same
resamples. A paired bootstrap between two submissions then needs nothing but
their two stored vectors (``pair_test``): replicate i of A minus replicate i of
B is resample i of the paired difference, to the last bit what
``scoring.significance.paired_bootstrap`` computes from the two files with the
same seed.

Multi-seed tasks (ImDrug's 3 seeds, ChemicalX's 10 splits) store one value per
seed already; the pair test is the paired t-test over seeds
(``scoring.multiple.paired_seed_test``) and the interval the t-interval over
seeds (``seed_interval``).

The rule, stated once (``RULE``): two entries are told apart when the pair's
two-sided p-value is below ``PAIR_LEVEL`` = ``ALPHA`` / ``FAMILY``: Bonferroni
for the ``FAMILY`` = 45 pairs of a board's top-10 matrix, the largest family a
board shows. The threshold belongs to the pair alone, so the leader marks, the
matrix and the compare page give a pair the same verdict wherever it appears
(a correction that depends on the other pairs, like Holm's, could not).

``reach`` turns the rule into a bound: when two entries' values differ by more
than the sum of their reaches, the pair is told apart without any test. A
board therefore re-tests only the rows within reach of a new leader.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from scoring.kinds.base import kind_of
from scoring.multiple import _student_t_two_sided, paired_seed_test
from scoring.significance import ALPHA

if TYPE_CHECKING:
    from scoring.aligned import Aligned
    from scoring.definitions import Task

# Resamples stored per submission and metric (8 kB each as float64).
N_RESAMPLES = 1000
# Mixed with the truth's identity into the resampling seed; changing it changes every stored replicate.
BASE_SEED = 20
# The pairs of a board's top-10 matrix: the family the per-pair threshold is corrected for.
FAMILY = 45
PAIR_LEVEL = ALPHA / FAMILY
# Two-sided coverage of every interval shown.
COVERAGE = 0.95
# Bumped when the replicates' arithmetic changes: stored vectors of another version are recomputed.
REPLICATES_VERSION = "1"

RULE = (
    f"Two entries differ significantly when the paired test of the pair gives p < {PAIR_LEVEL:.5f} "
    f"({ALPHA:g} / {FAMILY}: Bonferroni for the {FAMILY} pairs of the top-10 matrix)."
)


def uses_bootstrap(task: Task) -> bool:
    """Whether the task's entries are compared by bootstrap (one seed), not over seeds."""
    return not (len(task.seeds) > 1 and task.spread)


def resample_seed(truth_identity: str) -> int:
    """The resampling seed of a truth: a 63-bit integer from its identity (e.g. its sha256) and ``BASE_SEED``."""
    digest = hashlib.sha256(f"{BASE_SEED}:{truth_identity}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class Replicates:
    """One submission's bootstrap of one metric: observed value and per-resample sums over seeds.

    ``sums[i] / n_units`` is the metric on resample i (``values``); the sums are
    kept as computed so that a difference of two vectors is bit-identical to the
    paired bootstrap's.
    """

    metric: str
    observed: float
    sums: np.ndarray  # float64, one per resample
    n_units: int
    seed: int

    @property
    def values(self) -> np.ndarray:
        out: np.ndarray = self.sums / self.n_units
        return out

    def to_bytes(self) -> bytes:
        return np.ascontiguousarray(self.sums, dtype="<f8").tobytes()

    @classmethod
    def from_bytes(cls, metric: str, observed: float, data: bytes | memoryview, n_units: int, seed: int) -> Replicates:
        return cls(metric, float(observed), np.frombuffer(bytes(data), dtype="<f8"), int(n_units), int(seed))


def ranking_task(task: Task, metric: str) -> Task:
    """``task`` with ``metric`` as its primary metric (what the bootstrap evaluates)."""
    return task if metric == task.primary else replace(task, primary=metric)


def bootstrap_replicates(
    task: Task, aligned: Aligned, metric: str, *, seed: int, n_resamples: int = N_RESAMPLES
) -> Replicates:
    """The replicates of ``metric`` for one aligned submission on the truth's fixed resamples.

    Raises ``ValueError`` when the metric is undefined for the submission or the
    kind has no resampler.
    """
    resample = kind_of(task).bootstrap
    if resample is None:
        raise ValueError(f"no bootstrap for {task.kind} tasks")
    observed, sums, _, n_units = resample(ranking_task(task, metric), aligned, aligned, n_resamples, seed)
    return Replicates(metric, float(observed[0]), np.asarray(sums, dtype=np.float64), n_units, seed)


@dataclass(frozen=True)
class PairOutcome:
    """A pair's test under the rule: A minus B, its 95% interval, p and the verdict."""

    delta: float
    low: float | None
    high: float | None
    p_value: float
    significant: bool
    n: int  # resamples used, or seeds


def percentile_interval(values: np.ndarray) -> tuple[float, float] | None:
    """The 95% percentile interval of finite ``values`` (None when there are none)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return None
    tail = (1 - COVERAGE) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def pair_test(a: Replicates, b: Replicates) -> PairOutcome:
    """The paired bootstrap of A against B from their stored replicates (``ValueError`` on other resamples).

    p (two-sided, centred) = (#{i : |d*_i - d| >= |d|} + 1) / (n + 1), the
    formula of ``scoring.significance.paired_bootstrap``.
    """
    if a.seed != b.seed or a.sums.size != b.sums.size or a.n_units != b.n_units:
        raise ValueError("the two submissions were resampled differently (scored against different truths)")
    delta = a.observed - b.observed
    resampled = (a.sums - b.sums) / a.n_units
    resampled = resampled[np.isfinite(resampled)]
    extreme = np.count_nonzero(np.abs(resampled - delta) >= abs(delta))
    p_value = float((extreme + 1) / (resampled.size + 1))
    interval = percentile_interval(resampled)
    return PairOutcome(
        delta=float(delta),
        low=interval[0] if interval else None,
        high=interval[1] if interval else None,
        p_value=p_value,
        significant=p_value < PAIR_LEVEL,
        n=int(resampled.size),
    )


@lru_cache(maxsize=256)
def t_quantile(probability: float, df: int) -> float:
    """The t value with P(|T| >= t) = ``probability`` for ``df`` degrees of freedom (bisection, to 1e-12)."""
    low, high = 0.0, 1.0
    while _student_t_two_sided(high, df) > probability:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if _student_t_two_sided(middle, df) > probability:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * high:
            break
    return high  # P(|T| >= high) <= probability


def _sample_sd(values: Sequence[float]) -> float:
    arr = np.asarray(values, dtype=np.float64)
    return float(arr.std(ddof=1))


def seed_interval(values: Sequence[float]) -> tuple[float, float]:
    """The 95% t-interval of the mean over seeds: mean +- t(0.975, n-1) * sd / sqrt(n)."""
    n = len(values)
    if n < 2:
        raise ValueError("an interval over seeds needs at least two seeds")
    mean = float(np.mean(values))
    half = t_quantile(1 - COVERAGE, n - 1) * _sample_sd(values) / math.sqrt(n)
    return mean - half, mean + half


def seed_pair_test(values_a: Sequence[float], values_b: Sequence[float]) -> PairOutcome:
    """The paired t-test over seeds of A against B, with the t-interval of the mean difference."""
    outcome = paired_seed_test(values_a, values_b)
    diffs = [float(a) - float(b) for a, b in zip(values_a, values_b, strict=True)]
    low, high = seed_interval(diffs)
    return PairOutcome(
        delta=outcome.delta,
        low=low,
        high=high,
        p_value=outcome.p_value,
        significant=outcome.p_value < PAIR_LEVEL,
        n=outcome.n_seeds,
    )


# Relative and absolute slack on every reach: rounding in the tests cannot cross the bound.
_SLACK = 1e-9


def replicate_reach(replicates: Replicates) -> float | None:
    """The bootstrap reach: max |replicate - observed|, or None when a replicate is undefined.

    If |value_a - value_b| > reach_a + reach_b then no resampled difference is
    as far from the observed one as zero, so p = 1 / (n + 1), which is below
    ``PAIR_LEVEL`` whenever n >= ``N_RESAMPLES``.
    """
    values = replicates.values
    if values.size < N_RESAMPLES or not np.all(np.isfinite(values)):
        return None
    deviation = float(np.max(np.abs(values - replicates.observed)))
    return deviation * (1 + _SLACK) + _SLACK * (1 + abs(replicates.observed))


def seed_reach(values: Sequence[float]) -> float:
    """The t-test reach: t* sd / sqrt(n), with t* the t value of ``PAIR_LEVEL``.

    The sd of the paired differences is at most sd_a + sd_b (triangle
    inequality on the centred vectors), so |mean difference| > reach_a +
    reach_b gives t > t* and p < ``PAIR_LEVEL``.
    """
    n = len(values)
    scale = max([1.0, *(abs(float(v)) for v in values)])
    return t_quantile(PAIR_LEVEL, n - 1) * _sample_sd(values) / math.sqrt(n) * (1 + _SLACK) + _SLACK * scale


def beyond_reach(value_a: float, reach_a: float | None, value_b: float, reach_b: float | None) -> bool:
    """Whether the bound alone tells A and B apart (no test needed)."""
    if reach_a is None or reach_b is None:
        return False
    return abs(value_a - value_b) > reach_a + reach_b
