"""ImDrug files: classification (labels, optional probabilities) and regression.

Truth: ``seed,id,label`` (regression may call the label ``y``). Prediction:
``seed,id,prediction`` (``label`` / ``y`` accepted as the prediction column's
name) plus, for classification, optional ``prob_<class>`` columns for every
class, or a single ``score`` (probability of class 1) on binary tasks. The seed
column may be left out when there is a single seed (seed 0).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from scoring import longtail
from scoring.aligned import ClassificationAligned, ClassificationSeed, RegressionAligned, RegressionSeed
from scoring.errors import Problems, fail
from scoring.readers import Limits, RawFile, Source, Table, check_columns, load_raw, parse_rows
from scoring.validation.common import SEED, Truth, add_located, apply_aliases, check_numbers, label_codes
from scoring.validation.keyed import KeyedTruth, build_keyed_truth, match_prediction

if TYPE_CHECKING:
    from scoring.definitions import Task


ID = "id"
LABEL = "label"
PREDICTION = "prediction"
SCORE = "score"
PROB_PREFIX = "prob_"
TRUTH_ALIASES = {"y": LABEL}
PREDICTION_ALIASES = {LABEL: PREDICTION, "y": PREDICTION}
_INTEGER = re.compile(r"^\d+(\.0*)?$")


def normalise_label(text: str) -> str:
    """Labels compare case-insensitively, with ``_`` read as a space and runs of spaces collapsed."""
    return " ".join(str(text).strip().lower().replace("_", " ").split())


def class_lookup(classes: tuple[str, ...]) -> dict[str, int]:
    """Map every accepted spelling of a class (name or 0-based index) to its index."""
    lookup = {normalise_label(name): i for i, name in enumerate(classes)}
    for i in range(len(classes)):
        lookup.setdefault(str(i), i)  # a class literally named "3" keeps its name's meaning
    return lookup


def _lookup_label(text: str, lookup: dict[str, int]) -> int:
    key = normalise_label(text)
    if key in lookup:
        return lookup[key]
    if _INTEGER.match(key):  # "2.0" written by a float-typed export
        return lookup.get(str(int(float(key))), -1)
    return -1


def describe_classes(classes: tuple[str, ...]) -> str:
    """Short human list of the allowed labels for messages."""
    shown = classes if len(classes) <= 6 else (*classes[:3], "...", classes[-1])
    return f"use a class name ({', '.join(shown)}) or its 0-based index (0 to {len(classes) - 1})"


def class_codes(table: Table, column: str, classes: tuple[str, ...], problems: Problems) -> np.ndarray:
    """Per-row class index of a label column; unknown or empty labels are reported and coded -1."""
    lookup = class_lookup(classes)
    return label_codes(
        table,
        column,
        lambda text: _lookup_label(text, lookup),
        problems,
        what="a class of this task",
        hint=describe_classes(classes),
    )


def _truth_table(task: Task, raw: RawFile, limits: Limits, numeric_label: bool) -> Table:
    apply_aliases(raw, TRUTH_ALIASES)
    # Classification truths may carry each class's long-tailed group (scoring.longtail).
    grouped = [] if numeric_label else [longtail.GROUP_COLUMN]
    display = [SEED, ID, LABEL] + (
        [f"{longtail.GROUP_COLUMN} (optional: head, middle, tail or open)"] if grouped else []
    )
    check_columns(raw, required=[ID, LABEL], optional=[SEED, *grouped], display=display)
    numeric = [LABEL] if numeric_label else []
    categorical = [c for c in raw.header if c not in numeric]
    return parse_rows(raw, categorical=categorical, numeric=numeric, limits=limits, keep_going=True)


def load_classification_truth(task: Task, raw: RawFile, limits: Limits) -> KeyedTruth:
    """Parse and validate an ImDrug classification truth file (with an optional ``group`` column)."""
    table = _truth_table(task, raw, limits, numeric_label=False)
    problems = table.start_problems()
    labels = class_codes(table, LABEL, task.classes, problems)
    groups = None
    if longtail.GROUP_COLUMN in table.frame:
        groups = longtail.groups_from_truth_column(table, labels, len(task.classes), problems)
    truth = build_keyed_truth(task, table, (ID,), labels, problems, unique=True)
    problems.raise_if_any()
    assert truth is not None  # None only with problems, raised just above
    return longtail.with_class_groups(truth, groups)


def read_group_mapping(task: Task, source: Source) -> longtail.ClassGroups:
    """Parse an organizer's ``class,group`` mapping for ``task`` (class by name or 0-based index).

    Raises ScoringError with every located problem: an unknown class or group,
    a class named twice with different groups. Classes it leaves out get no group.
    """
    _require_class_groups(task)
    raw = load_raw(source, what="group mapping")
    check_columns(raw, required=[longtail.MAPPING_CLASS, longtail.GROUP_COLUMN])
    table = parse_rows(raw, categorical=list(raw.header), numeric=[], limits=Limits(), keep_going=True)
    problems = table.start_problems()
    if len(table) == 0:
        raise fail("The group mapping has no rows; give one line per class: class,group.", line=2)
    codes = class_codes(table, longtail.MAPPING_CLASS, task.classes, problems)
    groups = longtail.assign_groups(table, longtail.GROUP_COLUMN, codes, len(task.classes), problems, "class")
    problems.raise_if_any()
    return groups


def _require_class_groups(task: Task) -> None:
    if not task.kind_def.class_groups:
        raise fail(f"Task {task.slug} has no class groups; a group mapping is for classification tasks.")


def attach_group_mapping(task: Task, truth: Truth, source: Source) -> KeyedTruth:
    """The truth with the grouping of an organizer's mapping file (replacing a ``group`` column's).

    Refused, as the site refuses it, when the mapping gives no group to a class the truth has
    (``truth_with_group_column`` locates the truth's lines; a parsed truth has no line numbers).
    """
    _require_class_groups(task)
    if not isinstance(truth, KeyedTruth):
        raise fail(f"Task {task.slug} has no class groups; a group mapping is for classification tasks.")
    groups = read_group_mapping(task, source)
    present = np.unique(np.asarray(truth.labels, dtype=np.int64))
    missing = [int(c) for c in present if groups[int(c)] is None]
    if missing:
        names = ", ".join(f'"{task.classes[c]}"' for c in missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise fail(
            f"The truth has {len(missing)} class(es) the group mapping gives no group: {names}; "
            "give every class of the truth a line class,group."
        )
    return longtail.with_class_groups(truth, groups)


def truth_with_group_column(task: Task, truth: Source, groups: longtail.ClassGroups) -> bytes:
    """The truth file's text again with a ``group`` column filled from ``groups`` (``read_group_mapping``'s).

    Labels resolve to classes as when the truth is scored (name or 0-based index).
    An existing ``group`` column is replaced in place; otherwise the column is
    added last. Every other column (a split's ``usage`` too) keeps its name,
    order and (stripped) values, and the file keeps its delimiter; blank lines
    are left out. Returned uncompressed; the caller validates the result as a
    truth. Raises ScoringError, located, for a label that is not a class
    and for a row whose class the mapping gives no group.
    """
    _require_class_groups(task)
    raw = load_raw(truth, what="truth file")
    apply_aliases(raw, TRUTH_ALIASES)
    # Only the label matters here; every other column (a split's usage column too) is carried over as it is.
    check_columns(raw, required=[ID, LABEL], optional=list(raw.header))
    table = parse_rows(raw, categorical=list(raw.header), numeric=[], limits=Limits(), keep_going=True)
    problems = table.start_problems()
    labels = class_codes(table, LABEL, task.classes, problems)
    problems.raise_if_any()
    named = np.asarray([g is not None for g in groups], dtype=bool)
    ungrouped = np.flatnonzero(~named[labels])
    add_located(
        problems,
        table,
        ungrouped,
        lambda row, line: (
            f'Line {line} of the truth has class "{task.classes[int(labels[row])]}", which the group mapping '
            "gives no group; give every class of the truth a line class,group."
        ),
        LABEL,
    )
    problems.raise_if_any()
    frame = table.frame.astype(object)
    frame[longtail.GROUP_COLUMN] = np.asarray(groups, dtype=object)[labels]
    frame.columns = [raw.written.get(column, column) for column in frame.columns]
    text: str = frame.to_csv(sep=raw.delimiter, index=False, lineterminator="\n")
    return text.encode("utf-8")


def load_regression_truth(task: Task, raw: RawFile, limits: Limits) -> KeyedTruth:
    """Parse and validate an ImDrug regression truth file (finite float labels)."""
    table = _truth_table(task, raw, limits, numeric_label=True)
    problems = table.start_problems()
    labels = check_numbers(table, LABEL, problems)
    truth = build_keyed_truth(task, table, (ID,), labels, problems, unique=True)
    problems.raise_if_any()
    assert truth is not None  # None only with problems, raised just above
    return truth


def probability_columns(header: Sequence[str], classes: tuple[str, ...]) -> dict[str, int]:
    """Columns ``prob_<class name or index>`` of a (normalised) header and the class index each one names."""
    by_name = {normalise_label(name).replace(" ", "_"): i for i, name in enumerate(classes)}
    found: dict[str, int] = {}
    for column in header:
        if not column.startswith(PROB_PREFIX):
            continue
        suffix = normalise_label(column[len(PROB_PREFIX) :]).replace(" ", "_")
        if suffix in by_name:
            found[column] = by_name[suffix]
        elif suffix.isdigit() and int(suffix) < len(classes):
            found[column] = int(suffix)
    return found


def _check_probability_layout(raw: RawFile, prob_columns: dict[str, int], classes: tuple[str, ...]) -> None:
    if SCORE in raw.header and prob_columns:
        raise fail('Give either a "score" column or prob_ columns, not both.', line=1)
    if not prob_columns:
        return
    named: dict[int, str] = {}
    for column, index in prob_columns.items():
        if index in named:
            raise fail(
                f'Columns "{raw.written[named[index]]}" and "{raw.written[column]}" both give the probability of '
                f'class "{classes[index]}".',
                line=1,
            )
        named[index] = column
    missing = [i for i in range(len(classes)) if i not in named]
    if missing:
        shown = ", ".join(f"prob_{i}" for i in missing[:10]) + (", ..." if len(missing) > 10 else "")
        raise fail(
            f"Probability columns must cover every class or be left out entirely; missing {len(missing)} of "
            f"{len(classes)}: {shown}.",
            line=1,
        )


def _prediction_table(task: Task, raw: RawFile, limits: Limits, *, classification: bool) -> Table:
    apply_aliases(raw, PREDICTION_ALIASES)
    prob_columns: dict[str, int] = {}
    optional = [SEED]
    display = [SEED, ID, PREDICTION]
    if classification:
        prob_columns = probability_columns(raw.header, task.classes)
        optional += list(prob_columns)
        display.append("prob_<class> for every class (optional)")
        if len(task.classes) == 2:
            optional.append(SCORE)
            display.append("or score = probability of class 1 (optional)")
    check_columns(raw, required=[ID, PREDICTION], optional=optional, display=display)
    if classification:
        _check_probability_layout(raw, prob_columns, task.classes)
    numeric = list(prob_columns) + ([SCORE] if SCORE in raw.header else [])
    if not classification:
        numeric = [PREDICTION]
    categorical = [c for c in raw.header if c not in numeric]
    return parse_rows(raw, categorical=categorical, numeric=numeric, limits=limits, keep_going=True)


def read_classification_prediction(task: Task, raw: RawFile, limits: Limits) -> Table:
    """Check a classification prediction file's columns and parse its rows (no truth needed)."""
    return _prediction_table(task, raw, limits, classification=True)


def read_regression_prediction(task: Task, raw: RawFile, limits: Limits) -> Table:
    """Check a regression prediction file's columns and parse its rows (no truth needed)."""
    return _prediction_table(task, raw, limits, classification=False)


def align_classification(task: Task, truth: KeyedTruth, table: Table) -> tuple[ClassificationAligned, int]:
    """Validate parsed classification predictions against the truth and align them; also returns the row count."""
    # The table's columns are the normalised header, so this finds the same columns as the reader did.
    prob_columns = probability_columns(tuple(table.frame.columns), task.classes)
    problems = table.start_problems()
    y_pred = class_codes(table, PREDICTION, task.classes, problems)
    proba = None
    if prob_columns:
        proba = np.empty((len(table), len(task.classes)), dtype=np.float64)
        for column, index in prob_columns.items():
            proba[:, index] = check_numbers(table, column, problems, low=0.0, high=1.0, meaning="a probability")
    elif SCORE in table.frame:
        score = check_numbers(table, SCORE, problems, low=0.0, high=1.0, meaning="a probability")
        proba = np.column_stack([1.0 - score, score])
    pred_row = match_prediction(truth, table, problems)
    problems.raise_if_any()
    assert pred_row is not None  # None only with problems, raised just above
    seeds = {}
    for seed, rows in truth.rows_by_seed.items():
        chosen = pred_row[rows]
        seeds[seed] = ClassificationSeed(
            ids=truth.vocabularies[0][truth.codes[0][rows]].to_numpy(dtype=object),
            y_true=truth.labels[rows],
            y_pred=y_pred[chosen],
            proba=None if proba is None else proba[chosen],
        )
    groups = longtail.class_groups_of(truth)
    return ClassificationAligned(seeds=seeds, class_names=tuple(task.classes), class_groups=groups), len(table)


def align_regression(task: Task, truth: KeyedTruth, table: Table) -> tuple[RegressionAligned, int]:
    """Validate parsed regression predictions against the truth and align them; also returns the row count."""
    problems = table.start_problems()
    values = check_numbers(table, PREDICTION, problems)
    pred_row = match_prediction(truth, table, problems)
    problems.raise_if_any()
    assert pred_row is not None  # None only with problems, raised just above
    seeds = {}
    for seed, rows in truth.rows_by_seed.items():
        seeds[seed] = RegressionSeed(
            ids=truth.vocabularies[0][truth.codes[0][rows]].to_numpy(dtype=object),
            y_true=truth.labels[rows].astype(np.float64),
            y_pred=values[pred_row[rows]],
        )
    return RegressionAligned(seeds=seeds), len(table)
