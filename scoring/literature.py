"""Published results: CSV tables of numbers printed in the benchmarks' papers.

A file has the columns ``benchmark_task, method, setting, metric, value,
spread, unit, source, notes`` (one printed number a line, see
``../shared/data/literature/README.md``). ``read_table`` turns it into plain
rows, resolving each printed metric name to this package's result key and
converting percent to the fractions the boards show; ``entries`` groups rows
into one published method per task and ``check_entry`` applies the paper's
own definitions (MUDI: macro F1 is the harmonic mean of macro P and R).
Nothing here assumes a single file or a single paper.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from scoring.errors import Problem, ScoringError
from scoring.kinds import kind_of
from scoring.registry import TASKS

COLUMNS = ("benchmark_task", "method", "setting", "metric", "value", "spread", "unit", "source", "notes")
UNITS = {"percent": 100.0, "fraction": 1.0}


def as_fraction(printed: str | float, unit: str) -> float:
    """A printed number as a fraction, exactly as printed: "46.02" percent is 0.4602, not 0.46020000000000005.

    The division is decimal, so exports and pages carry the paper's digits and no float noise
    (a float is read as its shortest repr, which is how it was printed).
    """
    return float(Decimal(str(printed).strip()) / Decimal(str(UNITS[unit])))


@dataclass(frozen=True)
class PublishedValue:
    """One printed number, as in its CSV line, plus the key and fraction the board uses."""

    line: int
    task: str
    method: str
    setting: str
    metric: str  # as printed ("Macro-averaged F1")
    key: str  # our result key ("aware/macro/f1"); "" when we compute nothing comparable
    value: float  # as printed
    spread: float | None
    unit: str
    fraction: float  # value / 100 for percent
    source: str
    notes: str


@dataclass
class PublishedEntry:
    """One published method on one task: its values by result key and where they come from."""

    task: str
    method: str
    source: str
    paper: str  # "Ngo et al. 2025 MUDI"
    table: str  # "Table 6"
    url: str  # the citation link
    unit: str
    metrics: dict[str, float] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)


def result_key(task_slug: str, setting: str, metric: str) -> str:
    """Our result key for a printed metric name, "" when it is not one we compute the same way.

    MUDI names are resolved by scope and statistic; for any other task a printed
    name must equal one of the task's metric keys or names (case-insensitive).
    """
    task = TASKS[task_slug]
    kind = kind_of(task)
    if kind.published_key is not None:
        return kind.published_key(setting, metric)
    wanted = metric.strip().lower()
    for definition in task.metrics:
        if wanted in (definition.key.lower(), definition.name.lower()):
            return definition.key
    return ""


def read_table(source: str | Path | io.TextIOBase) -> list[PublishedValue]:
    """Every line of a published-results CSV; a malformed line raises ``ScoringError`` naming it."""
    if isinstance(source, (str, Path)):
        with open(source, newline="", encoding="utf-8") as handle:
            return read_table(io.StringIO(handle.read()))
    reader = csv.DictReader(source)
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise ScoringError([Problem(1, None, f"missing columns: {', '.join(missing)}")])
    out, errors = [], []
    for line, row in enumerate(reader, start=2):
        task, unit = row["benchmark_task"].strip(), row["unit"].strip().lower()
        if task not in TASKS:
            errors.append(Problem(line, "benchmark_task", f"unknown task {task!r}"))
            continue
        if unit not in UNITS:
            errors.append(Problem(line, "unit", f"unit must be one of {', '.join(UNITS)}"))
            continue
        try:
            value = float(row["value"])
            spread = float(row["spread"]) if row["spread"].strip() else None
        except ValueError:
            errors.append(Problem(line, "value", f"not a number: {row['value']!r}"))
            continue
        setting = row["setting"].strip()
        out.append(
            PublishedValue(
                line=line, task=task, method=row["method"].strip(), setting=setting, metric=row["metric"].strip(),
                key=result_key(task, setting, row["metric"]), value=value, spread=spread, unit=unit,
                fraction=as_fraction(row["value"], unit), source=row["source"].strip(), notes=row["notes"].strip(),
            )
        )  # fmt: skip
    if errors:
        raise ScoringError(errors)
    return out


def cited(source: str, fallback_url: str = "") -> tuple[str, str, str]:
    """(paper, "Table N", link) read from a source cell ("Ngo et al. 2025 MUDI (arXiv 2506.01478), ... Table 6 ...")."""
    paper = source.split("(", 1)[0].strip().rstrip(",") or source[:80]
    table = re.search(r"\bTable\s+([A-Za-z]?\d+[a-z]?)", source)
    arxiv = re.search(r"arXiv[:\s]+(\d{4}\.\d{4,5})", source)
    url = f"https://arxiv.org/abs/{arxiv.group(1)}" if arxiv else fallback_url
    return paper, f"Table {table.group(1)}" if table else "", url


def entries(values: Iterable[PublishedValue]) -> list[PublishedEntry]:
    """One entry per (task, method, source), holding every comparable value as a fraction, checked."""
    grouped: dict[tuple[str, str, str], PublishedEntry] = {}
    for v in values:
        entry = grouped.get((v.task, v.method, v.source))
        if entry is None:
            paper, table, url = cited(v.source, TASKS[v.task].paper_url)
            entry = PublishedEntry(v.task, v.method, v.source, paper, table, url, v.unit)
            grouped[(v.task, v.method, v.source)] = entry
        if v.key:
            entry.metrics[v.key] = v.fraction
    for entry in grouped.values():
        entry.flags = check_entry(entry)
    return list(grouped.values())


def check_entry(entry: PublishedEntry) -> list[str]:
    """The paper's own definitions an entry breaks (MUDI: macro F1 = harmonic mean of macro P and R)."""
    return kind_of(TASKS[entry.task]).published_checks(entry.metrics)
