"""MUDI files: drug pairs with an interaction class.

Layouts (truth and prediction alike): MUDI's native ``Drug1,Interaction,Drug2``
or ``drug1,drug2,label``. Drug ids are compared after stripping a
``Compound::`` prefix. Labels are matched case-insensitively; ``New Adverse``
and ``New Effect (New Adverse)`` mean ``New Effect``; ``No Interaction`` is a
legal prediction but not a truth label.

A prediction may be given for either orientation of a gold pair; a pair absent
from the truth in both orientations is an error, as is the same ordered pair
twice, and every gold pair must be predicted in at least one orientation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from scoring.aligned import MUDI_NO_INTERACTION, MudiAligned
from scoring.errors import Problems
from scoring.readers import Limits, RawFile, Table, category_values, check_columns, parse_rows
from scoring.validation.common import (
    MAX_EXAMPLES,
    Truth,
    add_located,
    apply_aliases,
    duplicate_rows,
    label_codes,
    report_missing,
    report_not_in_truth,
    report_repeats,
)

if TYPE_CHECKING:
    from scoring.definitions import Task


DRUG1 = "drug1"
DRUG2 = "drug2"
LABEL = "label"
ALIASES = {"interaction": LABEL, "drug_1": DRUG1, "drug_2": DRUG2}
DISPLAY = ["Drug1", "Interaction", "Drug2 (or drug1, drug2, label)"]
PREFIX = "Compound::"
CLASS_NAMES = ("Synergism", "Antagonism", "New Effect", "No Interaction")
LABELS = {
    "synergism": 0,
    "antagonism": 1,
    "new effect": 2,
    "new adverse": 2,
    "new effect (new adverse)": 2,
    "no interaction": MUDI_NO_INTERACTION,
}


@dataclass(frozen=True)
class MudiTruth(Truth):
    """Distinct gold (Drug1, Drug2, class) rows with drug codes into a sorted vocabulary."""

    vocabulary: pd.Index  # bare drug ids, sorted; code -> id
    prefix: str  # "Compound::" when the truth file wrote its ids with it (for test_inputs)
    gold_a: np.ndarray  # int32, first-occurrence order
    gold_b: np.ndarray
    gold_label: np.ndarray  # int8 in {0, 1, 2}
    ordered_keys: np.ndarray  # sorted distinct a * n + b
    unordered_keys: np.ndarray  # sorted distinct min * n + max

    def describe(self, a: int, b: int) -> str:
        return _pair(self.vocabulary, a, b)


def normalise_label(text: str) -> str:
    """MUDI labels compare case-insensitively, ``_`` read as a space."""
    return " ".join(str(text).strip().lower().replace("_", " ").split())


def _bare(column: pd.Series) -> tuple[pd.Index, np.ndarray]:
    """Categories with the Compound:: prefix removed, and per-row codes into them."""
    categories, codes = category_values(column)
    return pd.Index(categories.str.replace(r"(?i)^compound::", "", regex=True), dtype=object), codes


def _read(raw: RawFile, limits: Limits) -> Table:
    apply_aliases(raw, ALIASES)
    check_columns(raw, required=[DRUG1, DRUG2, LABEL], display=DISPLAY)
    return parse_rows(raw, categorical=list(raw.header), numeric=[], limits=limits, keep_going=True)


def _labels(table: Table, problems: Problems, *, truth: bool) -> np.ndarray:
    name = table.label(LABEL)
    allowed = ", ".join(CLASS_NAMES[:3] if truth else CLASS_NAMES)
    labels = label_codes(
        table,
        LABEL,
        lambda text: LABELS.get(normalise_label(text), -1),
        problems,
        what="a MUDI class",
        hint=f"expected one of {allowed}",
    )
    if truth:
        add_located(
            problems,
            table,
            np.flatnonzero(labels == MUDI_NO_INTERACTION),
            lambda row, line: (
                f'Line {line}, column "{name}": "No Interaction" is not allowed in the truth; '
                "the truth lists only interacting pairs."
            ),
            LABEL,
        )
    return labels


def _drug_codes(table: Table, column: str, vocabulary: pd.Index, problems: Problems) -> tuple[np.ndarray, np.ndarray]:
    """Per-row drug code (-1 if not in ``vocabulary``) and an is-empty mask (empty cells are reported)."""
    bare, codes = _bare(table.frame[column])
    empty = (bare == "")[codes]
    add_located(
        problems,
        table,
        np.flatnonzero(empty),
        lambda row, line: f'Line {line}, column "{table.label(column)}" is empty.',
        column,
    )
    return vocabulary.get_indexer(bare).astype(np.int64)[codes], empty


def load_mudi_truth(task: Task, raw: RawFile, limits: Limits) -> MudiTruth:
    """Parse and validate a MUDI truth file."""
    table = _read(raw, limits)
    problems = table.start_problems()
    labels = _labels(table, problems, truth=True)
    bare1, _ = _bare(table.frame[DRUG1])
    bare2, _ = _bare(table.frame[DRUG2])
    vocabulary = pd.Index(sorted((set(bare1) | set(bare2)) - {""}), dtype=object)
    a, _ = _drug_codes(table, DRUG1, vocabulary, problems)
    b, _ = _drug_codes(table, DRUG2, vocabulary, problems)
    problems.raise_if_any()

    n = len(vocabulary)
    ordered = a * n + b
    # Exact repeats of a gold row are harmless and dropped; one ordered pair with two classes is not.
    distinct = ~pd.Series(ordered * 4 + labels).duplicated().to_numpy()
    rows = np.flatnonzero(distinct)
    conflicts, firsts = duplicate_rows(ordered[rows], np.ones(len(rows), dtype=bool))
    if len(conflicts):
        earlier = dict(zip(rows[conflicts[: len(firsts)]].tolist(), rows[firsts].tolist(), strict=True))
        add_located(
            problems,
            table,
            rows[conflicts],
            lambda row, line: (
                f"Line {line} gives the pair {_pair(vocabulary, a[row], b[row])} the class "
                f"{CLASS_NAMES[labels[row]]}, but line {table.lines[earlier[row]]} gave it "
                f"{CLASS_NAMES[labels[earlier[row]]]}."
            ),
        )
        problems.raise_if_any()
    gold_a, gold_b = a[rows], b[rows]
    categories, _ = category_values(table.frame[DRUG1])
    prefixed = len(categories) > 0 and bool(categories.str.lower().str.startswith(PREFIX.lower()).all())
    return MudiTruth(
        task=task.slug,
        kind=task.kind,
        n_rows=len(table),
        vocabulary=vocabulary,
        prefix=PREFIX if prefixed else "",
        gold_a=gold_a.astype(np.int32),
        gold_b=gold_b.astype(np.int32),
        gold_label=labels[rows].astype(np.int8),
        ordered_keys=np.unique(gold_a * n + gold_b),
        unordered_keys=np.unique(np.minimum(gold_a, gold_b) * n + np.maximum(gold_a, gold_b)),
    )


def _pair(vocabulary: pd.Index, a: int, b: int) -> str:
    return f"({vocabulary[a]}, {vocabulary[b]})"


def _in_sorted(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    found: np.ndarray = sorted_keys[pos] == keys
    return found


# How a file that leaves test pairs out is fixed (the submit page states the rule up front too).
MISSING_FIX = (
    " To fix it, add a line for every missing pair; for a pair you do not want to score, write "
    '"No Interaction" as its class. The test inputs file lists every test pair.'
)


def read_mudi_prediction(task: Task, raw: RawFile, limits: Limits) -> Table:
    """Check a MUDI prediction file's columns and parse its rows (no truth needed)."""
    return _read(raw, limits)


def align_mudi(task: Task, truth: MudiTruth, table: Table) -> tuple[MudiAligned, int]:
    """Validate parsed MUDI predictions against the truth and align them; also returns the row count."""
    problems = table.start_problems()
    labels = _labels(table, problems, truth=False)
    a, empty1 = _drug_codes(table, DRUG1, truth.vocabulary, problems)
    b, empty2 = _drug_codes(table, DRUG2, truth.vocabulary, problems)
    n = len(truth.vocabulary)
    known = (a >= 0) & (b >= 0)
    safe_a, safe_b = np.where(known, a, 0), np.where(known, b, 0)
    ordered = safe_a * n + safe_b

    def pair(row: int) -> str:
        return f"({table.frame[DRUG1].iloc[row]}, {table.frame[DRUG2].iloc[row]})"

    dup_rows, firsts = duplicate_rows(ordered, known)
    report_repeats(problems, table, dup_rows, firsts, lambda row: f"the pair {pair(row)}", "predicted")
    in_gold = known & (_in_sorted(truth.ordered_keys, ordered) | _in_sorted(truth.ordered_keys, safe_b * n + safe_a))
    extra = np.flatnonzero(~in_gold & ~empty1 & ~empty2)  # empty cells were reported above
    report_not_in_truth(problems, table, extra, "predicted pair", pair, " in either orientation")
    unordered = np.minimum(safe_a, safe_b) * n + np.maximum(safe_a, safe_b)
    missing = np.flatnonzero(~np.isin(truth.unordered_keys, unordered[in_gold]))
    report_missing(
        problems,
        table,
        len(missing),
        len(truth.unordered_keys),
        "drug pairs",
        lambda: [truth.describe(int(k // n), int(k % n)) for k in truth.unordered_keys[missing[:MAX_EXAMPLES]]],
        " (a pair may be predicted in either orientation)",
        MISSING_FIX,
    )
    problems.raise_if_any()
    return MudiAligned(
        gold_a=truth.gold_a,
        gold_b=truth.gold_b,
        gold_label=truth.gold_label,
        pred_a=a.astype(np.int32),
        pred_b=b.astype(np.int32),
        pred_label=labels.astype(np.int8),
        drug_names=tuple(truth.vocabulary),
    ), len(table)
