"""CSV and JSON exports of a board view: every column of the view, every row, full precision.

The JSON layout is documented in docs/leaderboards.md. Numbers are written as
stored (Python's shortest round-trip representation), so they equal
``python -m scoring score --json`` for the same files exactly.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from functools import cache

import scoring
from leaderboard.boards import published
from leaderboard.boards.models import Board
from leaderboard.boards.query import Controls, ranked_rows
from leaderboard.boards.spec import TEXT_SORTS, DirectionSpec, is_verified
from leaderboard.boards.verdicts import rule_text
from leaderboard.csvsafe import safe_cell
from leaderboard.links import absolute_reverse
from scoring import keys as result_keys
from scoring import submission_fields
from scoring.submission_fields import SubmissionField

FORMAT_VERSION = 1


def _number(value):
    return None if value is None or value != value else value


def metric_columns(spec: DirectionSpec) -> list[tuple[str, str]]:
    """(export column, result key) of every metric value in the view, spreads after their metric."""
    columns = []
    for column in spec.sortable:
        columns.append((column.key, column.key))
        spread_key = spec.spread_key(column.key)
        if spread_key:
            columns.append((spread_key, spread_key))
    return columns


def describe_metric(task, key: str) -> dict:
    """The definition of a result key: name, direction, description (spreads of any metric too)."""
    try:
        definition = task.metric(key)
        return {
            "key": key,
            "name": definition.name,
            "higher_is_better": definition.higher_is_better,
            "description": definition.description,
        }
    except KeyError:
        parsed = result_keys.parse_spread(key)
        if parsed:
            base, spread = parsed
            inner = describe_metric(task, base)
            what = "population standard deviation" if spread == "std" else "standard error"
            return {
                "key": key,
                "name": f"{inner['name']} ({spread})",
                "higher_is_better": False,
                "description": f"{what} over seeds of {inner['name']}",
            }
        return {"key": key, "name": key, "higher_is_better": True, "description": ""}


# The row's place on the board, before the method fields.
PLACE_COLUMNS = (
    "rank", "position", "indistinguishable_from_leader", "p_value_vs_leader", "interval_low", "interval_high",
)  # fmt: skip
# Who and when, and the platform's own marks, after the method fields.
ENTRY_COLUMNS = ("team", "submission_id", "submission_url", "submitted_at", "baseline", "verified", "source",
                 "declarations")  # fmt: skip


def field_columns(fields: Iterable[SubmissionField] = submission_fields.FIELDS) -> list[tuple[str, SubmissionField]]:
    """(export column, field) of each exported method field, in declaration order."""
    return [(f.export, f) for f in fields if f.export]


FIXED_COLUMNS = PLACE_COLUMNS + tuple(column for column, _ in field_columns()) + ENTRY_COLUMNS
# The ``source`` of a board row; a published result says "reported in <paper>, Table N".
OURS = "scored here"


@cache
def _field_plan(fields: tuple[SubmissionField, ...]) -> tuple[tuple[str, str, str, Callable, object], ...]:
    """(export column, row column, field name, shown-value function, value when not stored) of each exported field."""
    return tuple(
        (column, f.column_name, f.name, submission_fields.shower(f), submission_fields.shown_value(f, None))
        for column, f in field_columns(fields)
    )


def _field_values(row: dict, fields: tuple[SubmissionField, ...] = submission_fields.FIELDS) -> dict:
    """The exported method fields of a board row: its own columns, else its ``metadata`` (rows built before
    a field existed lack it there: not said)."""
    stored = row.get("metadata") or {}
    out = {}
    for column, row_column, name, shown, unsaid in _field_plan(fields):
        out[column] = shown(row[row_column]) if row_column in row else stored.get(name, unsaid)
    return out


# A private board's extra columns (after the reveal): the entry's public rank and value, and the shake-up.
PRIVATE_COLUMNS = ("public_rank", "shift", "public_value")


def shift(row: dict) -> int | None:
    """Places gained (positive) or lost from the public board to the private one; None if either is unranked."""
    if row.get("public_rank") is None or row.get("rank") is None:
        return None
    return row["public_rank"] - row["rank"]


def export_row(
    spec: DirectionSpec,
    row: dict,
    sort: str,
    metric_keys: list[tuple[str, str]] | None = None,
    private: bool = False,
) -> dict:
    """One row as {column: value}; the rank is the rank of the current sort."""
    rank = row["sort_rank"] if sort and sort not in TEXT_SORTS else row["rank"]
    mark = bool(row["tied_with_leader"])
    # A row without a reach has no stored statistics (no replicates or seed values): it was not tested.
    untested = row.get("reach") is None and row["p_value"] is None and not mark
    out = {
        "rank": rank,
        "position": row["position"],
        # None: unranked, or no stored statistics to test the row with. The p-value is given for the
        # rows within reach of the leader; the rows beyond reach are told apart by the bound alone.
        "indistinguishable_from_leader": None if row["rank"] is None or untested else mark,
        "p_value_vs_leader": _number(row["p_value"]),
        # The 95% interval of the ranking metric (bootstrap percentile, or t-interval over seeds).
        "interval_low": _number(row.get("low")),
        "interval_high": _number(row.get("high")),
        **_field_values(row),
        "team": row["team_name"],
        "submission_id": str(row["submission_id"]),
        "submission_url": absolute_reverse("submissions:detail", row["submission_id"]),
        "submitted_at": row["submitted_at"].isoformat(),
        "baseline": row["is_baseline"],
        "verified": is_verified(row.get("tags", "")),
        "source": OURS,
        "declarations": row["declarations"] or {},
    }
    if private:
        out.update(public_rank=row.get("public_rank"), shift=shift(row), public_value=_number(row.get("public_value")))
    metrics = row["metrics"] or {}
    for name, key in metric_keys or metric_columns(spec):
        out[name] = _number(metrics.get(key))
    return out


def published_export_row(entry, metric_keys: list[tuple[str, str]]) -> dict:
    """A published result as an export row: no rank, no submission, its citation as the paper link."""
    out: dict[str, object] = {column: None for column in FIXED_COLUMNS}
    out.update(
        method=entry.method, team=entry.paper, submission_id="", submission_url="", submitted_at="",
        visibility="public", baseline=False, declarations={}, paper_url=entry.url, code_url="", verified=False,
        source=published.source_label(entry),
    )  # fmt: skip
    for name, key in metric_keys:
        out[name] = _number(entry.metrics.get(key))
    return out


def export_data(
    spec: DirectionSpec, row: dict, sort: str, metric_keys: list[tuple[str, str]], private: bool = False
) -> dict:
    """An export row of a board row or of a published result (``{"published_entry": entry}``)."""
    if "published_entry" in row:
        return published_export_row(row["published_entry"], metric_keys)
    return export_row(spec, row, sort, metric_keys, private)


# On every line, like the scoring version: the truth the row was scored against. Published labels are
# named by their sha256; an organized challenge's hidden truth by its version number only (the hash
# would let anyone confirm a guessed truth).
TRUTH_COLUMNS = ("truth_sha256", "truth_version", "truth_synthetic")


def fixed_columns(private: bool = False) -> tuple[str, ...]:
    return (*FIXED_COLUMNS, *PRIVATE_COLUMNS) if private else FIXED_COLUMNS


def header(spec: DirectionSpec, private: bool = False) -> list[str]:
    return [*fixed_columns(private), *(name for name, _ in metric_columns(spec)), "scoring_version", *TRUTH_COLUMNS]


def truth_of(board: Board | None) -> dict | None:
    """The provenance of a board's truth (``Phase.truth_provenance``), None when unknown."""
    if board is None or board.phase_id is None:
        return None
    return board.phase.truth_provenance


def _declarations_text(declarations: dict) -> str:
    parts = []
    for key in sorted(declarations):
        value = declarations[key]
        if isinstance(value, (list, tuple)):
            value = "+".join(str(v) for v in value)
        parts.append(f"{key}={value}")
    return ";".join(parts)


# Rows per chunk of a streamed export: a few hundred KB at most, whatever the board's size.
CHUNK_ROWS = 500


def csv_chunks(
    spec: DirectionSpec, rows: Iterable[dict], controls: Controls, truth: dict | None = None, private: bool = False
) -> Iterator[str]:
    """The CSV body in chunks: one header line, one line per row; the scoring version on every line."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = header(spec, private)
    fixed = fixed_columns(private)
    writer.writerow(columns)
    yield _drain(buffer)
    metric_keys = metric_columns(spec)
    metric_names = [name for name, _ in metric_keys]
    truth_cells = (
        [truth["sha256"], truth["version"] or "", "yes" if truth["synthetic"] else "no"] if truth else ["", "", ""]
    )
    for i, row in enumerate(rows, start=1):
        data = export_data(spec, row, controls.sort, metric_keys, private)
        data["declarations"] = _declarations_text(data["declarations"])
        # Metric values are floats or None, and the csv module writes a float as
        # its shortest round-trip form (str == repr), so only the fixed columns
        # need converting: the hot loop of a large export.
        writer.writerow(
            [
                *(safe_cell(_csv_value(data.get(c))) for c in fixed),
                *("" if data[name] is None else data[name] for name in metric_names),
                scoring.__version__,
                *truth_cells,
            ]
        )
        if i % CHUNK_ROWS == 0:
            yield _drain(buffer)
    yield _drain(buffer)


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def to_csv(spec: DirectionSpec, rows: Iterable[dict], controls: Controls, truth: dict | None = None) -> str:
    """The whole CSV body as one string (``csv_chunks`` joined)."""
    return "".join(csv_chunks(spec, rows, controls, truth))


def _csv_value(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return value


def _json_document(board: Board, spec: DirectionSpec, rows: list, controls: Controls) -> dict:
    task = spec.task
    return {
        "format_version": FORMAT_VERSION,
        "scoring_version": scoring.__version__,
        "task": {
            "slug": task.slug,
            "family": task.family,
            "dataset": task.dataset_name,
            "split": task.split,
            "citation": task.citation,
            "paper_url": task.paper_url,
        },
        "view": {
            "key": spec.key,
            "label": spec.label,
            "sort": controls.sort_param(controls.sort, controls.reverse) or "rank",
            "private_rows": controls.private,
            "filters": {param: list(values) for param, values in controls.filters},
            "only": list(controls.only),
            # The moment a pinned view (?as_of=) shows, None for the board as it stands.
            "as_of": controls.as_of or None,
        },
        "ranking": {
            "metric": spec.metric,
            "higher_is_better": spec.higher_is_better,
            "tiebreak": [{"metric": key, "higher_is_better": better} for key, better in spec.tiebreak],
            "then": ["earlier submission", "submission id"],
            "significance": spec.significance,
            "significance_rule": rule_text(spec),
        },
        "truth": truth_of(board) if board.pk else None,
        "board_computed_at": board.computed_at.isoformat() if board.pk else None,
        "metrics": [describe_metric(task, key) for _, key in metric_columns(spec)],
        "columns": header(spec, board.part == Board.Part.PRIVATE)[: -1 - len(TRUTH_COLUMNS)],
        # "private" only on a revealed phase's private board (ranked on its private test rows).
        "part": board.part,
        "rows": rows,
    }


_ROWS_MARK = "\x00rows\x00"


def json_chunks(
    board: Board, spec: DirectionSpec, rows: Iterable[dict], controls: Controls, private: bool = False
) -> Iterator[str]:
    """The JSON body (layout in docs/leaderboards.md) in chunks, the same text as ``json.dumps(..., indent=1)``."""
    metric_keys = metric_columns(spec)
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        yield json.dumps(_json_document(board, spec, [], controls), indent=1, default=str)
        return
    # The document around its rows, then each row indented as the encoder would at depth 2.
    head, tail = json.dumps(_json_document(board, spec, [_ROWS_MARK], controls), indent=1, default=str).split(
        json.dumps(_ROWS_MARK)
    )
    parts = [head]
    for i, row in enumerate(itertools.chain([first], rows)):
        text = json.dumps(export_data(spec, row, controls.sort, metric_keys, private), indent=1, default=str)
        parts.append((",\n  " if i else "") + text.replace("\n", "\n  "))
        if len(parts) >= CHUNK_ROWS:
            yield "".join(parts)
            parts = []
    parts.append(tail)
    yield "".join(parts)


def to_json(board: Board, spec: DirectionSpec, rows: Iterable[dict], controls: Controls) -> str:
    """The whole JSON body as one string."""
    return "".join(json_chunks(board, spec, rows, controls))


def export_chunks(
    kind: str,
    board: Board | None,
    spec: DirectionSpec,
    controls: Controls,
    team_ids: list[int],
    rows: Iterable[dict] | None = None,
):
    """The CSV or JSON text of a view (every row, no pagination) as an iterator of chunks.

    Rows come from a server-side cursor (``query.ranked_rows``), so memory does
    not grow with the board and the first bytes leave before the last row is read;
    a pinned view passes its ``rows`` (``leaderboard.boards.pinned.pinned_rows``).
    """
    if rows is None:
        rows = ranked_rows(board, controls, team_ids) if board is not None else iter(())
    if board is not None and board.phase.has_published_results and published.shown(controls):
        # Published results where they would rank, merged into the stream (they are never ranked).
        rows = published.merge_stream(spec, rows, published.entries(spec))
    private = board is not None and board.part == Board.Part.PRIVATE
    if kind == "csv":
        return csv_chunks(spec, rows, controls, truth_of(board), private)
    return json_chunks(board or Board(), spec, rows, controls, private)
