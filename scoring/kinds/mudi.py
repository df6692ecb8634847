"""MUDI: a set of (drug pair, class) predictions, scored direction-aware and direction-agnostic."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scoring import keys, significance
from scoring.aligned import MudiAligned
from scoring.keys import MetricDef
from scoring.kinds.base import Kind, register
from scoring.metrics import mudi as metrics
from scoring.validation import mudi as validation

if TYPE_CHECKING:
    from scoring.definitions import Task

SETTING_NAMES = {"aware": "direction-aware", "agnostic": "direction-agnostic"}
SCOPE_NAMES = {
    "synergism": "Synergism",
    "antagonism": "Antagonism",
    "new_effect": "New Effect",
    "micro": "micro",
    "macro": "macro",
}
STAT_NAMES = {"precision": "precision", "recall": "recall", "f1": "F1", "f1_mean": "mean of class F1s"}
# Counts: more true positives is better, more errors is worse; support is a
# property of the truth, reported as "higher" only so the API stays boolean.
COUNT_BETTER = {"tp": True, "fp": False, "fn": False, "support": True}


def _headline() -> tuple[MetricDef, ...]:
    defs = []
    for setting, setting_name in SETTING_NAMES.items():
        for scope in ("macro", "micro"):
            for stat in ("f1", "precision", "recall"):
                defs.append(
                    MetricDef(
                        keys.mudi_key(setting, scope, stat),
                        f"{scope.capitalize()} {STAT_NAMES[stat]} ({setting_name})",
                        True,
                        f"{scope} {stat} over Synergism, Antagonism and New Effect, pairs {setting_name}",
                    )
                )
        defs.append(
            MetricDef(
                keys.mudi_key(setting, "macro", "f1_mean"),
                f"Mean of class F1s ({setting_name})",
                True,
                "arithmetic mean of the three per-class F1 scores (not the paper's macro F1)",
            )
        )
    return tuple(defs)


METRICS = _headline()


def derived_metric(task: Task, key: str) -> MetricDef | None:
    """Per-class precision, recall, F1 and counts: ``{setting}/{class}/{stat}``."""
    parts = key.split("/")
    if len(parts) != 3 or parts[0] not in SETTING_NAMES or parts[1] not in SCOPE_NAMES:
        return None
    setting, scope, stat = parts
    label = f"{SCOPE_NAMES[scope]} {{}} ({SETTING_NAMES[setting]})"
    is_class = scope not in ("micro", "macro")
    if stat in ("precision", "recall", "f1") or (stat == "f1_mean" and scope == "macro"):
        return MetricDef(key, label.format(STAT_NAMES[stat]), True, f"{scope} {stat}, {setting}")
    if is_class and stat in COUNT_BETTER:
        return MetricDef(key, label.format(stat.upper()), COUNT_BETTER[stat], f"{stat} count")
    return None


def class_f1_keys(task: Task, setting: str | None) -> tuple[tuple[str, str], ...]:
    names = zip(metrics.CLASS_KEYS, task.classes, strict=True)
    return tuple((name, keys.mudi_key(setting or "aware", slug, "f1")) for slug, name in names)


KIND = register(
    Kind(
        name="mudi",
        aligned=MudiAligned,
        load_truth=validation.load_mudi_truth,
        read_prediction=validation.read_mudi_prediction,
        align=validation.align_mudi,
        compute=metrics.compute,
        example_value=lambda task: task.classes[0],
        bootstrap=significance.unit_bootstrap(significance.mudi_units),
        derived_metric=derived_metric,
        settings=keys.MUDI_SETTINGS,
        class_f1_keys=class_f1_keys,
        extra_labels=("No Interaction",),
        resample_unit="unordered gold pairs",
        extra_charts=("direction_scatter",),
    )
)
