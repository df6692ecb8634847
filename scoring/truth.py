"""Building truth files for organizers, and the label-free test inputs given to participants."""

from __future__ import annotations

import io
import math
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scoring.api import load_truth, resolve_task
from scoring.errors import fail
from scoring.readers import DEFAULT_MAX_BYTES, Limits, Source, check_columns, load_raw, normalise_name, parse_rows
from scoring.registry import Task
from scoring.validation import KeyedTruth, MudiTruth, Truth, align_table, read_prediction
from scoring.validation.common import SEED

TRIPLE_COLUMNS = ("drug_1", "drug_2", "context")
TRUTH_COLUMNS = (SEED, *TRIPLE_COLUMNS, "label")
TRAIN_FRACTION = 0.8
URL_TIMEOUT_SECONDS = 120


def chemicalx_test_rows(n: int, seed: int) -> np.ndarray:
    """Row indices of split ``seed``'s test set among ``n`` triples, in permutation order.

    The first n - floor(0.8 n) entries of ``RandomState(seed).permutation(n)``:
    what scikit-learn's ``train_test_split(test_size=0.2, random_state=seed)``
    returns as the test part (see tests/scoring/test_truth.py).
    """
    n_test = n - math.floor(TRAIN_FRACTION * n)
    return np.random.RandomState(seed).permutation(n)[:n_test]


def _open_source(source: Source | str, limits: Limits) -> Source:
    if isinstance(source, str) and source.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(source, timeout=URL_TIMEOUT_SECONDS) as response:
                body: bytes = response.read(limits.max_bytes + 1)
                return body
        except OSError as exc:
            raise fail(f"Could not download {source}: {exc}.") from exc
    return source


def read_triples(source: Source | str, *, limits: Limits | None = None) -> pd.DataFrame:
    """Read a ChemicalX ``labeled_triples.csv`` (path or http(s) URL), in file order, labels as float."""
    # The big ChemicalX files are ~40 MB; allow a little more than the submission default.
    limits = limits or Limits(max_bytes=2 * DEFAULT_MAX_BYTES)
    raw = load_raw(_open_source(source, limits), limits=limits, what="triples file")
    allowed = [*TRIPLE_COLUMNS, "label"]
    # labeled_triples.csv as published has a leading unnamed index column in some versions.
    extra = [c for c in raw.header if c == "" or c == "unnamed: 0"]
    check_columns(raw, required=allowed, optional=extra, display=allowed)
    table = parse_rows(raw, categorical=[c for c in raw.header if c != "label"], numeric=["label"], limits=limits)
    frame = pd.DataFrame({c: np.asarray(table.frame[c], dtype=object) for c in TRIPLE_COLUMNS})
    labels = table.frame["label"].to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(labels))
    if len(bad):
        raise fail(f'Line {table.lines[bad[0]]}, column "label" is not a finite number.', line=int(table.lines[bad[0]]))
    frame["label"] = labels
    return frame


def make_chemicalx_truth(
    triples: Source | str,
    seeds: Iterable[int] = range(10),
    threshold: float | None = None,
    *,
    out: str | Path | None = None,
) -> pd.DataFrame:
    """Build a ChemicalX truth (``seed,drug_1,drug_2,context,label``) from ``labeled_triples.csv``.

    Split k's test rows follow ``chemicalx_test_rows``. Labels must be 0/1 unless
    ``threshold`` is given, in which case label = 1 iff the value is > threshold.
    Writes a CSV to ``out`` when given. Raises ScoringError for bad input.
    """
    frame = read_triples(triples)
    labels = frame["label"].to_numpy()
    if threshold is not None:
        binary = (labels > threshold).astype(np.int8)
    elif np.isin(labels, (0.0, 1.0)).all():
        binary = labels.astype(np.int8)
    else:
        examples = ", ".join(f"{v:g}" for v in pd.unique(labels[~np.isin(labels, (0.0, 1.0))])[:3])
        raise fail(
            f"The triples file has continuous labels (e.g. {examples}), not 0/1; pass a threshold "
            "(--threshold X; label > X counts as positive) to binarise them."
        )
    parts = []
    for seed in seeds:
        rows = chemicalx_test_rows(len(frame), int(seed))
        part = frame.iloc[rows][list(TRIPLE_COLUMNS)].copy()
        part.insert(0, SEED, int(seed))
        part["label"] = binary[rows]
        parts.append(part)
    truth = pd.concat(parts, ignore_index=True)
    if out is not None:
        truth.to_csv(out, index=False)
    return truth


def test_inputs(task: str | Task, truth: Source | Truth) -> pd.DataFrame:
    """The truth's key columns with labels removed: what participants must predict.

    MUDI: ``Drug1,Drug2`` (distinct ordered pairs, ids as written in the truth);
    ImDrug: ``seed,id``; ChemicalX: ``seed,drug_1,drug_2,context`` (distinct keys).
    Rows come sorted by their key columns, whatever the truth file's order: the order of a hidden
    truth's rows (an organizer's file may list its public rows first) never reaches participants.
    """
    task = resolve_task(task)
    parsed = load_truth(task, truth)
    if isinstance(parsed, MudiTruth):
        names = np.array([parsed.prefix + name for name in parsed.vocabulary], dtype=object)
        pairs = pd.DataFrame({"Drug1": names[parsed.gold_a], "Drug2": names[parsed.gold_b]})
        return _canonical(pairs.drop_duplicates(ignore_index=True))
    assert isinstance(parsed, KeyedTruth)
    rows = parsed.first_rows()
    columns = {SEED: parsed.seeds[rows]}
    for name, vocabulary, codes in zip(parsed.key_columns, parsed.vocabularies, parsed.codes, strict=True):
        columns[name] = vocabulary[codes[rows]].to_numpy(dtype=object)
    return _canonical(pd.DataFrame(columns))


def _canonical(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows sorted by every column (numbers as numbers, text as text): one order for one set of keys."""
    return frame.sort_values(list(frame.columns), kind="stable", ignore_index=True)


# Not a pytest test despite the name.
test_inputs.__test__ = False  # type: ignore[attr-defined]


def truth_keys(task: str | Task, truth: Source | Truth) -> set[tuple[str, ...]]:
    """The truth's keys as text, comparable across files: MUDI pairs unordered and without the ``Compound::``
    prefix; other tasks' key columns without the data seed."""
    frame = test_inputs(task, truth)
    if list(frame.columns) == ["Drug1", "Drug2"]:
        bare = [[str(v).removeprefix("Compound::") for v in frame[c]] for c in ("Drug1", "Drug2")]
        return {(a, b) if a <= b else (b, a) for a, b in zip(*bare, strict=True)}
    columns = [frame[c].astype(str).tolist() for c in frame.columns if c != SEED]
    return set(zip(*columns, strict=True))


def write_csv(frame: pd.DataFrame, out: str | Path | None) -> str | None:
    """Write ``frame`` as CSV to ``out``, or return the CSV text when ``out`` is None."""
    if out is None:
        buffer = io.StringIO()
        frame.to_csv(buffer, index=False)
        return buffer.getvalue()
    frame.to_csv(out, index=False)
    return None


def key_columns(task: Task) -> list[str]:
    """The truth's key columns: every column but the label (``label``, or MUDI's ``Interaction``)."""
    return [c for c in task.truth_columns if c.lower() not in ("label", "interaction")]


def label_column(task: Task) -> str:
    """The truth's label column."""
    return next(c for c in task.truth_columns if c not in key_columns(task))


def synthetic_truth(task: str | Task, rng: np.random.Generator, n_rows: int) -> pd.DataFrame:
    """A synthetic truth in the task's own layout, for a demo of a kind that has no data of its own.

    ``n_rows`` rows per seed when the truth has a ``seed`` column (every seed of
    the task), else in all; made-up key values (``id-00001``, ...) and the kind's
    placeholder labels (``Kind.placeholder_labels``) in random order. The
    labels carry no signal: a board over this truth shows only that the
    pipeline works.
    """
    task = resolve_task(task)
    seeded = SEED in task.truth_columns
    seeds = np.repeat(np.asarray(task.seeds if seeded else (0,), dtype=int), n_rows)
    frame = pd.DataFrame({SEED: seeds}) if seeded else pd.DataFrame(index=range(len(seeds)))
    for column in key_columns(task):
        if column != SEED:
            frame[column] = [f"{column}-{i % n_rows:05d}" for i in range(len(seeds))]
    frame[label_column(task)] = rng.permutation(task.kind_def.placeholder_labels(task, len(seeds)))
    return frame[list(task.truth_columns)]


def truth_from_inputs(task: str | Task, inputs: Source) -> Truth:
    """A stand-in truth built from a test-inputs file (``test_inputs``' output), for checking without labels.

    Each key gets a placeholder label (the classes in turn; 0 for regression),
    so aligning a prediction against it runs every check the server runs except
    those that need the real labels: format, labels or ranges, duplicates,
    unknown and missing keys, with the same messages. Raises ScoringError.
    """
    task = resolve_task(task)
    raw = load_raw(inputs, what="inputs file")
    keys = key_columns(task)
    check_columns(raw, required=[normalise_name(k) for k in keys], display=keys)
    table = parse_rows(raw, categorical=list(raw.header), numeric=[], limits=Limits())
    frame = pd.DataFrame({name: table.frame[normalise_name(name)].astype(str).to_numpy() for name in keys})
    n = len(frame)
    frame[label_column(task)] = task.kind_def.placeholder_labels(task, n)
    buffer = io.StringIO()
    frame[list(task.truth_columns)].to_csv(buffer, index=False)
    return load_truth(task, buffer.getvalue().encode())


def validate_prediction(
    task: str | Task,
    pred: Source,
    *,
    inputs: Source | Truth | None = None,
    limits: Limits | dict[str, Any] | None = None,
) -> int:
    """Check a prediction file without the labels; returns its number of rows or raises ScoringError.

    With the task's test ``inputs`` (the site's ``/tasks/<slug>/inputs.csv``, or
    a Truth from ``truth_from_inputs``) every check the server runs applies,
    with the same messages: format, labels or ranges, duplicates, unknown and
    missing keys. Without them only the file's own format, columns and values.
    """
    task = resolve_task(task)
    table = read_prediction(task, pred, limits if isinstance(limits, Limits) else Limits(**(limits or {})))
    if inputs is None:
        return len(table)
    truth = inputs if isinstance(inputs, Truth) else truth_from_inputs(task, inputs)
    return align_table(task, truth, table)[1]
