"""Truth and prediction rows matched by a key (seed plus text columns), vectorised.

Used by ImDrug (key: seed, id) and ChemicalX (key: seed, drug_1, drug_2, context).
Every key column is encoded against a sorted vocabulary built from the truth,
the codes are combined into one int64 per row, and prediction rows are looked up
in a hash table of the truth's distinct keys, built once when the truth is loaded
(so a cached truth pays for it once): no Python loop over rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from scoring.errors import Problems
from scoring.readers import Table
from scoring.validation.common import (
    MAX_EXAMPLES,
    SEED,
    Truth,
    add_located,
    check_not_empty,
    combine,
    duplicate_rows,
    encode,
    plural,
    quote_key,
    report_missing,
    report_not_in_truth,
    report_repeats,
    row_seeds,
)

if TYPE_CHECKING:
    from scoring.definitions import Task


@dataclass(frozen=True)
class KeyedTruth(Truth):
    """Truth rows keyed by (seed, *key_columns), with labels (class index, value or 0/1)."""

    key_columns: tuple[str, ...]
    has_seed_column: bool
    seeds: np.ndarray  # int64 per truth row
    seed_values: tuple[int, ...]  # sorted distinct seeds
    codes: tuple[np.ndarray, ...]  # per key column: int64 code per truth row
    vocabularies: tuple[pd.Index, ...]  # per key column: sorted distinct truth values
    keys: np.ndarray  # int64 combined key per truth row (repeats allowed for ChemicalX)
    labels: np.ndarray  # per truth row
    rows_by_seed: dict[int, np.ndarray]  # truth row indices of each seed, file order
    distinct_keys: pd.Index  # distinct values of ``keys`` in order of first appearance, hash table built
    key_ids: np.ndarray  # int64 per truth row: position of its key in ``distinct_keys``

    def key_names(self) -> tuple[str, ...]:
        return (SEED, *self.key_columns)

    def describe_row(self, row: int) -> str:
        values = [int(self.seeds[row])] + [v[c[row]] for v, c in zip(self.vocabularies, self.codes, strict=True)]
        return quote_key(self.key_names(), values)

    def first_rows(self) -> np.ndarray:
        """Index of the first truth row of every distinct key, in file order."""
        return np.flatnonzero(~pd.Series(self.keys).duplicated().to_numpy())


@dataclass(frozen=True)
class GroupedTruth(KeyedTruth):
    """An ImDrug classification truth with each class's long-tailed group (``scoring.longtail``).

    ``class_groups`` follows the task's class order; None for a class the
    grouping does not name, and None altogether without a grouping.
    """

    class_groups: tuple[str | None, ...] | None = None


def _key(seed_codes: np.ndarray, codes: list[np.ndarray], n_seeds: int, vocabularies: list[pd.Index]) -> np.ndarray:
    return combine([seed_codes, *codes], [n_seeds, *(len(v) for v in vocabularies)])


def build_keyed_truth(
    task: Task,
    table: Table,
    key_columns: tuple[str, ...],
    labels: np.ndarray,
    problems: Problems,
    *,
    unique: bool,
) -> KeyedTruth | None:
    """Build a KeyedTruth, recording problems; returns None when problems make keys meaningless.

    ``unique``: whether a key may occur only once (ImDrug ids) or may repeat (ChemicalX triples).
    """
    seeds = row_seeds(table, problems)
    allowed = np.array(task.seeds, dtype=np.int64)
    stray = np.flatnonzero((seeds >= 0) & ~np.isin(seeds, allowed))
    add_located(
        problems,
        table,
        stray,
        lambda row, line: (
            f"Line {line}: seed {seeds[row]} is not one of this task's seeds ({', '.join(str(s) for s in task.seeds)})."
        ),
        SEED,
    )
    check_not_empty(table, key_columns, problems)
    if problems:
        return None
    vocabularies = [pd.Index(sorted(str(c) for c in table.frame[c].cat.categories), dtype=object) for c in key_columns]
    codes = [encode(v, table.frame[c]) for v, c in zip(vocabularies, key_columns, strict=True)]
    seed_values = tuple(int(s) for s in np.unique(seeds))
    seed_codes = np.searchsorted(np.array(seed_values, dtype=np.int64), seeds)
    keys = _key(seed_codes, codes, len(seed_values), vocabularies)
    if unique:
        dup_rows, firsts = duplicate_rows(keys, np.ones(len(keys), dtype=bool))
        names = (SEED, *key_columns)

        def describe(row: int) -> str:
            return quote_key(names, [int(seeds[row])] + [v[c[row]] for v, c in zip(vocabularies, codes, strict=True)])

        shown = dict(zip(dup_rows[: len(firsts)].tolist(), firsts.tolist(), strict=True))
        add_located(
            problems,
            table,
            dup_rows,
            lambda row, line: (
                f"Line {line} repeats the key {describe(row)} of line {table.lines[shown[row]]}; "
                f"each {key_columns[-1]} must appear once per seed."
            ),
        )
        if problems:
            return None
    # The index's hash table is built here, once, so that every prediction matched
    # against this (cached) truth only probes it; pandas builds it on first use.
    distinct_keys = pd.Index(keys)
    if distinct_keys.is_unique:  # the usual case: the uniqueness check builds the table
        key_ids = np.arange(len(keys))
    else:
        key_ids, distinct = pd.factorize(keys)
        distinct_keys = pd.Index(distinct)
        distinct_keys.get_indexer(distinct[:1])
    return KeyedTruth(
        task=task.slug,
        kind=task.kind,
        n_rows=len(table),
        key_columns=key_columns,
        has_seed_column=SEED in table.frame,
        seeds=seeds,
        seed_values=seed_values,
        codes=tuple(codes),
        vocabularies=tuple(vocabularies),
        keys=keys,
        labels=labels,
        rows_by_seed={seed: np.flatnonzero(seeds == seed) for seed in seed_values},
        distinct_keys=distinct_keys,
        key_ids=key_ids.astype(np.int64, copy=False),
    )


# How a file that leaves test keys out is fixed (the submit page states the rule up front too).
MISSING_FIX = " To fix it, write one line for every key of the test inputs file (the example file has every key)."


def match_prediction(truth: KeyedTruth, table: Table, problems: Problems) -> np.ndarray | None:
    """For every truth row, the prediction row carrying its key; None if the keys do not line up.

    Records problems for unknown seeds, repeated keys, keys not in the truth and
    truth keys without a prediction. The prediction's keys probe the truth's
    prebuilt hash table; a count per truth key then finds repeats and gaps.
    """
    if SEED not in table.frame and len(truth.seed_values) > 1:
        problems.add(
            f'The prediction file has no "seed" column but the truth has seeds '
            f"{', '.join(str(s) for s in truth.seed_values)}; add a seed column.",
            line=1,
        )
        return None
    seeds = row_seeds(table, problems)
    seed_array = np.array(truth.seed_values, dtype=np.int64)
    seed_codes = np.minimum(np.searchsorted(seed_array, seeds), len(seed_array) - 1)
    known_seed = seed_array[seed_codes] == seeds
    _report_unknown_seeds(truth, table, seeds, known_seed, problems)

    codes = [encode(v, table.frame[c]) for v, c in zip(truth.vocabularies, truth.key_columns, strict=True)]
    known = known_seed.copy()
    for c in codes:
        known &= c >= 0
    # Unknown components get code 0 so the arithmetic stays in range; those rows are masked out.
    safe = [np.where(c >= 0, c, 0) for c in codes]
    keys = _key(np.where(known_seed, seed_codes, 0), safe, len(seed_array), list(truth.vocabularies))

    names = truth.key_names()
    columns = truth.key_columns

    def describe(row: int) -> str:
        values = [int(seeds[row])] + [table.frame[c].iloc[row] for c in columns]
        return quote_key(names, values)

    # Position of every prediction row's key among the truth's distinct keys (-1: not in the truth).
    position = truth.distinct_keys.get_indexer(keys)
    position[~known] = -1  # a row with an unknown component was given a stand-in key above
    matched = position >= 0
    hits = np.bincount(position[matched], minlength=len(truth.distinct_keys))
    stray_keys = keys[known & ~matched]
    dup_rows = np.array([], dtype=np.int64)
    if (hits.size and hits.max() > 1) or not pd.Index(stray_keys).is_unique:
        dup_rows, firsts = duplicate_rows(keys, known)
        report_repeats(problems, table, dup_rows, firsts, lambda row: f"the prediction for {describe(row)}", "given")
        matched[dup_rows] = False  # the first row carrying a key is the one matched
    rows = np.flatnonzero(matched)
    pred_for_key = np.full(len(truth.distinct_keys), -1, dtype=np.int64)
    pred_for_key[position[rows]] = rows
    pred_row: np.ndarray = pred_for_key[truth.key_ids]

    # Unknown seeds and repeated rows were reported above.
    extra = np.setdiff1d(np.flatnonzero(known_seed & (position < 0)), dup_rows)
    report_not_in_truth(problems, table, extra, "prediction row", describe)
    missing_rows = np.flatnonzero(pred_row < 0)

    def missing_examples() -> list[str]:
        firsts_missing = missing_rows[~pd.Series(truth.keys[missing_rows]).duplicated().to_numpy()]
        return [truth.describe_row(int(r)) for r in firsts_missing[:MAX_EXAMPLES]]

    n_missing = len(pd.unique(truth.keys[missing_rows])) if len(missing_rows) else 0
    report_missing(problems, table, n_missing, len(truth.distinct_keys), "keys", missing_examples, fix=MISSING_FIX)
    if problems:
        return None
    return pred_row


def _report_unknown_seeds(
    truth: KeyedTruth, table: Table, seeds: np.ndarray, known_seed: np.ndarray, problems: Problems
) -> None:
    stray = np.flatnonzero((seeds >= 0) & ~known_seed)
    if len(stray) == 0:
        return
    counts = pd.Series(seeds[stray]).value_counts(sort=False)
    first_lines = pd.Series(table.lines[stray]).groupby(seeds[stray]).min()
    have = ", ".join(str(s) for s in truth.seed_values)
    for seed, count in counts.sort_index().items():
        line = int(first_lines[seed])
        problems.add(
            f"Seed {seed} ({plural(int(count), 'row')}, first on line {line}) is not in the truth; "
            f"the truth has seed{'s' if len(truth.seed_values) > 1 else ''} {have}.",
            line=line,
            column=table.label(SEED),
        )
