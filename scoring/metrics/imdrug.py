"""ImDrug scoring: balanced accuracy, balanced F1, one-vs-rest AUROC, MSE/MAE.

Every metric is computed per seed (each seed has its own split and test
rows) and then summarised as mean and population standard deviation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scoring import longtail
from scoring.aligned import (
    ClassificationAligned,
    ClassificationSeed,
    MetricsResult,
    RegressionAligned,
)
from scoring.keys import class_key, parse_group
from scoring.metrics import curves
from scoring.metrics.calibration import reliability
from scoring.metrics.seeds import summarise_seeds

CLASSIFICATION_HEADLINE = ("balanced_accuracy", "balanced_f1", "auroc", "macro_f1")
REGRESSION_HEADLINE = ("mse", "mae")
# One-vs-rest curves for every class are only drawn for small label sets.
MAX_CLASSES_WITH_CURVES = 10


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, 0.0)


def confusion_matrix(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> np.ndarray:
    """Counts with rows = gold class, columns = predicted class."""
    codes = np.asarray(y_true, dtype=np.int64) * n_classes + np.asarray(y_pred, dtype=np.int64)
    return np.bincount(codes, minlength=n_classes * n_classes).reshape(n_classes, n_classes)


def balanced_accuracy(cm: np.ndarray) -> float:
    """Mean per-class recall over the classes present in the gold labels."""
    support = cm.sum(axis=1)
    present = support > 0
    return float(np.mean(np.diag(cm)[present] / support[present]))


def balanced_precision_recall(cm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-class precision and recall on the row-normalised confusion matrix.

    With R = cm / row sums, recall_i = R_ii and precision_i = R_ii / sum_j R_ji:
    the precision the classifier would have if every class had equal support.
    A class without gold rows has an all-zero row.
    """
    support = cm.sum(axis=1, keepdims=True).astype(np.float64)
    normalised = _ratio(cm.astype(np.float64), support)
    recall = np.diag(normalised)
    precision = _ratio(recall, normalised.sum(axis=0))
    return precision, recall


def balanced_f1(cm: np.ndarray) -> float:
    """ImDrug's balanced F1: mean F1 of the row-normalised matrix over gold-or-predicted classes."""
    precision, recall = balanced_precision_recall(cm)
    f1 = _ratio(2 * precision * recall, precision + recall)
    used = (cm.sum(axis=1) > 0) | (cm.sum(axis=0) > 0)
    return float(np.mean(f1[used]))


def sklearn_per_class(cm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ordinary per-class precision, recall and F1 (0 where undefined), as scikit-learn."""
    tp = np.diag(cm).astype(np.float64)
    support = cm.sum(axis=1)
    predicted = cm.sum(axis=0)
    return _ratio(tp, predicted), _ratio(tp, support), _ratio(2 * tp, support + predicted)


def class_aurocs(y_true: np.ndarray, proba: np.ndarray) -> np.ndarray:
    """Per-class one-vs-rest AUROC of each probability column; NaN for a class without gold rows (or others)."""
    y = np.asarray(y_true)
    areas = np.full(proba.shape[1], np.nan)
    for k in range(proba.shape[1]):
        area = curves.roc_auc(curves.binary_counts(y == k, proba[:, k]))
        if area is not None:
            areas[k] = area
    return areas


def ovr_auroc(y_true: np.ndarray, proba: np.ndarray, areas: np.ndarray | None = None) -> float | None:
    """One-vs-rest AUROC, unweighted mean over classes; None if gold has one class.

    Binary tasks use the ordinary AUROC of the positive-class column. In the
    multi-class case a class absent from the gold labels scores 0.5, as in the
    authors' tooling. ``areas`` are this seed's ``class_aurocs``, when already computed.
    """
    y = np.asarray(y_true)
    n_classes = proba.shape[1]
    if np.unique(y).size < 2:
        return None
    if areas is not None:
        return float(areas[1]) if n_classes == 2 else float(np.mean(np.where(np.isnan(areas), 0.5, areas)))
    if n_classes == 2:
        return curves.roc_auc(curves.binary_counts(y == 1, proba[:, 1]))
    areas_list = []
    for k in range(n_classes):
        area = curves.roc_auc(curves.binary_counts(y == k, proba[:, k]))
        areas_list.append(0.5 if area is None else area)
    return float(np.mean(areas_list))


def _group_values(cm: np.ndarray, areas: np.ndarray | None, class_groups: longtail.ClassGroups) -> dict[str, float]:
    """One seed's head/middle/tail values, averaged by class id (``scoring.longtail``)."""
    precision, recall = balanced_precision_recall(cm)
    f1 = _ratio(2 * precision * recall, precision + recall)
    gold = cm.sum(axis=1) > 0
    used = gold | (cm.sum(axis=0) > 0)
    return longtail.group_values(class_groups, recall, f1, gold, used, areas)


def _classification_seed(
    seed: ClassificationSeed, class_names: tuple[str, ...], class_groups: longtail.ClassGroups | None = None
) -> tuple[dict[str, float], dict[str, Any]]:
    n_classes = len(class_names)
    cm = confusion_matrix(seed.y_true, seed.y_pred, n_classes)
    support = cm.sum(axis=1)
    used = (support > 0) | (cm.sum(axis=0) > 0)
    precision, recall, f1 = sklearn_per_class(cm)
    values: dict[str, float] = {
        "balanced_accuracy": balanced_accuracy(cm),
        "balanced_f1": balanced_f1(cm),
        "macro_f1": float(np.mean(f1[used])),
    }
    areas = None
    if seed.proba is not None:
        proba = np.asarray(seed.proba, dtype=np.float64)
        # With a grouping the per-class areas serve both the task's AUROC and the groups'.
        areas = class_aurocs(seed.y_true, proba) if class_groups is not None else None
        area = ovr_auroc(seed.y_true, proba, areas)
        if area is not None:
            values["auroc"] = area
    if class_groups is not None:
        values.update(_group_values(cm, areas, class_groups))
    for k, name in enumerate(class_names):
        # Recall needs gold rows; F1 follows scikit-learn's label set (gold or predicted).
        if support[k] > 0:
            values[class_key(name, "recall")] = float(recall[k])
        if used[k]:
            values[class_key(name, "f1")] = float(f1[k])
    return values, {"cm": cm, "precision": precision, "balanced": balanced_precision_recall(cm)}


def _class_curves(aligned: ClassificationAligned) -> dict[str, list[dict[str, Any]]]:
    """ROC/PR points per seed: the positive class of binary tasks, every class of small tasks."""
    roc: list[dict[str, Any]] = []
    pr: list[dict[str, Any]] = []
    n_classes = len(aligned.class_names)
    if n_classes > MAX_CLASSES_WITH_CURVES:
        return {"roc": roc, "pr": pr}
    for seed_id in sorted(aligned.seeds):
        seed = aligned.seeds[seed_id]
        if seed.proba is None:
            continue
        proba = np.asarray(seed.proba, dtype=np.float64)
        for k in [1] if n_classes == 2 else range(n_classes):
            counts = curves.binary_counts(np.asarray(seed.y_true) == k, proba[:, k])
            if not counts.has_both_classes:
                continue
            label = {"seed": seed_id, "class": aligned.class_names[k]}
            fpr, tpr = curves.roc_points(counts)
            recall, precision = curves.pr_points(counts)
            roc.append({**label, **_xy(curves.downsample(fpr, tpr), "fpr", "tpr")})
            pr.append({**label, **_xy(curves.downsample(recall, precision), "recall", "precision")})
    return {"roc": roc, "pr": pr}


def _group_report(
    class_groups: longtail.ClassGroups,
    names: tuple[str, ...],
    per_seed: dict[int, dict[str, float]],
    metrics: dict[str, float],
) -> dict[str, Any]:
    """The grouping, its values (mean and std over seeds, as the metrics) and per-seed values, for the pages."""
    summary = {k: v for k, v in metrics.items() if parse_group(k) or parse_group(k.rsplit("/", 1)[0])}
    return {
        "summary": summary,
        "sizes": dict(longtail.group_counts(class_groups)),
        "classes": {
            g: [n for n, x in zip(names, class_groups, strict=True) if x == g] for g in longtail.groups_in(class_groups)
        },
        "seeds": [{"seed": s, **{k: v for k, v in per_seed[s].items() if parse_group(k)}} for s in sorted(per_seed)],
    }


def _calibration(aligned: ClassificationAligned) -> list[dict[str, Any]]:
    """Reliability curves per seed of a binary task's positive-class probabilities (empty otherwise)."""
    if len(aligned.class_names) != 2:
        return []
    out = []
    for seed_id in sorted(aligned.seeds):
        seed = aligned.seeds[seed_id]
        if seed.proba is None:
            continue
        curve = reliability(np.asarray(seed.y_true) == 1, np.asarray(seed.proba, dtype=np.float64)[:, 1])
        if curve is not None:
            out.append({"seed": seed_id, **curve})
    return out


def _xy(points: dict[str, list[float]], x: str, y: str) -> dict[str, list[float]]:
    return {x: points["x"], y: points["y"]}


def compute_classification(aligned: ClassificationAligned) -> MetricsResult:
    """Score an ImDrug classification submission over all its seeds."""
    names = aligned.class_names
    per_seed: dict[int, dict[str, float]] = {}
    details: dict[int, dict[str, Any]] = {}
    for seed_id in sorted(aligned.seeds):
        per_seed[seed_id], details[seed_id] = _classification_seed(aligned.seeds[seed_id], names, aligned.class_groups)
    # A group's value is a mean over seeds only when every seed has it, like the headline metrics.
    group_keys = [key for values in per_seed.values() for key in values if parse_group(key)]
    metrics = summarise_seeds(per_seed, "std", headline=(*CLASSIFICATION_HEADLINE, *group_keys))

    total_cm = sum(d["cm"] for d in details.values())
    rows = []
    for k, name in enumerate(names):
        # Per-class rows average over the seeds where the class is scored at all.
        seeds_used = [s for s in details if details[s]["cm"][k].sum() + details[s]["cm"][:, k].sum() > 0]
        if not seeds_used:
            continue
        row = {"class": name, "index": k, "support": int(total_cm[k].sum())}
        row["precision"] = float(np.mean([details[s]["precision"][k] for s in seeds_used]))
        row["recall"] = metrics.get(class_key(name, "recall"))
        row["f1"] = metrics.get(class_key(name, "f1"))
        row["balanced_precision"] = float(np.mean([details[s]["balanced"][0][k] for s in seeds_used]))
        rows.append(row)
    report = {
        "seeds": [
            {
                "seed": s,
                "n": int(len(aligned.seeds[s].y_true)),
                **{k: v for k, v in per_seed[s].items() if "/" not in k},
            }
            for s in sorted(per_seed)
        ],
        "per_class": rows,
        "confusion_matrix": {
            "true_labels": list(names),
            "predicted_labels": list(names),
            "matrix": total_cm.tolist(),
            "summed_over_seeds": True,
        },
        **_class_curves(aligned),
        "calibration": _calibration(aligned),
    }
    if aligned.class_groups is not None:
        report["groups"] = _group_report(aligned.class_groups, names, per_seed, metrics)
    return MetricsResult(metrics=metrics, report=report)


def compute_regression(aligned: RegressionAligned) -> MetricsResult:
    """Score an ImDrug regression submission: MSE and MAE per seed, then mean and std."""
    per_seed: dict[int, dict[str, float]] = {}
    scatter = []
    for seed_id in sorted(aligned.seeds):
        seed = aligned.seeds[seed_id]
        y = np.asarray(seed.y_true, dtype=np.float64)
        p = np.asarray(seed.y_pred, dtype=np.float64)
        error = p - y
        per_seed[seed_id] = {"mse": float(np.mean(error**2)), "mae": float(np.mean(np.abs(error)))}
        # A truth-sorted, evenly thinned sample keeps the scatter plot small.
        order = np.argsort(y, kind="mergesort")
        points = curves.downsample(y[order], p[order])
        scatter.append({"seed": seed_id, "y_true": points["x"], "y_pred": points["y"]})
    metrics = summarise_seeds(per_seed, "std", headline=REGRESSION_HEADLINE)
    report = {
        "seeds": [{"seed": s, "n": int(len(aligned.seeds[s].y_true)), **per_seed[s]} for s in sorted(per_seed)],
        "scatter": scatter,
    }
    return MetricsResult(metrics=metrics, report=report)
