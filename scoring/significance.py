"""Paired bootstrap on the primary metric: is submission A really better than B?

Both submissions must be aligned against the same truth, so row i (or gold
pair i for MUDI) means the same test item in both. Each resample draws test
items with replacement, expressed as integer weights (how many times each
item was drawn), and evaluates the primary metric of A and B on the same
weights. Multi-seed tasks resample within each seed and average over seeds,
exactly as the metric itself averages.

p-value (two-sided, centred): with observed difference d = A - B and resampled
differences d*_1..d*_n,  p = (#{i : |d*_i - d| >= |d|} + 1) / (n + 1).
Identical submissions give d = 0 and so p = 1. Resamples where the metric is
undefined (a resampled split without both classes, for AUROC) are dropped.

Random draws: MUDI and ImDrug draw every resample from one generator seeded
with ``seed``. ChemicalX (10 splits of up to ~130,000 rows) gives each split
its own generator, spawned from ``seed`` with ``numpy.random.SeedSequence``, so
the splits can be resampled in parallel threads and the result still depends
on ``seed`` alone. Every resample is an exact multinomial draw: n row indices
drawn uniformly with replacement, counted with ``np.bincount``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scoring import metrics
from scoring.aligned import Aligned, ClassificationAligned, MudiAligned, PairAligned, RegressionAligned
from scoring.kinds.base import kind_of
from scoring.metrics import curves, mudi
from scoring.metrics.seeds import summarise_seeds

if TYPE_CHECKING:
    from scoring.definitions import Task

# The significance level of every "indistinguishable from the leader" verdict.
ALPHA = 0.05
# Resamples per vectorised block: bounds memory at ~ CHUNK x n float64.
CHUNK_CELLS = 2_000_000
# ChemicalX splits resampled at once, one thread each (capped by the CPU count).
# numpy releases the GIL for most of the work (drawing, counting, cumulative
# sums, gathers, einsum), so threads use the cores; each holds only a few
# arrays of one split's size.
MAX_THREADS = 4

# A function of a (chunk, n) weight matrix returning (chunk,) metric values.
WeightedMetric = Callable[[np.ndarray], np.ndarray]
# One seed (split) of a paired bootstrap: its number of test items and the metric of A and of B on weights.
Unit = tuple[int, WeightedMetric, WeightedMetric]


@dataclass(frozen=True)
class Bootstrap:
    """Outcome of a paired bootstrap on ``metric`` (the task's primary metric)."""

    metric: str
    observed_a: float
    observed_b: float
    delta: float  # observed_a - observed_b
    p_value: float
    n_resamples: int  # resamples actually used (undefined ones are dropped)


def _draw_weights(rng: np.random.Generator, n_draws: int, n_items: int) -> np.ndarray:
    """(n_draws, n_items) counts: each row a multinomial resample of n_items items."""
    picks = rng.integers(0, n_items, size=(n_draws, n_items))
    weights = np.empty((n_draws, n_items))
    # One bincount per resample: a row fits in cache, one giant bincount does not
    # (measured ~5x faster at 80,000 items).
    for row in range(n_draws):
        weights[row] = np.bincount(picks[row], minlength=n_items)
    return weights


def mudi_units(task: Task, a: MudiAligned, b: MudiAligned) -> list[Unit]:
    counts = [mudi.pair_counts(x) for x in (a, b)]
    if counts[0].n_gold_pairs != counts[1].n_gold_pairs:
        raise ValueError("the two MUDI submissions were aligned against different truth files")
    n_gold = counts[0].n_gold_pairs

    def metric(per_pair: np.ndarray) -> WeightedMetric:
        flat = per_pair.reshape(per_pair.shape[0], -1)

        def evaluate(weights: np.ndarray) -> np.ndarray:
            # Predictions outside the gold set (last row) are not resampled.
            totals = weights @ flat[:-1] + flat[-1]
            return mudi.scores_from_counts(totals.reshape(-1, *per_pair.shape[1:]))[task.primary]

        return evaluate

    return [(n_gold, metric(counts[0].per_pair), metric(counts[1].per_pair))]


def _balanced_accuracy_on_weights(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> WeightedMetric:
    onehot = np.zeros((y_true.size, n_classes))
    onehot[np.arange(y_true.size), y_true] = 1.0
    hits = onehot * (y_true == y_pred)[:, None]
    both = np.concatenate([onehot, hits], axis=1)

    def evaluate(weights: np.ndarray) -> np.ndarray:
        sums = weights @ both
        support, correct = sums[:, :n_classes], sums[:, n_classes:]
        with np.errstate(divide="ignore", invalid="ignore"):
            recall = np.where(support > 0, correct / support, np.nan)
        mean: np.ndarray = np.nanmean(recall, axis=1)
        return mean

    return evaluate


def classification_units(task: Task, a: ClassificationAligned, b: ClassificationAligned) -> list[Unit]:
    if task.primary != "balanced_accuracy":
        raise ValueError(f"no bootstrap for primary metric {task.primary!r}")
    n_classes = len(a.class_names)
    units = []
    for seed in sorted(a.seeds):
        sa, sb = a.seeds[seed], b.seeds[seed]
        y = np.asarray(sa.y_true, dtype=np.int64)
        units.append(
            (
                y.size,
                _balanced_accuracy_on_weights(y, np.asarray(sa.y_pred), n_classes),
                _balanced_accuracy_on_weights(y, np.asarray(sb.y_pred), n_classes),
            )
        )
    return units


def regression_units(task: Task, a: RegressionAligned, b: RegressionAligned) -> list[Unit]:
    power = {"mse": 2, "mae": 1}[task.primary]
    units = []
    for seed in sorted(a.seeds):
        y = np.asarray(a.seeds[seed].y_true, dtype=np.float64)

        def metric(pred: np.ndarray, y: np.ndarray = y) -> WeightedMetric:
            loss = np.abs(np.asarray(pred, dtype=np.float64) - y) ** power
            return lambda weights: weights @ loss / y.size

        units.append((y.size, metric(a.seeds[seed].y_pred), metric(b.seeds[seed].y_pred)))
    return units


class _PairedAuroc:
    """AUROC of submissions A and B on one ChemicalX split under bootstrap resamples.

    The split's rows are renumbered: negatives in increasing score of A, then
    positives in increasing score of B. A drawn index is read directly in that
    numbering (rows are drawn uniformly, so any fixed numbering gives the same
    resampling distribution). A's AUROC cumulates the drawn negatives, already
    in A's order; B's cumulates the drawn positives, already in B's order, and
    counts the pairs B gets wrong. Neither needs a reordering per resample.
    """

    def __init__(
        self, y_true: np.ndarray, score_a: np.ndarray, score_b: np.ndarray, order_a: np.ndarray, order_b: np.ndarray
    ) -> None:
        """``order_a`` / ``order_b``: ``curves.score_order`` of each submission's scores."""
        y = np.asarray(y_true).astype(bool)
        score_a = np.asarray(score_a, dtype=np.float64)
        score_b = np.asarray(score_b, dtype=np.float64)
        negatives = order_a[~y[order_a]]
        positives = order_b[y[order_b]]
        self.n_items = y.size
        self.n_negative = negatives.size
        # Positives above negatives under A; negatives above positives under B.
        self.wins_a = curves.CountRankSum(score_a[negatives], score_a[positives])
        self.losses_b = curves.CountRankSum(score_b[positives], score_b[negatives])

    def resample(self, rng: np.random.Generator, n_resamples: int) -> tuple[np.ndarray, np.ndarray]:
        """AUROC of A and of B under ``n_resamples`` resamples (NaN where a resample lacks a class)."""
        n, n_negative = self.n_items, self.n_negative
        out_a = np.full(n_resamples, np.nan)
        out_b = np.full(n_resamples, np.nan)
        scratch_negative = np.zeros(n_negative + 1, dtype=np.int64)
        scratch_positive = np.zeros(n - n_negative + 1, dtype=np.int64)
        for row in range(n_resamples):
            # One resample at a time: its arrays stay in the core's cache. Default
            # int64 draws, because np.bincount is several times slower on int32.
            counts = np.bincount(rng.integers(0, n, size=n), minlength=n)
            negative, positive = counts[:n_negative], counts[n_negative:]
            twice_a, negatives = self.wins_a.twice_below(negative, positive, scratch_negative)
            twice_lost_b, _ = self.losses_b.twice_below(positive, negative, scratch_positive)
            # Exact integers up to here; each AUROC is one correctly rounded division.
            total = 2 * (n - negatives) * negatives
            if total:
                out_a[row] = twice_a / total
                out_b[row] = (total - twice_lost_b) / total
        return out_a, out_b


def _usable_cpus() -> int:
    """CPUs this process may run on (a container may allow fewer than the machine has)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _pair_resamples(
    task: Task, a: PairAligned, b: PairAligned, n_resamples: int, seed: int
) -> tuple[list[float | None], list[tuple[np.ndarray, np.ndarray]]]:
    """Observed AUROC of A and B (None if undefined), and per split the arrays of their resampled AUROC.

    Each split is one job: its observed AUROCs (the same arithmetic as
    ``scoring.metrics.chemicalx``, sharing the score sorts with the resampling
    set-up), then its resamples. Nothing is resampled once an observed AUROC is
    undefined.
    """
    if task.primary != "auroc":
        raise ValueError(f"no bootstrap for primary metric {task.primary!r}")
    splits = sorted(a.seeds)
    generators = [np.random.default_rng(child) for child in np.random.SeedSequence(seed).spawn(len(splits))]

    def run(
        split: int, rng: np.random.Generator
    ) -> tuple[float | None, float | None, tuple[np.ndarray, np.ndarray] | None]:
        seed_a, seed_b = a.seeds[split], b.seeds[split]
        order_a, order_b = curves.score_order(seed_a.score), curves.score_order(seed_b.score)
        area_a = curves.roc_auc(curves.binary_counts(seed_a.y_true, seed_a.score, order_a))
        area_b = curves.roc_auc(curves.binary_counts(seed_b.y_true, seed_b.score, order_b))
        if area_a is None or area_b is None:
            return area_a, area_b, None
        unit = _PairedAuroc(seed_a.y_true, seed_a.score, seed_b.score, order_a, order_b)
        return area_a, area_b, unit.resample(rng, n_resamples)

    threads = max(1, min(MAX_THREADS, _usable_cpus(), len(splits)))
    if threads == 1:
        jobs = [run(split, rng) for split, rng in zip(splits, generators, strict=True)]
    else:
        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="bootstrap") as pool:
            jobs = list(pool.map(run, splits, generators))
    observed: list[float | None] = []
    for areas in ([job[0] for job in jobs], [job[1] for job in jobs]):
        if any(area is None for area in areas):
            observed.append(None)
            continue
        # summarise_seeds is what compute() uses, so the value is the leaderboard's to the last bit.
        per_split = {split: {"auroc": float(area or 0.0)} for split, area in zip(splits, areas, strict=True)}
        observed.append(summarise_seeds(per_split, "stderr", headline=["auroc"])["auroc"])
    # Every split was resampled once both observed AUROCs are defined (the only case the caller uses).
    return observed, [job[2] for job in jobs if job[2] is not None]


# A kind's units: (task, a, b) -> one Unit per seed (a and b are the kind's own aligned type).
Units = Callable[..., list[Unit]]
Resampled = tuple[tuple[float, float], np.ndarray, np.ndarray, int]


def _observed(task: Task, a: Aligned, b: Aligned) -> tuple[float, float]:
    observed = [metrics.compute(task, x).metrics.get(task.primary) for x in (a, b)]
    if observed[0] is None or observed[1] is None:
        raise ValueError(f"{task.primary} is not defined for both submissions")
    return observed[0], observed[1]


def unit_bootstrap(units_of: Units) -> Callable[..., Resampled]:
    """A kind's resampler from its units: one generator seeded with ``seed`` draws every unit in turn."""

    def resample(task: Task, a: Aligned, b: Aligned, n_resamples: int, seed: int) -> Resampled:
        observed = _observed(task, a, b)
        units = units_of(task, a, b)
        sum_a = np.zeros(n_resamples)
        sum_b = np.zeros(n_resamples)
        rng = np.random.default_rng(seed)
        # Each unit is one seed (one split); the metric is their mean.
        for n_items, metric_a, metric_b in units:
            chunk = max(1, CHUNK_CELLS // max(n_items, 1))
            for start in range(0, n_resamples, chunk):
                stop = min(n_resamples, start + chunk)
                weights = _draw_weights(rng, stop - start, n_items)
                sum_a[start:stop] += metric_a(weights)
                sum_b[start:stop] += metric_b(weights)
        return observed, sum_a, sum_b, len(units)

    return resample


def pair_bootstrap(task: Task, a: PairAligned, b: PairAligned, n_resamples: int, seed: int) -> Resampled:
    """ChemicalX's resampler: every split in its own thread with its own spawned generator."""
    observed, per_split = _pair_resamples(task, a, b, n_resamples, seed)
    if observed[0] is None or observed[1] is None:
        raise ValueError(f"{task.primary} is not defined for both submissions")
    sum_a = np.zeros(n_resamples)
    sum_b = np.zeros(n_resamples)
    for values_a, values_b in per_split:  # in split order, so the sums do not depend on threads
        sum_a += values_a
        sum_b += values_b
    return (observed[0], observed[1]), sum_a, sum_b, len(per_split)


def paired_bootstrap(task: Task, a: Aligned, b: Aligned, *, n_resamples: int = 1000, seed: int = 0) -> Bootstrap:
    """Paired bootstrap of the task's primary metric for submissions ``a`` and ``b``.

    Resamples test rows with replacement (MUDI: unordered gold pairs, carrying
    every prediction on either orientation). Deterministic for a given
    ``seed``. Raises ``ValueError`` when the primary metric is undefined for
    either submission or the task's kind has no bootstrap.
    """
    resample = kind_of(task).bootstrap
    if resample is None:
        raise ValueError(f"no paired bootstrap for {task.kind} tasks")
    observed, sum_a, sum_b, n_units = resample(task, a, b, n_resamples, seed)
    delta = observed[0] - observed[1]
    resampled = (sum_a - sum_b) / n_units
    resampled = resampled[np.isfinite(resampled)]
    extreme = np.count_nonzero(np.abs(resampled - delta) >= abs(delta))
    p_value = (extreme + 1) / (resampled.size + 1)
    return Bootstrap(
        metric=task.primary,
        observed_a=float(observed[0]),
        observed_b=float(observed[1]),
        delta=float(delta),
        p_value=float(p_value),
        n_resamples=int(resampled.size),
    )


def bootstrap_indistinguishable(
    task: Task, leader: Aligned, other: Aligned, *, n_resamples: int = 1000, seed: int = 0, alpha: float = ALPHA
) -> bool:
    """True when the paired bootstrap cannot tell ``other`` from ``leader`` (p >= alpha)."""
    return paired_bootstrap(task, leader, other, n_resamples=n_resamples, seed=seed).p_value >= alpha
