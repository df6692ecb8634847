"""MUDI: a set of (drug pair, class) predictions, scored direction-aware and direction-agnostic."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scoring import keys, significance
from scoring.aligned import MetricsResult, MudiAligned
from scoring.keys import MetricDef
from scoring.kinds.base import Kind, register
from scoring.metrics import mudi as metrics
from scoring.metrics import mudi_drugs
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


BUCKET_STAT_NAMES = {"macro_f1": "Macro F1", "micro_f1": "Micro F1", "pairs": "Gold pairs"}


def _bucket_metric(key: str) -> MetricDef | None:
    parsed = keys.parse_mudi_bucket(key)
    if parsed is None:
        return None
    setting, slug, stat = parsed
    bucket = next(b for b in keys.DRUG_BUCKETS if b.slug == slug)
    name = f"{BUCKET_STAT_NAMES[stat]}, {bucket.label} ({SETTING_NAMES[setting]})"
    return MetricDef(key, name, True, f"{stat} on the pairs whose {bucket.label}, pairs {SETTING_NAMES[setting]}")


def derived_metric(task: Task, key: str) -> MetricDef | None:
    """Per-class precision, recall, F1 and counts: ``{setting}/{class}/{stat}``; drug-frequency buckets."""
    bucket = _bucket_metric(key)
    if bucket is not None:
        return bucket
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


# A printed macro F1 may differ from the harmonic mean of the printed (rounded, two-decimal) P and R
# by the rounding of three numbers: at most 0.01 percentage points.
HARMONIC_TOLERANCE = 0.0001


def published_key(setting: str, metric: str) -> str:
    """``aware`` + ``Macro-averaged F1`` -> ``aware/macro/f1``; "" for a name MUDI's scorer does not compute."""
    words = metric.strip().rsplit(" ", 1)
    if len(words) != 2 or setting not in keys.MUDI_SETTINGS:
        return ""
    scope, stat = words[0].strip().lower(), words[1].strip().lower()
    stat = {"precision": "precision", "recall": "recall", "f1": "f1"}.get(stat, "")
    scope = {"macro-averaged": "macro", "micro-averaged": "micro"}.get(scope, scope.replace(" ", "_"))
    if not stat or scope not in ("macro", "micro", "synergism", "antagonism", "new_effect"):
        return ""
    return keys.mudi_key(setting, scope, stat)


def published_checks(metrics: dict[str, float]) -> list[str]:
    """The paper's definition a published MUDI entry breaks: macro F1 is the harmonic mean of macro P and R."""
    flags = []
    for setting in keys.MUDI_SETTINGS:
        f1, p, r = (metrics.get(keys.mudi_key(setting, "macro", s)) for s in ("f1", "precision", "recall"))
        if f1 is None or p is None or r is None:
            continue
        harmonic = 2 * p * r / (p + r) if p + r else 0.0
        if abs(f1 - harmonic) > HARMONIC_TOLERANCE:
            flags.append(f"{setting} macro F1 {f1:.4f} is not the harmonic mean of its macro P and R ({harmonic:.4f})")
    return flags


def compute(aligned: MudiAligned) -> MetricsResult:
    """MUDI's metrics plus the per-drug breakdown (``scoring.metrics.mudi_drugs``) from the same counts."""
    counts = metrics.pair_counts(aligned)
    result = metrics.result_from_counts(aligned, counts)
    extra, drugs = mudi_drugs.breakdown(aligned, counts)
    result.metrics.update(extra)
    result.report["drugs"] = drugs
    return result


KIND = register(
    Kind(
        name="mudi",
        published_key=published_key,
        published_checks=published_checks,
        aligned=MudiAligned,
        load_truth=validation.load_mudi_truth,
        read_prediction=validation.read_mudi_prediction,
        align=validation.align_mudi,
        compute=compute,
        example_value=lambda task: task.classes[0],
        bootstrap=significance.unit_bootstrap(significance.mudi_units),
        derived_metric=derived_metric,
        settings=keys.MUDI_SETTINGS,
        ranking_metrics=lambda task: tuple(keys.mudi_key(setting, "macro", "f1") for setting in keys.MUDI_SETTINGS),
        class_f1_keys=class_f1_keys,
        extra_labels=("No Interaction",),
        rules=(
            "Give a class for every test pair of the test inputs file, in either orientation "
            "(`drug_1,drug_2` or `drug_2,drug_1`), once.",
            "For a pair you do not want to score, write `No Interaction` as its class: it counts as predicting no "
            "interaction. A file that leaves a test pair out is refused, with examples of the missing pairs; a "
            "refused file costs no quota.",
        ),
        resample_unit="unordered gold pairs",
    )
)
