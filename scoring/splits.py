"""Public/private splits of a challenge phase's test rows, and scoring on each part.

A phase shows a live board on the *public* part of its test rows and keeps the
*private* part hidden until the end, so nobody can fit the number that decides
the challenge. Two ways to say which rows are which (see docs/challenges.md):

- ``SplitSpec.usage()``: a ``usage`` column in the truth file, ``public`` or
  ``private`` on every row (Kaggle's convention; case-insensitive).
- ``SplitSpec.hashed(fraction, seed)``: a unit is public iff
  ``unit_fraction(unit, seed) < fraction``, a hash of the unit's key and the
  split seed. It depends on nothing but the key, so the split is the same
  whatever the row order, delimiter, compression or ``Compound::`` prefix.

The *unit* is what is never cut in two:
- MUDI: the unordered drug pair. A prediction may name either orientation of a
  gold pair and the direction-agnostic metrics merge the two, so a pair whose
  orientations fell on different sides would leak private labels into the
  public score (and be scored twice).
- ImDrug and ChemicalX: the row key including the data seed (``seed,id`` or
  ``seed,drug_1,drug_2,context``); repeated ChemicalX triples share one
  prediction, so they stay together. Because the data seed is part of the key,
  every seed is split on its own, and each seed must have rows on both sides.

``score_parts`` validates and aligns a prediction once against the whole truth
(participants predict every test row without knowing which are public) and
computes every metric on the public rows, the private rows and all rows.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np
import pandas as pd

from scoring.aligned import Aligned, MudiAligned
from scoring.api import Score, _limits, load_truth, resolve_task, score_aligned
from scoring.errors import Problems, ScoringError, fail
from scoring.readers import Limits, RawFile, Source, Table, load_raw, parse_rows
from scoring.registry import Task
from scoring.validation import KeyedTruth, MudiTruth, Truth, align_table, read_prediction
from scoring.validation.common import add_located, apply_aliases
from scoring.validation.mudi import ALIASES as MUDI_ALIASES
from scoring.validation.mudi import DRUG1, DRUG2
from scoring.validation.mudi import _bare as bare_drug_ids

USAGE = "usage"
PUBLIC = "public"
PRIVATE = "private"
ALL = "all"
PARTS = (PUBLIC, PRIVATE, ALL)
_USAGE_FLAGS = {PUBLIC: 1, PRIVATE: 0}  # per row: 1 public, 0 private, -1 anything else
_SEPARATOR = "\x1f"  # ASCII unit separator: cannot occur in a stripped CSV field by accident


@dataclass(frozen=True)
class SplitSpec:
    """How a phase's test rows are divided: from a ``usage`` column, or by hash with a fraction and a seed.

    ``fraction`` is the share of units that are public (0 < fraction < 1).
    """

    usage_column: bool = False
    fraction: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.usage_column == (self.fraction is not None):
            raise fail("A split is either a usage column or a fraction with a seed, not both or neither.")
        if self.fraction is not None and not (0.0 < float(self.fraction) < 1.0):
            raise fail(f"The public fraction must be between 0 and 1 (exclusive), not {self.fraction}.")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise fail(f"The split seed must be a whole number >= 0, not {self.seed!r}.")

    @classmethod
    def usage(cls) -> SplitSpec:
        """Take public/private from the truth file's ``usage`` column."""
        return cls(usage_column=True)

    @classmethod
    def hashed(cls, fraction: float, seed: int = 0) -> SplitSpec:
        """Make ``fraction`` of the units public, chosen by a hash of each unit's key and ``seed``."""
        return cls(fraction=float(fraction), seed=seed)

    def to_dict(self) -> dict[str, Any]:
        """``{"usage": true}`` or ``{"fraction": 0.3, "seed": 7}``: the shape bundles and the site store."""
        if self.usage_column:
            return {"usage": True}
        return {"fraction": self.fraction, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SplitSpec:
        """Inverse of ``to_dict``; ScoringError for anything else."""
        if not isinstance(data, dict):
            raise fail(f"A split must be a mapping, not {type(data).__name__}.")
        if data.get("usage") is True and set(data) == {"usage"}:
            return cls.usage()
        if "fraction" in data and set(data) <= {"fraction", "seed"}:
            fraction = data["fraction"]
            if isinstance(fraction, bool) or not isinstance(fraction, (int, float)):
                raise fail(f"The public fraction must be a number, not {fraction!r}.")
            return cls.hashed(fraction, data.get("seed", 0))
        raise fail('A split is {"usage": true} or {"fraction": F, "seed": S}.')

    def describe(self) -> str:
        """Human text for pages and messages."""
        if self.usage_column:
            return "from the truth file's usage column"
        return f"{self.fraction:.0%} public by hash, seed {self.seed}"


@dataclass(frozen=True)
class Split:
    """Which units of one parsed truth are public.

    ``units``: int64 key per unit (MUDI: ``min * n + max`` over the truth's
    drug codes, i.e. ``MudiTruth.unordered_keys``; keyed tasks: the truth's
    distinct keys, in first-appearance order). ``public``: bool per unit.
    ``seed_public``: keyed tasks only, per data seed a bool per truth row of
    that seed, in the order the aligned containers hold them.
    """

    task: str
    spec: SplitSpec
    units: np.ndarray
    public: np.ndarray
    seed_public: dict[int, np.ndarray] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """Units on each side: ``{"public": n, "private": m}``."""
        n_public = int(self.public.sum())
        return {PUBLIC: n_public, PRIVATE: len(self.public) - n_public}


def unit_fraction(parts: Sequence[str], seed: int) -> float:
    """A unit's position in [0, 1): the first 8 bytes of BLAKE2b over ``seed`` and the key parts, / 2**64.

    The hashed text is ``str(seed)`` and the parts joined by U+001F, UTF-8
    encoded. MUDI parts are the two bare drug ids in sorted order; keyed tasks'
    parts are the data seed (as an integer) and the key columns as written.
    """
    text = _SEPARATOR.join([str(seed), *parts]).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") / 2**64


def make_split(task: str | Task, truth: Truth, spec: SplitSpec) -> Split:
    """The hash split of a parsed truth (``spec`` must be a fraction spec; see ``load_split_truth`` for usage)."""
    task = resolve_task(task)
    if spec.usage_column:
        raise fail("A usage-column split is read from the truth file itself; use load_split_truth.")
    fraction = spec.fraction
    assert fraction is not None  # a spec without a usage column has a fraction
    if isinstance(truth, MudiTruth):
        n = len(truth.vocabulary)
        units = truth.unordered_keys
        names = truth.vocabulary
        public = np.array(
            [unit_fraction((names[k // n], names[k % n]), spec.seed) < fraction for k in units.tolist()],
            dtype=np.bool_,
        )
        return _checked(task, truth, spec, units, public)
    assert isinstance(truth, KeyedTruth)
    rows = truth.first_rows()
    columns = [v[c[rows]].to_numpy(dtype=object) for v, c in zip(truth.vocabularies, truth.codes, strict=True)]
    seeds = truth.seeds[rows].tolist()
    public = np.fromiter(
        (
            unit_fraction((str(seed), *(str(col[i]) for col in columns)), spec.seed) < fraction
            for i, seed in enumerate(seeds)
        ),
        dtype=np.bool_,
        count=len(rows),
    )
    return _checked(task, truth, spec, truth.keys[rows], public)


def _checked(task: Task, truth: Truth, spec: SplitSpec, units: np.ndarray, public: np.ndarray) -> Split:
    """Build the Split, refusing one that leaves a side (of any seed) empty: that side could not be scored."""
    seed_public: dict[int, np.ndarray] = {}
    problems = Problems()
    how = spec.describe()
    if isinstance(truth, KeyedTruth):
        for seed, rows in truth.rows_by_seed.items():
            mask = public[truth.key_ids[rows]]
            seed_public[seed] = mask
            _check_sides(problems, mask, f"seed {seed}", "rows", how)
    else:
        _check_sides(problems, public, "the truth", "drug pairs", how)
    problems.raise_if_any()
    return Split(task=task.slug, spec=spec, units=units, public=public, seed_public=seed_public)


def _check_sides(problems: Problems, mask: np.ndarray, where: str, noun: str, how: str) -> None:
    for side, empty in ((PUBLIC, not mask.any()), (PRIVATE, mask.all())):
        if empty:
            problems.add(
                f"The split ({how}) leaves no {side} {noun} in {where} (of {len(mask):,}); "
                "each side of every seed needs at least one."
            )


# ---------------------------------------------------------------------------
# The usage column
# ---------------------------------------------------------------------------


def has_usage_column(source: Source, *, limits: Limits | None = None) -> bool:
    """Whether a truth file's header has a ``usage`` column."""
    return USAGE in load_raw(source, limits=limits or Limits(), what="truth file").header


def strip_usage(raw: RawFile) -> bytes:
    """The file's bytes without its ``usage`` column, every other byte of every line kept where it was.

    Line numbers are preserved, so the truth readers' messages point at the
    organizer's own file.
    """
    index = raw.header.index(USAGE)
    delimiter = raw.delimiter
    text = raw.data.decode("utf-8")
    if '"' not in text:
        lines = text.split("\n")
        for i, line in enumerate(lines):
            cells = line.split(delimiter)
            if len(cells) > index:
                del cells[index]
                lines[i] = delimiter.join(cells)
        return "\n".join(lines).encode("utf-8")
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    for record in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
        if len(record) > index:
            del record[index]
        writer.writerow(record)
    return out.getvalue().encode("utf-8")


def load_split_truth(
    task: str | Task, source: Source, spec: SplitSpec, *, limits: Limits | dict[str, Any] | None = None
) -> tuple[Truth, Split]:
    """Parse and validate a truth file and its split; ScoringError with located problems if either is wrong.

    With a usage spec the file must have a ``usage`` column (it is removed
    before the truth is read). With a fraction spec it must not have one: an
    organizer who wrote one meant it.
    """
    task = resolve_task(task)
    limits = _limits(limits)
    raw = load_raw(source, limits=limits, what="truth file")
    if not spec.usage_column:
        if USAGE in raw.header:
            raise fail(
                f'The truth file has a "{raw.written[USAGE]}" column but the phase splits by hash '
                f"({spec.describe()}); remove the column or split by the usage column.",
                line=1,
                column=raw.written[USAGE],
            )
        hashed = load_truth(task, raw.data, limits=limits)
        return hashed, make_split(task, hashed, spec)
    if USAGE not in raw.header:
        raise fail(
            'The phase takes its public/private split from a "usage" column, but the truth file has none; '
            "add a usage column (public or private on every row).",
            line=1,
        )
    problems = Problems()
    table = parse_rows(raw, categorical=list(raw.header), numeric=[], limits=limits)
    flags = _usage_flags(table, problems)
    truth: Truth | None = None
    try:
        truth = load_truth(task, strip_usage(raw), limits=limits)
    except ScoringError as error:
        problems.extend(error)
    if truth is None:
        problems.raise_if_any()
    if isinstance(truth, MudiTruth):
        apply_aliases(raw, MUDI_ALIASES)  # the table was parsed with the same header, so rename it likewise
        table.frame.columns = list(raw.header)
        unit_of_row = _mudi_units(truth, table)
        units = truth.unordered_keys
    else:
        assert isinstance(truth, KeyedTruth)
        unit_of_row = truth.key_ids
        units = truth.keys[truth.first_rows()]
    public = _unit_flags(truth, table, flags, unit_of_row, len(units), problems)
    problems.raise_if_any()
    return truth, _checked(task, truth, spec, units, public)


def _usage_flags(table: Table, problems: Problems) -> np.ndarray:
    """Per row: 1 public, 0 private, -1 unknown (reported with its line)."""
    column = table.frame[USAGE]
    categories = pd.Index(column.cat.categories.astype(str))
    codes = column.cat.codes.to_numpy()
    per_category = np.array([_USAGE_FLAGS.get(c.strip().lower(), -1) for c in categories], dtype=np.int64)
    flags = per_category[codes] if len(categories) else np.full(len(codes), -1, dtype=np.int64)
    name = table.label(USAGE)

    def message(row: int, line: int) -> str:
        text = categories[codes[row]] if codes[row] >= 0 else ""
        if not text:
            return f'Line {line}, column "{name}" is empty; write public or private.'
        return f'Line {line}, column "{name}": "{text}" is not a usage; write public or private.'

    add_located(problems, table, np.flatnonzero(flags < 0), message, USAGE)
    return flags


def _mudi_units(truth: MudiTruth, table: Table) -> np.ndarray:
    """Per table row, the index of its unordered pair in ``truth.unordered_keys``."""
    n = len(truth.vocabulary)
    ends = []
    for column in (DRUG1, DRUG2):
        bare, codes = bare_drug_ids(table.frame[column])
        ends.append(truth.vocabulary.get_indexer(bare).astype(np.int64)[codes])
    keys = np.minimum(ends[0], ends[1]) * n + np.maximum(ends[0], ends[1])
    units: np.ndarray = np.searchsorted(truth.unordered_keys, keys)
    return units


def _unit_flags(
    truth: Truth, table: Table, flags: np.ndarray, unit_of_row: np.ndarray, n_units: int, problems: Problems
) -> np.ndarray:
    """Per unit, public or not; a unit whose rows disagree is a located problem."""
    # The reference row of a unit is its first row with a valid usage (unknown values were reported already).
    valid = np.flatnonzero(flags >= 0)
    present, first_index = np.unique(unit_of_row[valid], return_index=True)
    first_row = np.full(n_units, -1, dtype=np.int64)
    first_row[present] = valid[first_index]
    reference = first_row[unit_of_row]
    rows = np.flatnonzero((flags >= 0) & (reference >= 0) & (flags != flags[np.maximum(reference, 0)]))
    mudi = isinstance(truth, MudiTruth)

    def message(row: int, line: int) -> str:
        first = int(reference[row])
        sides = {1: PUBLIC, 0: PRIVATE}
        if mudi:
            what = f"the pair ({table.frame[DRUG1].iloc[row]}, {table.frame[DRUG2].iloc[row]})"
            rule = "both orientations of a drug pair must be on the same side"
        else:
            assert isinstance(truth, KeyedTruth)
            what = "the key " + truth.describe_row(row)
            rule = "every row of a key must be on the same side"
        return (
            f"Line {line} puts {what} in {sides[int(flags[row])]}, but line {table.lines[first]} put it in "
            f"{sides[int(flags[first])]}; {rule}."
        )

    add_located(problems, table, rows, message, USAGE)
    return np.bincount(unit_of_row, weights=(flags == 1), minlength=n_units) > 0


# ---------------------------------------------------------------------------
# Scoring on each part
# ---------------------------------------------------------------------------


def _whole_drug_frequency(aligned: MudiAligned) -> np.ndarray:
    """Distinct unordered gold pairs per drug on the whole truth (what the frequency buckets count)."""
    from scoring.metrics.mudi_drugs import drug_frequency

    n = len(aligned.drug_names)
    units = np.unique(_unordered(aligned.gold_a, aligned.gold_b, n))
    return drug_frequency(np.stack([units // n, units % n], axis=1), n)


def restrict(aligned: Aligned, split: Split, part: str) -> tuple[Aligned, int]:
    """The aligned container cut down to one part's truth rows (and their predictions), and its row count.

    The count is what ``Score.n_rows`` reports for that part: MUDI prediction
    rows on the part's pairs; keyed tasks, the part's distinct keys.
    """
    if part == ALL:
        raise ValueError("restrict() takes public or private; the whole container is the 'all' part")
    keep_public = part == PUBLIC
    if part not in (PUBLIC, PRIVATE):
        raise ValueError(f"unknown part {part!r}; expected one of {', '.join(PARTS)}")
    if isinstance(aligned, MudiAligned):
        n = len(aligned.drug_names)
        chosen = np.sort(split.units[split.public == keep_public])
        gold = _in_sorted(chosen, _unordered(aligned.gold_a, aligned.gold_b, n))
        pred = _in_sorted(chosen, _unordered(aligned.pred_a, aligned.pred_b, n))
        cut = replace(
            aligned,
            gold_a=aligned.gold_a[gold],
            gold_b=aligned.gold_b[gold],
            gold_label=aligned.gold_label[gold],
            pred_a=aligned.pred_a[pred],
            pred_b=aligned.pred_b[pred],
            pred_label=aligned.pred_label[pred],
            drug_frequency=_whole_drug_frequency(aligned) if aligned.drug_frequency is None else aligned.drug_frequency,
        )
        return cut, int(pred.sum())
    seeds = {}
    for seed, container in aligned.seeds.items():
        mask = split.seed_public[seed] == keep_public
        seeds[seed] = replace(
            container,
            **{
                f.name: getattr(container, f.name)[mask]
                for f in fields(container)
                if isinstance(getattr(container, f.name), np.ndarray)
            },
        )
    n_rows = int((split.public == keep_public).sum())
    return replace(aligned, seeds=seeds), n_rows  # type: ignore[arg-type]  # each kind's own seed type


def _unordered(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    code: np.ndarray = np.minimum(a, b) * n + np.maximum(a, b)
    return code


def _in_sorted(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    if len(sorted_keys) == 0:
        return np.zeros(len(keys), dtype=bool)
    position = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    found: np.ndarray = sorted_keys[position] == keys
    return found


def _check_split_fits(task: Task, truth: Truth, split: Split) -> None:
    if isinstance(truth, MudiTruth):
        expected = len(truth.unordered_keys)
    else:
        assert isinstance(truth, KeyedTruth)
        expected = len(truth.distinct_keys)
    if split.task != task.slug or len(split.units) != expected:
        raise fail(f"The split was made for another truth (task {split.task!r}, {len(split.units):,} units).")


def score_parts(
    task: str | Task,
    truth: Source | Truth,
    pred: Source,
    split: Split | SplitSpec,
    *,
    limits: Limits | dict[str, Any] | None = None,
) -> dict[str, Score]:
    """Validate a prediction against the whole truth, then score it on ``public``, ``private`` and ``all`` rows.

    ``truth`` is a source or a parsed Truth; ``split`` a Split made for that
    truth, or a SplitSpec (then a usage spec needs the truth as a source). The
    ``all`` Score equals ``score_files`` on the same files. Raises ScoringError.
    """
    return score_parts_aligned(task, truth, pred, split, limits=limits)[0]


def score_parts_aligned(
    task: str | Task,
    truth: Source | Truth,
    pred: Source,
    split: Split | SplitSpec,
    *,
    limits: Limits | dict[str, Any] | None = None,
) -> tuple[dict[str, Score], Aligned]:
    """``score_parts``, with the prediction aligned to the public rows (what stored replicates resample)."""
    task = resolve_task(task)
    if isinstance(split, SplitSpec):
        if isinstance(truth, Truth):
            split = make_split(task, truth, split)
        else:
            truth, split = load_split_truth(task, truth, split)
    elif not isinstance(truth, Truth):
        truth = load_truth(task, truth)
    _check_split_fits(task, truth, split)
    aligned, n_rows = align_table(task, truth, read_prediction(task, pred, _limits(limits)))
    scores = {ALL: score_aligned(task, aligned, n_rows)}
    cuts = {}
    for part in (PUBLIC, PRIVATE):
        cuts[part], part_rows = restrict(aligned, split, part)
        scores[part] = score_aligned(task, cuts[part], part_rows)
    return {part: scores[part] for part in PARTS}, cuts[PUBLIC]


__all__ = [
    "ALL",
    "PARTS",
    "PRIVATE",
    "PUBLIC",
    "USAGE",
    "Split",
    "SplitSpec",
    "has_usage_column",
    "load_split_truth",
    "make_split",
    "restrict",
    "score_parts",
    "strip_usage",
    "unit_fraction",
]
