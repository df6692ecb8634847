"""ChemicalX drug pair scoring: a propensity per (split, drug, drug, context) triple."""

from __future__ import annotations

import numpy as np

from scoring import keys, significance
from scoring.aligned import PairAligned
from scoring.keys import MetricDef
from scoring.kinds.base import Kind, register
from scoring.metrics import chemicalx as metrics
from scoring.validation import chemicalx as validation

METRICS = (
    MetricDef("auroc", "AUROC", True, "area under the ROC curve, mean over the 10 splits"),
    MetricDef(
        "aupr",
        "AUPR",
        True,
        "the authors' trapezoidal area under the precision-recall curve, mean over splits; it rewards constant "
        "scores: a constant gets (1 + prevalence) / 2",
    ),
    # Not one of the authors' metrics: shown beside AUPR, never in the ranking (the tasks rank by AUROC).
    MetricDef(
        "average_precision",
        "AP",
        True,
        "average precision (step-wise area under the precision-recall curve), mean over splits; a constant "
        "score gets the prevalence; not ranked",
    ),
    MetricDef("f1", "F1", True, "F1 of the positive class, positive iff propensity > 0.5, mean over splits"),
)

CONTEXT_NAMES = {"median": "Median context AUROC", "min": "Worst context AUROC", "max": "Best context AUROC"}


def derived_metric(task: object, key: str) -> MetricDef | None:
    """``context/auroc/{median,min,max}``: the spread of the per-context AUROC over contexts."""
    stat = keys.parse_context(key)
    if stat is None:
        return None
    return MetricDef(
        key,
        CONTEXT_NAMES[stat],
        True,
        f"{stat} over contexts of the per-context AUROC (each the mean over the splits where the context has both "
        "classes); contexts with a single class have no AUROC",
    )


KIND = register(
    Kind(
        name="pair",
        aligned=PairAligned,
        load_truth=validation.load_pair_truth,
        read_prediction=validation.read_pair_prediction,
        align=validation.align_pairs,
        compute=metrics.compute,
        example_value=lambda task: 0.5,
        bootstrap=significance.pair_bootstrap,
        truth_from_triples=True,
        derived_metric=derived_metric,
        placeholder_labels=lambda task, n: np.arange(n) % 2,  # 0/1 labels
    )
)
