"""The result key format: how every number a scorer emits is named.

A score is a flat ``{key: float}``. This module is the only place that spells
a key out or takes one apart; the metrics write keys with these builders, the
registry resolves them, and the site stores and reads them through
``split_seed``/``join_seed``.

===========================  ==============================================
key                          meaning
===========================  ==============================================
``{metric}``                 the headline value (mean over seeds)
``{metric}/std``             population standard deviation over seeds
``{metric}/stderr``          standard error (std / sqrt(n)) over seeds
``seed/{k}/{metric}``        the value for seed (split) k alone
``class/{name}/f1``          per-class F1 (also ``/recall``), classification
``group/{g}/{metric}``       ImDrug long-tailed group ``head``, ``middle``,
                             ``tail`` or ``open``; metric
                             ``balanced_accuracy``, ``balanced_f1``,
                             ``auroc`` (only with a grouping)
``context/auroc/{stat}``     ChemicalX per-context AUROC summary; stat
                             ``median``, ``min`` (worst context) or ``max``
                             over the contexts with both classes; each
                             context's own value is in the report
``aware/macro/f1``           MUDI: ``{setting}/{scope}/{stat}``; setting is
                             ``aware`` or ``agnostic``, scope ``macro``,
                             ``micro`` or a class slug (``synergism``,
                             ``antagonism``, ``new_effect``); stat
                             ``precision``, ``recall``, ``f1``,
                             ``f1_mean`` (macro only) or a count
                             ``tp``, ``fp``, ``fn``, ``support`` (classes)
``aware/drug_freq/rare/macro_f1``  MUDI by drug frequency:
                             ``{setting}/drug_freq/{bucket}/{stat}``; bucket
                             ``rare``, ``medium`` or ``frequent`` (see
                             ``DRUG_BUCKETS``), stat ``macro_f1``,
                             ``micro_f1`` or ``pairs`` (gold pairs in it)
===========================  ==============================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEED_PREFIX = "seed"
SPREADS = ("std", "stderr")
COUNT_STATS = ("tp", "fp", "fn", "support")
MUDI_SETTINGS = ("aware", "agnostic")


@dataclass(frozen=True)
class DrugBucket:
    """Gold pairs whose rarer drug appears in ``low``..``high`` test pairs (``high`` None: no upper bound)."""

    slug: str
    low: int
    high: int | None
    label: str
    short: str  # a table header: "≤ 5 test pairs"


# MUDI's drug-frequency buckets: a pair falls in the bucket of its rarer drug, counted in
# distinct unordered test pairs.
DRUG_BUCKETS = (
    DrugBucket("rare", 1, 5, "rarer drug in at most 5 test pairs", "≤ 5 test pairs"),
    DrugBucket("medium", 6, 20, "rarer drug in 6 to 20 test pairs", "6–20 test pairs"),
    DrugBucket("frequent", 21, None, "rarer drug in more than 20 test pairs", "> 20 test pairs"),
)
DRUG_BUCKET_STATS = ("macro_f1", "micro_f1", "pairs")


@dataclass(frozen=True)
class MetricDef:
    """How one metric key is named and which direction is better."""

    key: str
    name: str
    higher_is_better: bool
    description: str


_SEED = re.compile(r"seed/(\d+)/(.+)")
_SPREAD = re.compile(r"(.+)/(std|stderr)")
_CLASS = re.compile(r"class/(.+)/(recall|f1)")
_GROUP = re.compile(r"group/(head|middle|tail|open)/(balanced_accuracy|balanced_f1|auroc)")
CONTEXT_STATS = ("median", "min", "max")


def seed_key(seed: int, metric: str) -> str:
    """``seed/{k}/{metric}``: the value of ``metric`` for one seed."""
    return f"{SEED_PREFIX}/{seed}/{metric}"


def spread_key(metric: str, spread: str) -> str:
    """``{metric}/std`` or ``{metric}/stderr``: the spread of ``metric`` over seeds."""
    return f"{metric}/{spread}"


def class_key(name: str, stat: str) -> str:
    """``class/{name}/{stat}``: a per-class value of a classification task."""
    return f"class/{name}/{stat}"


def group_key(group: str, metric: str) -> str:
    """``group/{group}/{metric}``: an ImDrug long-tailed group's value, e.g. ``group/tail/balanced_accuracy``."""
    return f"group/{group}/{metric}"


def parse_group(key: str) -> tuple[str, str] | None:
    """``group/{group}/{metric}`` -> (group, metric); None when ``key`` is not a group key."""
    match = _GROUP.fullmatch(key)
    return (match.group(1), match.group(2)) if match else None


def context_key(stat: str) -> str:
    """``context/auroc/{stat}``: the median, min or max over contexts of the per-context AUROC."""
    return f"context/auroc/{stat}"


def parse_context(key: str) -> str | None:
    """The stat of a ``context_key``, or None."""
    prefix = "context/auroc/"
    stat = key[len(prefix) :] if key.startswith(prefix) else ""
    return stat if stat in CONTEXT_STATS else None


def mudi_key(setting: str, scope: str, stat: str) -> str:
    """``{setting}/{scope}/{stat}``, e.g. ``aware/macro/f1`` (MUDI's headline)."""
    return f"{setting}/{scope}/{stat}"


def mudi_bucket_key(setting: str, bucket: str, stat: str) -> str:
    """``{setting}/drug_freq/{bucket}/{stat}``, e.g. ``aware/drug_freq/rare/macro_f1``."""
    return f"{setting}/drug_freq/{bucket}/{stat}"


def parse_mudi_bucket(key: str) -> tuple[str, str, str] | None:
    """``aware/drug_freq/rare/macro_f1`` -> ("aware", "rare", "macro_f1"); None for any other key."""
    parts = key.split("/")
    if len(parts) != 4 or parts[1] != "drug_freq" or parts[0] not in MUDI_SETTINGS:
        return None
    if parts[2] not in {b.slug for b in DRUG_BUCKETS} or parts[3] not in DRUG_BUCKET_STATS:
        return None
    return parts[0], parts[2], parts[3]


def split_seed(key: str) -> tuple[str, int | None]:
    """``seed/{k}/{metric}`` -> (metric, k); any other key -> (key, None)."""
    match = _SEED.fullmatch(key)
    if match is None:
        return key, None
    return match.group(2), int(match.group(1))


def join_seed(metric: str, seed: int | None) -> str:
    """The inverse of ``split_seed``; a metric that already names its seed is returned as is."""
    if seed is None or metric.startswith(f"{SEED_PREFIX}/"):
        return metric
    return seed_key(seed, metric)


def parse_spread(key: str) -> tuple[str, str] | None:
    """``{metric}/std`` -> (metric, "std"); None when ``key`` is not a spread key."""
    match = _SPREAD.fullmatch(key)
    return (match.group(1), match.group(2)) if match else None


def parse_class(key: str) -> tuple[str, str] | None:
    """``class/{name}/{stat}`` -> (name, stat); None when ``key`` is not a per-class key."""
    match = _CLASS.fullmatch(key)
    return (match.group(1), match.group(2)) if match else None


def is_seed(key: str) -> bool:
    """Whether ``key`` is a per-seed value."""
    return _SEED.fullmatch(key) is not None


def is_spread(key: str) -> bool:
    """Whether ``key`` is a spread over seeds."""
    return key.endswith(tuple(f"/{s}" for s in SPREADS))


def is_count(key: str) -> bool:
    """Whether ``key`` is an integer count (MUDI's per-class tp/fp/fn/support)."""
    return key.rsplit("/", 1)[-1] in COUNT_STATS
