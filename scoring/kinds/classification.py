"""ImDrug classification: a class (and optionally probabilities) per (seed, id), class-balanced metrics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scoring import keys, significance
from scoring.aligned import ClassificationAligned
from scoring.keys import MetricDef
from scoring.kinds.base import Kind, register
from scoring.metrics import imdrug as metrics
from scoring.validation import imdrug as validation

if TYPE_CHECKING:
    from scoring.definitions import Task

METRICS = (
    MetricDef(
        "balanced_accuracy", "Balanced accuracy", True, "mean over gold classes of per-class recall, mean over seeds"
    ),
    MetricDef(
        "balanced_f1",
        "Balanced F1",
        True,
        "ImDrug's F1 on the row-normalised confusion matrix, mean over gold-or-predicted classes",
    ),
    MetricDef("auroc", "AUROC", True, "one-vs-rest AUROC, unweighted mean over classes; needs probabilities"),
    MetricDef("macro_f1", "Macro F1 (scikit-learn)", True, "scikit-learn macro F1 over gold-or-predicted labels"),
)


GROUP_NAMES = {"head": "Head", "middle": "Middle", "tail": "Tail", "open": "Open"}
GROUP_METRIC_NAMES = {"balanced_accuracy": "bal. acc.", "balanced_f1": "bal. F1", "auroc": "AUROC"}


def group_metric(key: str) -> MetricDef | None:
    """``group/{group}/{metric}``: a long-tailed group's balanced accuracy, balanced F1 or AUROC."""
    parsed = keys.parse_group(key)
    if parsed is None:
        return None
    group, metric = parsed
    return MetricDef(
        key,
        f"{GROUP_NAMES[group]} {GROUP_METRIC_NAMES[metric]}",
        True,
        f"{GROUP_METRIC_NAMES[metric]} over the {group} classes (mean of per-class values by class id), "
        "mean over seeds",
    )


def derived_metric(task: Task, key: str) -> MetricDef | None:
    """``class/{name}/recall``, ``class/{name}/f1`` and ``group/{group}/{metric}``."""
    spread = keys.parse_spread(key)
    group = group_metric(spread[0] if spread else key)
    if group is not None:
        if spread:
            return MetricDef(key, f"{group.name} ({spread[1]})", False, f"spread over seeds of {group.name}")
        return group
    per_class = keys.parse_class(key)
    if per_class is None or per_class[0] not in task.classes:
        return None
    name, stat = per_class
    stat = "recall" if stat == "recall" else "F1 (scikit-learn)"
    return MetricDef(key, f"{name} {stat}", True, f"per-class {stat}, mean over seeds")


def class_f1_keys(task: Task, setting: str | None) -> tuple[tuple[str, str], ...]:
    return tuple((name, keys.class_key(name, "f1")) for name in task.classes)


KIND = register(
    Kind(
        name="classification",
        aligned=ClassificationAligned,
        load_truth=validation.load_classification_truth,
        read_prediction=validation.read_classification_prediction,
        align=validation.align_classification,
        compute=metrics.compute_classification,
        example_value=lambda task: task.classes[0],
        bootstrap=significance.unit_bootstrap(significance.classification_units),
        derived_metric=derived_metric,
        class_f1_keys=class_f1_keys,
        class_groups=True,
    )
)
