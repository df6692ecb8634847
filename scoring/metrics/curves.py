"""Binary ROC and precision-recall arithmetic, vectorised.

Everything starts from one descending sort of the scores and cumulative sums of
the labels, evaluated at the last row of every group of tied scores, which is
how scikit-learn's ``_binary_clf_curve`` treats ties. Results agree with
``roc_auc_score`` and with ``auc(recall, precision)`` over
``precision_recall_curve`` (see tests/scoring/test_metrics_properties.py), but
the hot path never calls scikit-learn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_CURVE_POINTS = 200


@dataclass(frozen=True)
class BinaryCounts:
    """Cumulative false/true positive counts at each distinct threshold, highest first."""

    fps: np.ndarray  # float64
    tps: np.ndarray  # float64
    thresholds: np.ndarray

    @property
    def n_pos(self) -> float:
        return float(self.tps[-1]) if self.tps.size else 0.0

    @property
    def n_neg(self) -> float:
        return float(self.fps[-1]) if self.fps.size else 0.0

    @property
    def has_both_classes(self) -> bool:
        return self.n_pos > 0 and self.n_neg > 0


def score_order(score: np.ndarray) -> np.ndarray:
    """Indices that sort ``score`` ascending, in any order among tied scores.

    Compute it once and pass it to ``binary_counts`` and ``grouped_roc_auc``:
    the sort is the dominant cost of both, and neither depends on how ties are
    ordered.
    """
    return np.argsort(np.asarray(score, dtype=np.float64))


def binary_counts(y_true: np.ndarray, score: np.ndarray, order: np.ndarray | None = None) -> BinaryCounts:
    """Count positives and negatives scored at or above every distinct score.

    ``y_true`` is boolean or 0/1; ``score`` any real numbers; ``order`` an
    optional ``score_order(score)`` to reuse. One argsort, one cumulative sum.
    """
    y = np.asarray(y_true)
    s = np.asarray(score, dtype=np.float64)
    # Any sort will do: rows with tied scores are counted together below.
    order = (score_order(s) if order is None else order)[::-1]
    s = s[order]
    # The last row of each run of equal scores closes one threshold, so tied
    # rows enter the curve together (one diagonal segment), as in scikit-learn.
    ends = np.r_[np.flatnonzero(np.diff(s)), s.size - 1] if s.size else np.array([], dtype=np.int64)
    tps = np.cumsum(y[order], dtype=np.float64)[ends]
    fps = (ends + 1) - tps
    return BinaryCounts(fps=fps, tps=tps, thresholds=s[ends])


def _trapezoid(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1])) / 2.0)


def roc_points(counts: BinaryCounts) -> tuple[np.ndarray, np.ndarray]:
    """False and true positive rates, starting at (0, 0). Needs both classes."""
    fpr = np.r_[0.0, counts.fps / counts.n_neg]
    tpr = np.r_[0.0, counts.tps / counts.n_pos]
    return fpr, tpr


def pr_points(counts: BinaryCounts) -> tuple[np.ndarray, np.ndarray]:
    """Recall and precision in increasing-recall order, starting at (0, 1).

    Same points as scikit-learn's ``precision_recall_curve`` (which lists them
    in the reverse order and appends the same (recall 0, precision 1) end).
    Needs at least one positive.
    """
    precision = counts.tps / (counts.tps + counts.fps)
    recall = counts.tps / counts.n_pos
    return np.r_[0.0, recall], np.r_[1.0, precision]


def roc_auc(counts: BinaryCounts) -> float | None:
    """Area under the ROC curve, or None when only one class is present."""
    if not counts.has_both_classes:
        return None
    return _trapezoid(*roc_points(counts))


def pr_auc(counts: BinaryCounts) -> float | None:
    """Trapezoidal area under the PR curve (not average precision).

    None when only one class is present: with no positives recall is
    undefined, and with no negatives the area is trivially 1.
    """
    if not counts.has_both_classes:
        return None
    return _trapezoid(*pr_points(counts))


def average_precision(counts: BinaryCounts) -> float | None:
    """Step-wise average precision: the sum over thresholds of precision times the recall gained.

    Unlike the trapezoidal ``pr_auc`` it does not reward a constant score: one
    threshold gives recall 1 at precision = prevalence, so a constant scores the
    prevalence, where the trapezoid gets (1 + prevalence) / 2. Same value as
    scikit-learn's ``average_precision_score``.
    """
    if not counts.has_both_classes:
        return None
    recall, precision = pr_points(counts)
    return float(np.sum(np.diff(recall) * precision[1:]))


def downsample(x: np.ndarray, y: np.ndarray, max_points: int = MAX_CURVE_POINTS) -> dict[str, list[float]]:
    """Keep at most ``max_points`` evenly spaced points (always the first and last)."""
    if x.size > max_points:
        keep = np.unique(np.linspace(0, x.size - 1, max_points).round().astype(np.int64))
        x, y = x[keep], y[keep]
    return {"x": [float(v) for v in x], "y": [float(v) for v in y]}


def grouped_roc_auc(
    y_true: np.ndarray,
    score: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    order: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """AUROC of every group at once, by the rank-sum (Mann-Whitney) formula.

    Returns (auroc, n_pos, n_neg) float64 arrays of length ``n_groups``; auroc
    is NaN for a group without both classes. Tied scores get their mid-rank,
    which gives the same area as the trapezoidal ROC curve. ``order`` is an
    optional ``score_order(score)`` to reuse.
    """
    y = np.asarray(y_true, dtype=bool)  # flatnonzero is several times faster on booleans than on int8
    s = np.asarray(score, dtype=np.float64)
    g = np.asarray(group)
    n = y.size
    if n == 0:
        empty = np.zeros(n_groups)
        return np.full(n_groups, np.nan), empty, empty.copy()
    if order is None:
        order = score_order(s)
    # A stable sort of the group codes taken in score order yields (group, score)
    # order. numpy radix-sorts 16-bit integers: far cheaper than a second float
    # sort or np.lexsort.
    codes = g[order]
    codes = codes.astype(np.int16) if n_groups <= np.iinfo(np.int16).max else codes.astype(np.int64)
    by_group = np.argsort(codes, kind="stable")
    order = order[by_group]
    codes = codes[by_group]
    s = s[order]
    positives = np.flatnonzero(y[order])
    # Rows and positives are both sorted by group now: a group's slice bounds come
    # from a binary search of its code, its sums from differences of one cumulative sum.
    groups = np.arange(n_groups + 1)
    bounds = np.searchsorted(codes, groups)
    group_start, n_all = bounds[:-1], np.diff(bounds)
    positive_bounds = np.searchsorted(codes[positives], groups)
    n_pos = np.diff(positive_bounds).astype(np.float64)
    n_neg = n_all - n_pos
    # Every positive's rank inside its group, first as if no score were tied: its
    # 1-based sorted position less its group's start ...
    position_sum = np.r_[0.0, np.cumsum(positives + 1.0)][positive_bounds]
    rank_sum = np.diff(position_sum) - group_start * n_pos
    # ... then, for the rows of a run of tied (group, score), moved to the run's
    # mid-rank. Only the tied rows are touched: few, for real-valued predictions.
    same_as_next = np.zeros(n, dtype=bool)
    np.equal(s[1:], s[:-1], out=same_as_next[:-1])
    same_as_next[:-1] &= codes[1:] == codes[:-1]
    if same_as_next.any():
        in_run = same_as_next.copy()
        in_run[1:] |= same_as_next[:-1]
        tied = np.flatnonzero(in_run)
        starts = np.ones(tied.size, dtype=bool)
        starts[1:] = ~same_as_next[tied[:-1]]
        run = np.cumsum(starts) - 1
        first, last = tied[starts], tied[np.r_[starts[1:], True]]
        mid = (first + last + 2) / 2.0  # the mean of the 1-based positions first+1 .. last+1
        is_positive = y[order[tied]]
        tied_positives = tied[is_positive]
        correction = mid[run[is_positive]] - (tied_positives + 1.0)
        rank_sum += np.bincount(codes[tied_positives], weights=correction, minlength=n_groups)
    # Ranks are integers or half-integers, so these sums are exact whatever the order of the rows.
    with np.errstate(divide="ignore", invalid="ignore"):
        auroc = (rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
    auroc[(n_pos == 0) | (n_neg == 0)] = np.nan
    return auroc, n_pos, n_neg


class WeightedRocAuc:
    """AUROC of one fixed (labels, scores) set under many row weightings.

    The sort and tie groups are computed once; calling the object with a
    (n_resamples, n) matrix of integer weights (row r = item i repeated
    ``weights[r, i]`` times, as in a bootstrap) returns one AUROC per row,
    NaN where a resample lacks a class.
    """

    def __init__(self, y_true: np.ndarray, score: np.ndarray) -> None:
        y = np.asarray(y_true).astype(bool)
        s = np.asarray(score, dtype=np.float64)
        self.order = np.argsort(s, kind="mergesort")
        s, y = s[self.order], y[self.order]
        new_tie = np.r_[True, s[1:] != s[:-1]]
        tie_start = np.flatnonzero(new_tie)
        tie_end = np.r_[tie_start[1:], s.size]
        tie_id = np.cumsum(new_tie) - 1
        self.negative = ~y
        self.positives = np.flatnonzero(y)
        self.below = tie_start[tie_id[self.positives]]
        self.through = tie_end[tie_id[self.positives]]

    def __call__(self, weights: np.ndarray) -> np.ndarray:
        # float32 is exact here: weights and their running sums are integers
        # far below 2**24, and halving the memory traffic is what makes it fast.
        w = np.asarray(weights, dtype=np.float32)[:, self.order]
        neg_cum = np.zeros((w.shape[0], w.shape[1] + 1), dtype=np.float32)
        np.cumsum(w * self.negative, axis=1, out=neg_cum[:, 1:])
        w_pos = w[:, self.positives]
        # Each positive beats the negatives scored lower and half-beats tied ones:
        # below + (through - below) / 2 = (below + through) / 2.
        tied_or_below = neg_cum[:, self.below] + neg_cum[:, self.through]
        wins = 0.5 * np.einsum("ij,ij->i", w_pos, tied_or_below, dtype=np.float64)
        total = w_pos.sum(axis=1, dtype=np.float64) * neg_cum[:, -1].astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, wins / total, np.nan)


class CountRankSum:
    """Pairs (drawn reference item, drawn query item) with the reference scored lower, under many count vectors.

    Built once from the reference items' scores, in increasing order, and the
    query items' scores. ``twice_below`` then takes how often each item was
    drawn (int64 counts, the reference part in that increasing order) and
    returns, in exact integer arithmetic, twice the number of drawn pairs with
    the reference below the query, a tie counting half: one cumulative sum over
    the references, one gather and one dot product per call, and no sort.

    With negatives as references and positives as queries this is twice the
    Mann-Whitney statistic, AUROC x 2 x positives x negatives; with the roles
    swapped it counts the complement, so AUROC's numerator is (2 x positives x
    negatives - the result). ``scoring.significance`` uses both, so that each
    of the two compared submissions has its own cumulated part in score order.
    """

    def __init__(self, reference_scores: np.ndarray, query_scores: np.ndarray) -> None:
        reference = np.asarray(reference_scores, dtype=np.float64)
        query = np.asarray(query_scores, dtype=np.float64)
        if np.any(reference[1:] < reference[:-1]):
            raise ValueError("reference scores must be in increasing order")
        self.n_reference = reference.size
        self.below = np.searchsorted(reference, query, side="left")
        through = np.searchsorted(reference, query, side="right")
        # Queries tied with some reference; usually few, so they get a second, smaller pass.
        self.tied = np.flatnonzero(through > self.below)
        self.tied_below = self.below[self.tied]
        self.tied_through = through[self.tied]

    def twice_below(
        self, reference_counts: np.ndarray, query_counts: np.ndarray, scratch: np.ndarray | None = None
    ) -> tuple[int, int]:
        """(2 x drawn pairs with the reference below the query + drawn tied pairs, total drawn references).

        ``scratch``, an optional int64 buffer of ``n_reference + 1`` entries
        whose first entry is 0, saves an allocation per call.
        """
        if scratch is None:
            scratch = np.zeros(self.n_reference + 1, dtype=np.int64)
        # scratch[i] = drawn references among the i lowest-scored ones.
        np.cumsum(reference_counts, out=scratch[1:])
        # einsum's integer dot product is about twice as fast as matmul's here.
        twice = 2 * int(np.einsum("i,i->", query_counts, np.take(scratch, self.below)))
        if self.tied.size:
            tied_references = np.take(scratch, self.tied_through) - np.take(scratch, self.tied_below)
            twice += int(np.einsum("i,i->", np.take(query_counts, self.tied), tied_references))
        return twice, int(scratch[-1])


def count_roc_auc(y_true: np.ndarray, score: np.ndarray, counts: np.ndarray) -> float:
    """AUROC with item i counted ``counts[i]`` times (NaN without both classes), via ``CountRankSum``."""
    y = np.asarray(y_true).astype(bool)
    s = np.asarray(score, dtype=np.float64)
    w = np.asarray(counts, dtype=np.int64)
    negatives = np.flatnonzero(~y)
    negatives = negatives[np.argsort(s[negatives], kind="stable")]
    twice, n_negative = CountRankSum(s[negatives], s[y]).twice_below(w[negatives], w[y])
    total = 2 * (int(w[y].sum())) * n_negative
    return twice / total if total else float("nan")


def weighted_roc_auc(y_true: np.ndarray, score: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """AUROC under each row of integer row weights; see ``WeightedRocAuc``."""
    return WeightedRocAuc(y_true, score)(weights)
