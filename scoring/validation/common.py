"""Helpers shared by the per-family validators: columns, seeds, numbers, keys.

Everything row-level is vectorised with numpy/pandas; Python loops only build
the (capped) list of located problems.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from scoring.errors import Problems, fail
from scoring.readers import MAX_LOCATED, RawFile, Table, category_values

SEED = "seed"
# How many example keys a "not in the truth" / "missing" message quotes.
MAX_EXAMPLES = 5


@dataclass(frozen=True)
class Truth:
    """A parsed, validated truth file for one task; reusable across many predictions."""

    task: str  # task slug
    kind: str
    n_rows: int  # data rows in the truth file


def apply_aliases(raw: RawFile, aliases: dict[str, str]) -> None:
    """Rename alternative header names to canonical ones, in place.

    Raises ScoringError when two header columns mean the same canonical column.
    """
    renamed = tuple(aliases.get(name, name) for name in raw.header)
    seen: dict[str, str] = {}
    for original, canonical in zip(raw.header, renamed, strict=True):
        if canonical in seen and seen[canonical] != original:
            raise fail(
                f'Columns "{raw.written[seen[canonical]]}" and "{raw.written[original]}" mean the same thing; '
                "keep only one of them.",
                line=1,
            )
        seen[canonical] = original
    raw.written = {canonical: raw.written[original] for original, canonical in zip(raw.header, renamed, strict=True)}
    raw.header = renamed


def add_located(
    problems: Problems,
    table: Table,
    rows: np.ndarray,
    message: Callable[[int, int], str],
    column: str | None = None,
) -> None:
    """Add one problem per offending row index (the first MAX_LOCATED located, the rest counted).

    ``message(row, line)`` builds the text for one row.
    """
    label = table.label(column) if column else None
    for row in rows[:MAX_LOCATED]:
        line = int(table.lines[row])
        problems.add(message(int(row), line), line=line, column=label)
    problems.total += max(0, len(rows) - MAX_LOCATED)


def row_seeds(table: Table, problems: Problems) -> np.ndarray:
    """Per-row seed as int64 (0 when the file has no seed column; -1 where unparseable)."""
    if SEED not in table.frame:
        return np.zeros(len(table), dtype=np.int64)
    categories, codes = category_values(table.frame[SEED])
    numbers = pd.to_numeric(pd.Series(categories, dtype=object), errors="coerce").to_numpy(dtype=np.float64)
    valid = np.isfinite(numbers) & (numbers >= 0) & (np.floor(numbers) == numbers)
    per_category = np.where(valid, numbers, -1).astype(np.int64)
    seeds: np.ndarray = per_category[codes]
    bad = np.flatnonzero(seeds < 0)
    if len(bad):
        add_located(
            problems,
            table,
            bad,
            lambda row, line: (
                f'Line {line}, column "{table.label(SEED)}": '
                f'"{categories[codes[row]]}" is not a seed (a whole number >= 0).'
            ),
            SEED,
        )
    return seeds


def check_numbers(
    table: Table,
    column: str,
    problems: Problems,
    *,
    low: float | None = None,
    high: float | None = None,
    meaning: str = "a number",
) -> np.ndarray:
    """Return the float64 column; report non-finite values and values outside [low, high].

    Values that were not numbers at all were reported while parsing and are skipped here.
    """
    values: np.ndarray = table.frame[column].to_numpy(dtype=np.float64)
    name = table.label(column)
    finite = np.isfinite(values)
    bad = np.setdiff1d(np.flatnonzero(~finite), table.unreadable.get(column, np.array([], dtype=np.int64)))
    add_located(
        problems,
        table,
        bad,
        lambda row, line: f'Line {line}, column "{name}": {values[row]} is not a finite number.',
        column,
    )
    if low is not None and high is not None:
        outside = np.flatnonzero(finite & ((values < low) | (values > high)))
        add_located(
            problems,
            table,
            outside,
            lambda row, line: (
                f'Line {line}, column "{name}": {values[row]:g} is not {meaning} '
                f"(it must be between {low:g} and {high:g})."
            ),
            column,
        )
    return values


def _empty_message(label: str) -> Callable[[int, int], str]:
    return lambda row, line: f'Line {line}, column "{label}" is empty.'


def label_codes(
    table: Table, column: str, code_of: Callable[[str], int], problems: Problems, *, what: str, hint: str
) -> np.ndarray:
    """Per-row code of a label column (``code_of`` per distinct text; -1 unknown); unknown and empty ones reported.

    An unknown label reads ``Line 7, column "label": "x" is not <what>; <hint>.``
    """
    categories, codes = category_values(table.frame[column])
    per_category = np.array([code_of(c) for c in categories], dtype=np.int64)
    values = per_category[codes] if len(categories) else np.full(len(codes), -1, dtype=np.int64)
    name = table.label(column)

    def message(row: int, line: int) -> str:
        text = categories[codes[row]]
        if not text:
            return f'Line {line}, column "{name}" is empty.'
        return f'Line {line}, column "{name}": "{text}" is not {what}; {hint}.'

    add_located(problems, table, np.flatnonzero(values < 0), message, column)
    return values


def check_not_empty(table: Table, columns: Sequence[str], problems: Problems) -> None:
    """Report rows where a required text column is empty."""
    for column in columns:
        categories, codes = category_values(table.frame[column])
        empty = np.flatnonzero((categories == "")[codes]) if len(categories) else np.array([], dtype=np.int64)
        label = table.label(column)
        add_located(problems, table, empty, _empty_message(label), column)


def encode(vocabulary: pd.Index, column: pd.Series) -> np.ndarray:
    """Per-row code of a categorical column's values in ``vocabulary`` (-1 where absent). Hashes uniques only."""
    categories, codes = category_values(column)
    if len(categories) == 0:
        return np.full(len(codes), -1, dtype=np.int64)
    per_category = vocabulary.get_indexer(categories).astype(np.int64)
    encoded: np.ndarray = per_category[codes]
    return encoded


def combine(codes: Sequence[np.ndarray], sizes: Sequence[int]) -> np.ndarray:
    """Mixed-radix int64 key from per-row codes (all >= 0) and their vocabulary sizes.

    If the product of sizes could overflow int64, intermediate keys are
    re-factorised so they stay small (never happens at benchmark sizes).
    """
    key = codes[0].astype(np.int64)
    bound = max(int(sizes[0]), 1)
    for part, size in zip(codes[1:], sizes[1:], strict=True):
        size = max(int(size), 1)
        if bound * size >= 2**62:
            key, uniques = pd.factorize(key)
            key = key.astype(np.int64)
            bound = max(len(uniques), 1)
        key = key * size + part
        bound *= size
    return key


def duplicate_rows(keys: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose (valid) key repeats an earlier row's, and that earlier row's index."""
    rows = np.flatnonzero(valid)
    repeated = pd.Series(keys[rows]).duplicated(keep="first").to_numpy()
    dup_rows = rows[repeated]
    if len(dup_rows) == 0:
        return dup_rows, dup_rows
    # First occurrence of each of the reported keys, found with one vectorised pass.
    shown = dup_rows[:MAX_LOCATED]
    candidates = rows[np.isin(keys[rows], keys[shown])]
    firsts_by_key = pd.Series(candidates, index=keys[candidates])
    firsts_by_key = firsts_by_key[~firsts_by_key.index.duplicated(keep="first")]
    firsts = firsts_by_key.reindex(keys[shown]).to_numpy(dtype=np.int64)
    return dup_rows, firsts


def plural(n: int, word: str, many: str | None = None) -> str:
    """``3 rows`` / ``1 row`` with thousands separators."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def quote_key(names: Sequence[str], values: Sequence[object]) -> str:
    """Render a key for messages: ``(seed 0, id "x")``."""
    parts = []
    for name, value in zip(names, values, strict=True):
        parts.append(f"{name} {value}" if name == SEED else f'{name} "{value}"')
    return "(" + ", ".join(parts) + ")"


# The messages about how prediction rows line up with the truth, shared by every family.


def report_repeats(
    problems: Problems, table: Table, dup_rows: np.ndarray, firsts: np.ndarray, what: Callable[[int], str], verb: str
) -> None:
    """One problem per repeated prediction row: ``Line 9 repeats <what> already <verb> on line 4.``

    ``dup_rows`` and ``firsts`` come from ``duplicate_rows``; ``what(row)`` names the repeated key.
    """
    shown = dict(zip(dup_rows[: len(firsts)].tolist(), firsts.tolist(), strict=True))
    add_located(
        problems,
        table,
        dup_rows,
        lambda row, line: f"Line {line} repeats {what(row)} already {verb} on line {table.lines[shown[row]]}.",
    )


def report_not_in_truth(
    problems: Problems, table: Table, rows: np.ndarray, noun: str, describe: Callable[[int], str], where: str = ""
) -> None:
    """One problem for every prediction row whose key the truth lacks, quoting the first few."""
    if len(rows) == 0:
        return
    examples = ", ".join(f"line {table.lines[r]} {describe(int(r))}" for r in rows[:MAX_EXAMPLES])
    problems.add(
        f"{plural(len(rows), noun)} {'is' if len(rows) == 1 else 'are'} not in the truth{where}, e.g. {examples}.",
        line=int(table.lines[rows[0]]),
    )


def report_missing(
    problems: Problems,
    table: Table,
    missing: int,
    total: int,
    noun: str,
    examples: Callable[[], list[str]],
    note: str = "",
    fix: str = "",
) -> None:
    """One problem when truth keys have no prediction, quoting the first few, and ``fix``: how to fix it.

    Skipped when lines were left out for a wrong field count: their keys would be
    reported missing a second time, and the lines themselves are already listed.
    """
    if missing == 0 or table.dropped:
        return
    problems.add(
        f"The predictions miss {missing:,} of the truth's {total:,} {noun}{note}, e.g. {', '.join(examples())}.{fix}"
    )
