"""MUDI scoring: set-based precision, recall and F1 in two pair settings.

A submission and the gold standard are both turned into sets of (pair, class)
items, where a pair is the ordered (Drug1, Drug2) in the direction-aware
setting and the unordered {Drug1, Drug2} in the direction-agnostic one. Per
class: TP = predicted and gold, FP = predicted not gold, FN = gold not
predicted. "No Interaction" (label 3) is never a positive item.

Implementation: every pair gets a bit mask of its gold classes and one of its
predicted labels; all counts are sums of bit tests over pairs. The counts are
kept per *unordered gold pair* so that the paired bootstrap
(``scoring.significance``) can reweight pairs without recomputing anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from scoring.aligned import MUDI_NO_INTERACTION, MetricsResult, MudiAligned
from scoring.keys import MUDI_SETTINGS, is_count, mudi_key

CLASS_KEYS = ("synergism", "antagonism", "new_effect")
CLASS_NAMES = ("Synergism", "Antagonism", "New Effect")
SETTINGS = MUDI_SETTINGS
STATS = ("tp", "fp", "fn")
NOT_IN_GOLD = "(pair not in gold)"
NO_PREDICTION = "(no prediction)"


@dataclass(frozen=True)
class MudiCounts:
    """TP/FP/FN indicators summed per unordered gold pair.

    ``per_pair`` has shape (n_gold_pairs + 1, 2 settings, 3 classes, 3 stats).
    Row i < n_gold_pairs belongs to the i-th unordered gold pair (sorted by
    code); the last row collects predictions on pairs outside the gold set,
    which the readers normally reject, so the bootstrap gives it weight 1.
    """

    per_pair: np.ndarray
    n_gold_pairs: int
    confusion: dict[str, np.ndarray]  # setting -> (4, 5) counts, see confusion_labels()
    # (n_gold_pairs, 2) drug codes (smaller first) of each unordered gold pair, in per_pair's row order.
    gold_pair_drugs: np.ndarray | None = None

    def totals(self) -> np.ndarray:
        """Counts over the whole test set, shape (2, 3, 3)."""
        totals: np.ndarray = self.per_pair.sum(axis=0)
        return totals


def harmonic_mean(precision: np.ndarray | float, recall: np.ndarray | float) -> np.ndarray:
    """2PR / (P + R), 0 where P + R = 0. Works element-wise on arrays."""
    p = np.asarray(precision, dtype=np.float64)
    r = np.asarray(recall, dtype=np.float64)
    total = p + r
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, 2.0 * p * r / total, 0.0)


def macro_f1(precisions: np.ndarray, recalls: np.ndarray) -> float:
    """The paper's macro F1: harmonic mean of mean precision and mean recall."""
    return float(harmonic_mean(np.mean(precisions), np.mean(recalls)))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, 0.0)


def scores_from_counts(totals: np.ndarray) -> dict[str, np.ndarray]:
    """Every public MUDI metric from counts of shape (..., 2, 3, 3).

    The leading axes (e.g. bootstrap resamples) are kept, so this one
    function serves both the scorer and the bootstrap.
    """
    out: dict[str, np.ndarray] = {}
    for s, setting in enumerate(SETTINGS):
        tp, fp, fn = (totals[..., s, :, k] for k in range(3))
        precision = _ratio(tp, tp + fp)
        recall = _ratio(tp, tp + fn)
        f1 = harmonic_mean(precision, recall)
        for c, name in enumerate(CLASS_KEYS):
            values = {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}
            for stat, array in values.items():
                out[mudi_key(setting, name, stat)] = array[..., c]
            out[mudi_key(setting, name, "support")] = tp[..., c] + fn[..., c]
        sum_tp, sum_fp, sum_fn = tp.sum(-1), fp.sum(-1), fn.sum(-1)
        micro_p = _ratio(sum_tp, sum_tp + sum_fp)
        micro_r = _ratio(sum_tp, sum_tp + sum_fn)
        out[mudi_key(setting, "micro", "precision")] = micro_p
        out[mudi_key(setting, "micro", "recall")] = micro_r
        out[mudi_key(setting, "micro", "f1")] = harmonic_mean(micro_p, micro_r)
        macro_p = precision.mean(-1)
        macro_r = recall.mean(-1)
        out[mudi_key(setting, "macro", "precision")] = macro_p
        out[mudi_key(setting, "macro", "recall")] = macro_r
        # The paper's macro F1 (reproduces its Table 6), not the mean of class F1s.
        out[mudi_key(setting, "macro", "f1")] = harmonic_mean(macro_p, macro_r)
        out[mudi_key(setting, "macro", "f1_mean")] = f1.mean(-1)
    return out


def _pair_code(a: np.ndarray, b: np.ndarray, n: int, ordered: bool) -> np.ndarray:
    if not ordered:
        a, b = np.minimum(a, b), np.maximum(a, b)
    code: np.ndarray = a * n + b
    return code


def _label_masks(pair_index: np.ndarray, label: np.ndarray, n_pairs: int) -> np.ndarray:
    """OR of (1 << label) per pair; de-duplicating (pair, label) first makes the sum an OR."""
    items = np.unique(pair_index * 4 + label)
    return np.bincount(items >> 2, weights=1 << (items & 3), minlength=n_pairs).astype(np.int64)


def pair_counts(aligned: MudiAligned) -> MudiCounts:
    """Turn aligned gold and predictions into per-pair counts for both settings."""
    arrays = [aligned.gold_a, aligned.gold_b, aligned.pred_a, aligned.pred_b]
    ga, gb, pa, pb = (np.asarray(x, dtype=np.int64) for x in arrays)
    gl = np.asarray(aligned.gold_label, dtype=np.int64)
    pl = np.asarray(aligned.pred_label, dtype=np.int64)
    n = max([len(aligned.drug_names)] + [int(x.max()) + 1 for x in (ga, gb, pa, pb) if x.size])
    gold_unordered = np.unique(_pair_code(ga, gb, n, ordered=False))
    n_gold = gold_unordered.size
    per_pair = np.zeros((n_gold + 1, len(SETTINGS), 3, 3))
    confusion: dict[str, np.ndarray] = {}
    for s, setting in enumerate(SETTINGS):
        ordered = setting == "aware"
        gold_pairs = _pair_code(ga, gb, n, ordered)
        pairs, inverse = np.unique(np.r_[gold_pairs, _pair_code(pa, pb, n, ordered)], return_inverse=True)
        gmask = _label_masks(inverse[: ga.size], gl, pairs.size)
        qmask = _label_masks(inverse[ga.size :], pl, pairs.size)
        # Attach every pair of this setting to its unordered gold pair.
        unordered = _pair_code(pairs // n, pairs % n, n, ordered=False)
        slot = np.searchsorted(gold_unordered, unordered)
        inside = slot < n_gold
        inside[inside] = gold_unordered[slot[inside]] == unordered[inside]
        slot = np.where(inside, slot, n_gold)
        gbits = [(gmask >> c) & 1 for c in range(3)]
        qbits = [(qmask >> c) & 1 for c in range(4)]
        for c in range(3):
            indicators = (gbits[c] & qbits[c], qbits[c] & (1 - gbits[c]), gbits[c] & (1 - qbits[c]))
            for k, indicator in enumerate(indicators):
                per_pair[:, s, c, k] = np.bincount(slot, weights=indicator, minlength=n_gold + 1)
        rows = np.stack([*gbits, (gmask == 0).astype(np.int64)], axis=1).astype(np.float64)
        cols = np.stack([*qbits, (qmask == 0).astype(np.int64)], axis=1).astype(np.float64)
        confusion[setting] = (rows.T @ cols).round().astype(np.int64)
    drugs = np.stack([gold_unordered // n, gold_unordered % n], axis=1)
    return MudiCounts(per_pair=per_pair, n_gold_pairs=n_gold, confusion=confusion, gold_pair_drugs=drugs)


def confusion_labels() -> tuple[list[str], list[str]]:
    """Row (gold) and column (predicted) labels of the MUDI confusion matrix."""
    predicted = [*CLASS_NAMES, "No Interaction", NO_PREDICTION]
    assert len(predicted) == MUDI_NO_INTERACTION + 2
    return [*CLASS_NAMES, NOT_IN_GOLD], predicted


def result_from_counts(aligned: MudiAligned, counts: MudiCounts) -> MetricsResult:
    """Every ``{setting}/{scope}/{stat}`` key plus a report, from counts made by ``pair_counts``.

    The kind's ``compute`` (``scoring.kinds.mudi``) calls ``pair_counts`` once and reuses the counts per drug.
    """
    scores = scores_from_counts(counts.totals())
    metrics: dict[str, float] = {}
    for key, value in scores.items():
        metrics[key] = int(round(float(value))) if is_count(key) else float(value)
    true_labels, predicted_labels = confusion_labels()
    report: dict[str, Any] = {
        "n_gold_rows": int(len(aligned.gold_label)),
        "n_prediction_rows": int(len(aligned.pred_label)),
    }
    report["n_gold_unordered_pairs"] = counts.n_gold_pairs
    for setting in SETTINGS:
        rows = []
        for key, name in zip(CLASS_KEYS, CLASS_NAMES, strict=True):
            row: dict[str, Any] = {"class": name}
            for stat in ("precision", "recall", "f1", "tp", "fp", "fn", "support"):
                row[stat] = metrics[mudi_key(setting, key, stat)]
            rows.append(row)
        report[setting] = {
            "per_class": rows,
            "micro": {stat: metrics[mudi_key(setting, "micro", stat)] for stat in ("precision", "recall", "f1")},
            "macro": {
                stat: metrics[mudi_key(setting, "macro", stat)] for stat in ("precision", "recall", "f1", "f1_mean")
            },
            "confusion_matrix": {
                "true_labels": true_labels,
                "predicted_labels": predicted_labels,
                "matrix": counts.confusion[setting].tolist(),
            },
        }
    return MetricsResult(metrics=metrics, report=report)
