"""ChemicalX drug pair scoring files.

Truth: ``seed,drug_1,drug_2,context,label`` with label 0/1; a triple may repeat
within a seed (every row is scored). Prediction: ``seed,drug_1,drug_2,context,
prediction`` (``score`` accepted for ``prediction``), a propensity in [0, 1],
one row per distinct triple and seed. The seed column may be left out when there
is a single seed (seed 0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from scoring.aligned import PairAligned, PairSeed
from scoring.readers import Limits, RawFile, Table, check_columns, parse_rows
from scoring.validation.common import SEED, add_located, apply_aliases, check_numbers
from scoring.validation.keyed import KeyedTruth, build_keyed_truth, match_prediction

if TYPE_CHECKING:
    from scoring.definitions import Task


KEY = ("drug_1", "drug_2", "context")
LABEL = "label"
PREDICTION = "prediction"
PREDICTION_ALIASES = {"score": PREDICTION, "propensity": PREDICTION}


def load_pair_truth(task: Task, raw: RawFile, limits: Limits) -> KeyedTruth:
    """Parse and validate a ChemicalX truth file (binary labels; repeated triples allowed)."""
    check_columns(raw, required=[*KEY, LABEL], optional=[SEED], display=[SEED, *KEY, LABEL])
    table = parse_rows(
        raw, categorical=[c for c in raw.header if c != LABEL], numeric=[LABEL], limits=limits, keep_going=True
    )
    problems = table.start_problems()
    labels = check_numbers(table, LABEL, problems)
    not_binary = np.flatnonzero(np.isfinite(labels) & (labels != 0) & (labels != 1))
    add_located(
        problems,
        table,
        not_binary,
        lambda row, line: f'Line {line}, column "{table.label(LABEL)}": {labels[row]:g} is not 0 or 1.',
        LABEL,
    )
    binary = np.where(labels == 1, 1, 0).astype(np.int8)  # only used once every label is 0 or 1
    truth = build_keyed_truth(task, table, KEY, binary, problems, unique=False)
    problems.raise_if_any()
    assert truth is not None  # None only with problems, raised just above
    return truth


def read_pair_prediction(task: Task, raw: RawFile, limits: Limits) -> Table:
    """Check a ChemicalX prediction file's columns and parse its rows (no truth needed)."""
    apply_aliases(raw, PREDICTION_ALIASES)
    check_columns(raw, required=[*KEY, PREDICTION], optional=[SEED], display=[SEED, *KEY, PREDICTION])
    return parse_rows(
        raw,
        categorical=[c for c in raw.header if c != PREDICTION],
        numeric=[PREDICTION],
        limits=limits,
        keep_going=True,
    )


def align_pairs(task: Task, truth: KeyedTruth, table: Table) -> tuple[PairAligned, int]:
    """Validate parsed ChemicalX predictions against the truth and align them; also returns the row count."""
    problems = table.start_problems()
    score = check_numbers(table, PREDICTION, problems, low=0.0, high=1.0, meaning="a propensity")
    pred_row = match_prediction(truth, table, problems)
    problems.raise_if_any()
    assert pred_row is not None  # None only with problems, raised just above
    context_codes = truth.codes[KEY.index("context")]
    seeds = {}
    for seed, rows in truth.rows_by_seed.items():
        seeds[seed] = PairSeed(
            y_true=truth.labels[rows].astype(np.int8),
            score=score[pred_row[rows]],
            context=context_codes[rows].astype(np.int32),
        )
    context_names = tuple(str(c) for c in truth.vocabularies[KEY.index("context")])
    return PairAligned(seeds=seeds, context_names=context_names), len(table)
