"""ChemicalX drug pair scoring: AUROC, AUPR and F1 over 10 random splits.

Per split: AUROC, the trapezoidal area under the precision-recall curve (not
average precision), and the F1 of the positive class with propensity > 0.5
(strictly) counted as positive: the authors' three metrics. Beside them, average
precision, which the boards show unranked because the authors' trapezoidal AUPR
gives a constant score (1 + prevalence) / 2. Summary: mean and standard error
(population std / sqrt(number of splits)).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scoring.aligned import MetricsResult, PairAligned, PairSeed
from scoring.keys import context_key
from scoring.metrics import curves
from scoring.metrics.calibration import reliability
from scoring.metrics.seeds import summarise_seeds

HEADLINE = ("auroc", "aupr", "average_precision", "f1")
THRESHOLD = 0.5
# Contexts listed in the report. TWOSIDES in full has ~1,000 side effects; a row per context is
# ~100 bytes of JSON, so even that stays small. The cap guards against a file with far more.
MAX_CONTEXTS_IN_REPORT = 5000


def f1_at_threshold(y_true: np.ndarray, score: np.ndarray, threshold: float = THRESHOLD) -> float:
    """F1 of the positive class, predicting positive iff score > threshold (0 if undefined)."""
    y = np.asarray(y_true).astype(bool)
    predicted = np.asarray(score) > threshold
    tp = float(np.count_nonzero(predicted & y))
    errors = float(np.count_nonzero(predicted ^ y))
    return 2 * tp / (2 * tp + errors) if tp > 0 else 0.0


def seed_metrics(seed: PairSeed, order: np.ndarray | None = None) -> tuple[dict[str, float], curves.BinaryCounts]:
    """AUROC, AUPR, average precision and F1 of one split; the areas are absent if the split has one class.

    ``order`` is an optional ``curves.score_order(seed.score)`` to reuse.
    """
    counts = curves.binary_counts(seed.y_true, seed.score, order)
    values: dict[str, float] = {}
    auroc = curves.roc_auc(counts)
    aupr = curves.pr_auc(counts)
    average_precision = curves.average_precision(counts)
    if auroc is not None and aupr is not None and average_precision is not None:  # all need both classes
        values["auroc"] = auroc
        values["aupr"] = aupr
        values["average_precision"] = average_precision
    values["f1"] = f1_at_threshold(seed.y_true, seed.score)
    return values, counts


def _per_context(aligned: PairAligned, orders: dict[int, np.ndarray]) -> dict[str, Any]:
    """AUROC per context: the mean over the splits where the context's test rows have both classes.

    ``orders`` holds every split's ``curves.score_order``. A context whose rows
    have a single class in every split has no AUROC and is only counted, as is
    every (context, split) with a single class. Rows are sorted by context name
    and capped at ``MAX_CONTEXTS_IN_REPORT``; the counts are over all contexts.
    """
    n_contexts = len(aligned.context_names)
    area_sum = np.zeros(n_contexts)
    n_splits = np.zeros(n_contexts, dtype=np.int64)
    rows = np.zeros(n_contexts, dtype=np.int64)
    positives = np.zeros(n_contexts, dtype=np.int64)
    one_class_splits = 0
    for seed_id, seed in aligned.seeds.items():
        area, n_pos, n_neg = curves.grouped_roc_auc(seed.y_true, seed.score, seed.context, n_contexts, orders[seed_id])
        defined = ~np.isnan(area)
        area_sum[defined] += area[defined]
        n_splits += defined
        present = (n_pos + n_neg) > 0
        one_class_splits += int(np.count_nonzero(present & ~defined))
        rows += (n_pos + n_neg).astype(np.int64)
        positives += n_pos.astype(np.int64)
    scored = np.flatnonzero(n_splits > 0)
    one_class = np.flatnonzero((n_splits == 0) & (rows > 0))
    order = sorted(scored, key=lambda c: aligned.context_names[c])
    listed = [
        {
            "context": aligned.context_names[c],
            "auroc": float(area_sum[c] / n_splits[c]),
            "n_splits": int(n_splits[c]),
            "n_rows": int(rows[c]),
            "n_positive": int(positives[c]),
        }
        for c in order[:MAX_CONTEXTS_IN_REPORT]
    ]
    return {
        "per_context": listed,
        "per_context_truncated": len(order) > len(listed),
        "per_context_counts": {
            "scored": len(scored),
            "one_class": len(one_class),
            "one_class_splits": one_class_splits,
        },
        "per_context_one_class": sorted(aligned.context_names[c] for c in one_class)[:MAX_CONTEXTS_IN_REPORT],
        "_areas": area_sum[scored] / n_splits[scored],
    }


def context_summary(areas: np.ndarray) -> dict[str, float]:
    """``context/auroc/{median,min,max}`` over the contexts with an AUROC (absent when none has one)."""
    if areas.size == 0:
        return {}
    return {
        context_key("median"): float(np.median(areas)),
        context_key("min"): float(np.min(areas)),
        context_key("max"): float(np.max(areas)),
    }


def compute(aligned: PairAligned) -> MetricsResult:
    """Score a ChemicalX submission over all its splits."""
    per_seed: dict[int, dict[str, float]] = {}
    roc: list[dict[str, Any]] = []
    pr: list[dict[str, Any]] = []
    # One sort of the scores per split serves the curves and the per-context AUROC.
    orders = {seed_id: curves.score_order(seed.score) for seed_id, seed in aligned.seeds.items()}
    for seed_id in sorted(aligned.seeds):
        values, counts = seed_metrics(aligned.seeds[seed_id], orders[seed_id])
        per_seed[seed_id] = values
        if counts.has_both_classes:
            fpr, tpr = curves.roc_points(counts)
            recall, precision = curves.pr_points(counts)
            roc_xy = curves.downsample(fpr, tpr)
            pr_xy = curves.downsample(recall, precision)
            roc.append({"seed": seed_id, "fpr": roc_xy["x"], "tpr": roc_xy["y"]})
            pr.append({"seed": seed_id, "recall": pr_xy["x"], "precision": pr_xy["y"]})
    metrics = summarise_seeds(per_seed, "stderr", headline=HEADLINE)
    contexts = _per_context(aligned, orders)
    metrics.update(context_summary(contexts.pop("_areas")))
    calibration = [
        {"seed": seed_id, **curve}
        for seed_id in sorted(aligned.seeds)
        if (curve := reliability(aligned.seeds[seed_id].y_true, aligned.seeds[seed_id].score)) is not None
    ]
    report = {
        "seeds": [
            {
                "seed": s,
                "n": int(len(aligned.seeds[s].y_true)),
                "n_positive": int(np.count_nonzero(aligned.seeds[s].y_true)),
                **per_seed[s],
            }
            for s in sorted(per_seed)
        ],
        "roc": roc,
        "pr": pr,
        **contexts,
        "calibration": calibration,
    }
    return MetricsResult(metrics=metrics, report=report)
