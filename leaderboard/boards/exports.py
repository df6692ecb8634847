"""CSV and JSON exports of a board view: every column of the view, every row, full precision.

The JSON layout is documented in docs/leaderboards.md. Numbers are written as
stored (Python's shortest round-trip representation), so they equal
``python -m scoring score --json`` for the same files exactly.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable

import scoring
from leaderboard.boards import cache, published
from leaderboard.boards.models import Board
from leaderboard.boards.query import Controls, select_rows
from leaderboard.boards.spec import ViewSpec, significance_text
from leaderboard.csvsafe import safe_cell
from leaderboard.links import absolute_reverse
from leaderboard.literature.models import version as literature_version
from scoring import keys as result_keys

FORMAT_VERSION = 1


def _number(value):
    return None if value is None or value != value else value


def metric_columns(spec: ViewSpec) -> list[tuple[str, str]]:
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


FIXED_COLUMNS = (
    "rank", "position", "indistinguishable_from_leader", "p_value_vs_leader", "method", "team", "submission_id",
    "submission_url", "submitted_at", "visibility", "baseline", "uses_external_data", "declarations", "paper_url",
    "code_url", "verified", "verification", "source",
)  # fmt: skip
# The ``source`` of a board row; a published result says "reported in <paper>, Table N".
OURS = "scored here"


def export_row(spec: ViewSpec, row: dict, sort: str, metric_keys: list[tuple[str, str]] | None = None) -> dict:
    """One row as {column: value}; the rank is the rank of the current sort."""
    rank = row["ranks"].get(sort) if sort and sort in (row.get("ranks") or {}) else row["rank"]
    mark = bool(row["tied_with_leader"])
    untested = spec.significance == "bootstrap" and row["p_value"] is None and not mark
    out = {
        "rank": rank,
        "position": row["position"],
        # None: unranked, or the bootstrap against the leader has not run yet.
        "indistinguishable_from_leader": None if row["rank"] is None or untested else mark,
        "p_value_vs_leader": _number(row["p_value"]),
        "method": row["method_name"],
        "team": row["team_name"],
        "submission_id": str(row["submission_id"]),
        "submission_url": absolute_reverse("submissions:detail", row["submission_id"]),
        "submitted_at": row["submitted_at"].isoformat(),
        "visibility": "public" if row["is_public"] else "private",
        "baseline": row["is_baseline"],
        "uses_external_data": row["uses_external_data"],
        "declarations": row["declarations"] or {},
        "paper_url": row["paper_url"],
        "code_url": row["code_url"],
        "verified": bool(row.get("submission__is_verified")),
        # The note and link staff gave ("reproduced from the linked code at commit X").
        "verification": " ".join(
            part for part in (row.get("submission__verification_note"), row.get("submission__verification_url")) if part
        ),
        "source": OURS,
    }
    metrics = row["metrics"] or {}
    for name, key in metric_keys or metric_columns(spec):
        out[name] = _number(metrics.get(key))
    return out


def published_export_row(entry, metric_keys: list[tuple[str, str]]) -> dict:
    """A published result as an export row: no rank, no submission, its citation as the link."""
    out = {column: None for column in FIXED_COLUMNS}
    out.update(
        method=entry.method, team=entry.paper, submission_id="", submission_url="", submitted_at="",
        visibility="public", baseline=False, declarations={}, paper_url=entry.url, code_url="", verified=False,
        verification="", source=published.source_label(entry),
    )  # fmt: skip
    for name, key in metric_keys:
        out[name] = _number(entry.metrics.get(key))
    return out


def with_published(spec: ViewSpec, controls: Controls, rows: list[dict]) -> list[dict]:
    """Board rows with the published results inserted where they would rank (board order only)."""
    if not published.shown(controls):
        return rows
    merged = list(rows)
    placed = sorted(((place, i, e) for i, (place, e) in enumerate(published.export_rows(spec, rows))), reverse=True)
    for place, _, entry in placed:
        merged.insert(place, {"published_entry": entry})
    return merged


def _row_data(spec: ViewSpec, row: dict, sort: str, metric_keys: list[tuple[str, str]]) -> dict:
    if "published_entry" in row:
        return published_export_row(row["published_entry"], metric_keys)
    return export_row(spec, row, sort, metric_keys)


# On every line, like the scoring version: the truth the row was scored against.
TRUTH_COLUMNS = ("truth_sha256", "truth_synthetic")


def header(spec: ViewSpec) -> list[str]:
    return [*FIXED_COLUMNS, *(name for name, _ in metric_columns(spec)), "scoring_version", *TRUTH_COLUMNS]


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


def to_csv(spec: ViewSpec, rows: Iterable[dict], controls: Controls, truth: dict | None = None) -> str:
    """The CSV body: one header line, one line per row; the scoring version on every line."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = header(spec)
    writer.writerow(columns)
    metric_keys = metric_columns(spec)
    metric_names = [name for name, _ in metric_keys]
    truth_cells = [truth["sha256"], "yes" if truth["synthetic"] else "no"] if truth else ["", ""]
    for row in rows:
        data = _row_data(spec, row, controls.sort, metric_keys)
        data["declarations"] = _declarations_text(data["declarations"])
        # Metric values are floats or None, and the csv module writes a float as
        # its shortest round-trip form (str == repr), so only the fixed columns
        # need converting: the hot loop of a 5,000-row export.
        writer.writerow(
            [
                *(safe_cell(_csv_value(data[c])) for c in FIXED_COLUMNS),
                *("" if data[name] is None else data[name] for name in metric_names),
                scoring.__version__,
                *truth_cells,
            ]
        )
    return buffer.getvalue()


def _csv_value(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return value


def to_json(board: Board, spec: ViewSpec, rows: Iterable[dict], controls: Controls) -> str:
    """The JSON body (layout in docs/leaderboards.md)."""
    task = spec.task
    metric_keys = metric_columns(spec)
    document = {
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
        },
        "ranking": {
            "metric": spec.metric,
            "higher_is_better": spec.higher_is_better,
            "tiebreak": [{"metric": key, "higher_is_better": better} for key, better in spec.tiebreak],
            "then": ["earlier submission", "submission id"],
            "significance": spec.significance,
            "significance_rule": significance_text(spec.significance, task),
        },
        "truth": truth_of(board) if board.pk else None,
        "board_computed_at": board.computed_at.isoformat() if board.pk else None,
        "metrics": [describe_metric(task, key) for _, key in metric_columns(spec)],
        "columns": header(spec)[: -1 - len(TRUTH_COLUMNS)],
        "rows": [_row_data(spec, row, controls.sort, metric_keys) for row in rows],
    }
    return json.dumps(document, indent=1, default=str)


# Row fields the exports read (no positions; ranks only under a column sort).
EXPORT_FIELDS = (
    "submission_id", "team_name", "method_name", "submitted_at", "is_public", "is_baseline", "uses_external_data",
    "paper_url", "code_url", "declarations", "rank", "position", "tied_with_leader", "p_value", "metrics",
    "submission__is_verified", "submission__verification_note", "submission__verification_url", "value",
)  # fmt: skip


def export_body(kind: str, board: Board | None, spec: ViewSpec, controls: Controls, team_ids: list[int]) -> str:
    """The CSV or JSON text of a view (every row, no pagination), cached per board version and controls."""

    def build() -> str:
        fields = EXPORT_FIELDS + (("ranks",) if controls.sort else ())
        rows = list(select_rows(board, spec, controls, team_ids).values(*fields)) if board else []
        if board is not None and board.phase.has_published_results:
            rows = with_published(spec, controls, rows)
        if kind == "csv":
            return to_csv(spec, rows, controls, truth_of(board))
        return to_json(board or Board(), spec, rows, controls)

    if board is None:
        return build()
    parts = (
        "export", kind, board.pk, board.version, board.phase.truth_sha256[:12], controls.cache_parts()[:-1],
        literature_version(),
    )  # fmt: skip
    return cache.get_or_compute(cache.key(*parts, controls.private and tuple(team_ids)), build)
