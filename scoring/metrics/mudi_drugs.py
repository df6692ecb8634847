"""MUDI per drug: counts on each drug's test pairs, and F1 by drug-frequency bucket.

A drug's *frequency* is the number of distinct unordered gold pairs it is part
of. Every scored item, an ((ordered or unordered) pair, class), belongs to the
unordered gold pair of its two drugs (``mudi.pair_counts`` keeps the counts that
way), so:

- a drug's TP/FP/FN are the sums over the gold pairs that contain it (a pair of
  a drug with itself counts once); its *errors* are FP + FN (a pair given the
  wrong class is one of each);
- a pair's bucket is that of its rarer drug (``keys.DRUG_BUCKETS``: at most 5,
  6 to 20, more than 20 pairs); a bucket's macro and micro F1 are MUDI's own
  definitions (``mudi.scores_from_counts``) on the items of its pairs only.

Everything is a bincount over the per-pair counts: the full test set adds a few
milliseconds to scoring (``bench/scoring.py`` prints the ratio).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scoring.aligned import MudiAligned
from scoring.keys import DRUG_BUCKETS, MUDI_SETTINGS, mudi_bucket_key, mudi_key
from scoring.metrics.mudi import CLASS_KEYS, CLASS_NAMES, MudiCounts, scores_from_counts

# The submission page lists this many drugs with the most errors.
TOP_ERRORS = 10


def drug_frequency(pair_drugs: np.ndarray, n_drugs: int) -> np.ndarray:
    """Distinct unordered gold pairs per drug code, from (n_pairs, 2) codes (a self-pair counts once)."""
    a, b = pair_drugs[:, 0], pair_drugs[:, 1]
    counts: np.ndarray = np.bincount(a, minlength=n_drugs) + np.bincount(b[a != b], minlength=n_drugs)
    return counts


def _padded(frequency: np.ndarray, n_drugs: int) -> np.ndarray:
    out = np.zeros(n_drugs, dtype=np.int64)
    out[: min(len(frequency), n_drugs)] = frequency[:n_drugs]
    return out


def pair_buckets(pair_drugs: np.ndarray, frequency: np.ndarray) -> np.ndarray:
    """The index into ``DRUG_BUCKETS`` of every gold pair (by its rarer drug)."""
    rarer = np.minimum(frequency[pair_drugs[:, 0]], frequency[pair_drugs[:, 1]])
    bucket = np.zeros(len(rarer), dtype=np.int64)
    for i, b in enumerate(DRUG_BUCKETS):
        bucket[rarer >= b.low] = i
    return bucket


def _class_sums(per_pair: np.ndarray) -> np.ndarray:
    """(n, settings, classes, stats) -> (n, settings * stats): the counts summed over the classes."""
    sums: np.ndarray = per_pair[:, :, 0] + per_pair[:, :, 1] + per_pair[:, :, 2]
    return sums.reshape(len(per_pair), -1)


def per_drug_counts(counts: MudiCounts, n_drugs: int) -> np.ndarray:
    """(n_drugs, 2 settings, 3 stats) TP/FP/FN summed over classes on each drug's gold pairs."""
    assert counts.gold_pair_drugs is not None
    per_pair = counts.per_pair[: counts.n_gold_pairs]
    flat = _class_sums(per_pair)
    a, b = counts.gold_pair_drugs[:, 0], counts.gold_pair_drugs[:, 1]
    other = a != b
    out = np.empty((n_drugs, flat.shape[1]))
    for c in range(flat.shape[1]):
        column = flat[:, c]
        out[:, c] = np.bincount(a, weights=column, minlength=n_drugs)
        out[:, c] += np.bincount(b[other], weights=column[other], minlength=n_drugs)
    return out.reshape(n_drugs, per_pair.shape[1], per_pair.shape[3]).round().astype(np.int64)


def bucket_metrics(counts: MudiCounts, bucket: np.ndarray) -> dict[str, float]:
    """``{setting}/drug_freq/{bucket}/{macro_f1|micro_f1|pairs}`` for every bucket with at least one gold pair."""
    per_pair = counts.per_pair[: counts.n_gold_pairs]
    flat = per_pair.reshape(len(per_pair), -1)
    n = len(DRUG_BUCKETS)
    # One product with the pairs' bucket indicator sums every count column per bucket at
    # once (the counts are whole numbers far below 2**53: the sums are exact).
    indicator = (bucket[None, :] == np.arange(n)[:, None]).astype(np.float64)
    totals = (indicator @ flat).reshape(n, *per_pair.shape[1:])
    sizes = np.bincount(bucket, minlength=n)
    out: dict[str, float] = {}
    for i, b in enumerate(DRUG_BUCKETS):
        n_pairs = int(sizes[i])
        if not n_pairs:
            continue  # an empty bucket has no F1 (absent, never 0)
        scores = scores_from_counts(totals[i])
        for setting in MUDI_SETTINGS:
            out[mudi_bucket_key(setting, b.slug, "macro_f1")] = float(scores[mudi_key(setting, "macro", "f1")])
            out[mudi_bucket_key(setting, b.slug, "micro_f1")] = float(scores[mudi_key(setting, "micro", "f1")])
            out[mudi_bucket_key(setting, b.slug, "pairs")] = n_pairs
    return out


def breakdown(aligned: MudiAligned, counts: MudiCounts) -> tuple[dict[str, float], dict[str, Any]]:
    """Bucket metrics and the ``drugs`` part of the report.

    The report holds ``buckets`` (definition and pair counts), ``top_errors``
    (the ``TOP_ERRORS`` drugs with the most direction-aware errors, ties by id)
    and ``per_drug``: ``ids`` (every drug of a gold pair, sorted), ``pairs``
    (its frequency) and per setting one ``[tp, fp, fn]`` per drug.
    """
    assert counts.gold_pair_drugs is not None
    names = list(aligned.drug_names)
    n_drugs = max(len(names), int(counts.gold_pair_drugs.max()) + 1 if counts.n_gold_pairs else 0)
    names += [f"#{code}" for code in range(len(names), n_drugs)]
    own = drug_frequency(counts.gold_pair_drugs, n_drugs)
    # One part of a split phase: buckets by the whole truth's frequencies, the same for every part.
    frequency = own if aligned.drug_frequency is None else _padded(aligned.drug_frequency, n_drugs)
    bucket = pair_buckets(counts.gold_pair_drugs, frequency)
    metrics = bucket_metrics(counts, bucket)
    drugs = per_drug_counts(counts, n_drugs)
    present = np.flatnonzero(own > 0)
    if names != sorted(names):  # the readers' codes index a sorted vocabulary: normally already in id order
        present = present[np.argsort(np.asarray(names, dtype=object)[present], kind="stable")]
    aware = MUDI_SETTINGS.index("aware")
    errors = drugs[:, :, 1] + drugs[:, :, 2]
    # Most aware errors first, ties in id order (``present`` is in id order and the sort is stable).
    order = np.argsort(-errors[present, aware], kind="stable")
    top = [int(code) for code in present[order][:TOP_ERRORS] if errors[code, aware] > 0]
    report: dict[str, Any] = {
        "classes": list(CLASS_KEYS),
        "buckets": [
            {"slug": b.slug, "low": b.low, "high": b.high, "label": b.label, "pairs": int((bucket == i).sum())}
            for i, b in enumerate(DRUG_BUCKETS)
        ],
        "top_errors": [
            {
                "drug": names[code],
                "pairs": int(frequency[code]),
                **{
                    setting: dict(zip(("tp", "fp", "fn"), map(int, drugs[code, s]), strict=True))
                    | {"errors": int(errors[code, s])}
                    for s, setting in enumerate(MUDI_SETTINGS)
                },
            }
            for code in top
        ],
        "per_drug": {
            "ids": [names[code] for code in present],
            "pairs": frequency[present].tolist(),
            **{setting: drugs[present, s].tolist() for s, setting in enumerate(MUDI_SETTINGS)},
        },
    }
    return metrics, report


def test_pairs_by_class(
    gold_a: np.ndarray, gold_b: np.ndarray, gold_label: np.ndarray, names: tuple[str, ...] | list[str]
) -> dict[str, dict[str, int]]:
    """``{drug id: {class name: n, "total": n}}``: distinct unordered gold pairs involving each drug.

    A pair given a class in either orientation counts once for that class;
    ``total`` counts the drug's distinct pairs whatever their classes.
    """
    a, b = np.asarray(gold_a, dtype=np.int64), np.asarray(gold_b, dtype=np.int64)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    n = max(len(names), int(hi.max()) + 1 if hi.size else 0)
    items = np.unique((lo * n + hi) * 4 + np.asarray(gold_label, dtype=np.int64))
    pair, label = items >> 2, items & 3
    out: dict[str, dict[str, int]] = {}
    per_class = []
    for c in range(len(CLASS_NAMES)):
        chosen = pair[label == c]
        per_class.append(drug_frequency(np.stack([chosen // n, chosen % n], axis=1), n))
    distinct = np.unique(pair)
    total = drug_frequency(np.stack([distinct // n, distinct % n], axis=1), n)
    for code in np.flatnonzero(total):
        name = names[code] if code < len(names) else f"#{code}"
        out[name] = {cls: int(per_class[c][code]) for c, cls in enumerate(CLASS_NAMES)} | {"total": int(total[code])}
    return out
