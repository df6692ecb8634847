"""Paper-ready tables of a board view: LaTeX (booktabs), Markdown and CSV.

A table is the top N rows of a view (the board now, or pinned with ``?as_of=``)
with the published results placed where they would rank, built from the rows as
the board page presents them (``present.present_row``, ``published.row_for``):
every number is the page's text, to the digit shown, and a change to how the
page writes a value or a mark reaches the tables with it. The best value of each
column is bold (every row that shows it), entries the board marks as not
distinguishable from the leader carry a dagger, and the caption states the
metric, its setting, the direction, the significance rule and the permalink of
the pinned view with its digest (``leaderboard.boards.pinned``).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable
from dataclasses import dataclass

from leaderboard.boards import published
from leaderboard.boards.present import present_row
from leaderboard.boards.spec import DirectionSpec, directions_for
from leaderboard.boards.verdicts import rule_text
from leaderboard.csvsafe import safe_cell
from leaderboard.formatting import MISSING

# Rows a table shows unless ``top`` says otherwise, and at most.
DEFAULT_TOP = 10
MAX_TOP = 100
FORMATS = ("tex", "md", "csv")
OURS = "this board"


def top_from(raw: str | None) -> int:
    """``?top=`` as a number of rows: 1 to ``MAX_TOP``; ``ValueError`` with the reason otherwise."""
    if raw is None or raw == "":
        return DEFAULT_TOP
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"top={raw[:20]!r} is not a whole number: give 1 to {MAX_TOP}.") from None
    if not 1 <= n <= MAX_TOP:
        raise ValueError(f"top={n} is out of range: give 1 to {MAX_TOP}.")
    return n


@dataclass(frozen=True)
class Cell:
    text: str  # as the board page shows it
    bold: bool = False


@dataclass(frozen=True)
class TableRow:
    rank: str  # "" for a published result
    method: str
    team: str  # the team, or the paper of a published result
    source: str  # OURS, or "reported in <paper>, Table N"
    values: tuple[Cell, ...]  # one per metric column, the ranking metric first
    spread: str  # of the ranking metric, "" when the task has none
    indistinguishable: bool  # not distinguishable from the leader (never the leader itself)


@dataclass(frozen=True)
class PaperTable:
    title: str
    columns: tuple[str, ...]  # metric column labels, the ranking metric first
    spread_name: str  # "std", "stderr" or ""
    rows: tuple[TableRow, ...]
    caption: str
    label: str  # LaTeX \label


def _value(row: dict, index: int) -> str:
    return row["primary"] if index == 0 else row["cells"][index - 1]


def build(
    spec: DirectionSpec,
    rows: Iterable[dict],
    *,
    controls,
    top: int,
    title: str,
    total: int,
    moment: dt.datetime | None,
    permalink: str,
    digest: str,
    with_published: bool,
) -> PaperTable:
    """The table of the first ``top`` ranked ``rows`` of a view (dicts as the board query yields them)."""
    shown = [r for _, r in zip(range(top), rows, strict=False)]
    stream: Iterable[dict] = shown
    if with_published and published.shown(controls):
        stream = published.merge_stream(spec, shown, published.entries(spec))
    presented = []
    for item in stream:
        if "published_entry" in item:
            entry = item["published_entry"]
            presented.append(
                ({**published.row_for(spec, entry), "metrics": entry.metrics}, published.source_label(entry))
            )
        else:
            presented.append((present_row(spec, item, controls.sort), OURS))
    metrics = spec.columns if controls.shows("metrics") else spec.columns[:1]
    best = {}
    for i, column in enumerate(metrics):
        values = [(r["metrics"] or {}).get(column.key) for r, _ in presented]
        numbers = [v for v in values if v is not None and v == v]
        if numbers:
            top_value = max(numbers) if column.higher_is_better else min(numbers)
            best[i] = next(_value(r, i) for (r, _), v in zip(presented, values, strict=True) if v == top_value)
    table_rows = []
    for row, source in presented:
        is_ours = source == OURS
        cells = tuple(
            Cell(_value(row, i), bold=_value(row, i) == best.get(i) and _value(row, i) != MISSING)
            for i in range(len(metrics))
        )
        table_rows.append(
            TableRow(
                rank=str(row["shown_rank"]) if is_ours and row["shown_rank"] is not None else "",
                method=row["method_name"],
                team=row["team_name"] if is_ours else row["paper"],
                source=source,
                values=cells,
                spread=row.get("primary_spread", "") if is_ours else "",
                indistinguishable=is_ours and bool(row["tied_with_leader"]),
            )
        )
    caption = _caption(spec, metrics, top, total, moment, permalink, digest, controls)
    return PaperTable(
        title=title,
        columns=tuple(c.label for c in metrics),
        spread_name=spec.spread or "",
        rows=tuple(table_rows),
        caption=caption,
        label=f"tab:ddi-{spec.task.slug}-{spec.key}",
    )


def _caption(spec, metrics, top, total, moment, permalink, digest, controls) -> str:
    task = spec.task
    metric = task.metric(spec.metric).name
    setting = f", {spec.label.lower()} setting" if len(directions_for(task)) > 1 else ""
    direction = "higher" if spec.higher_is_better else "lower"
    spread = {"std": "standard deviation", "stderr": "standard error"}.get(spec.spread or "", "")
    parts = [
        f"{task.dataset_name} ({task.split}){setting}: the top {min(top, total)} of {total} entries ranked by "
        f"{metric} ({direction} is better)"
        + (f", mean ± {spread} over {len(task.seeds)} seeds" if spread else "")
        + ".",
        "Bold: the best value of each column.",
    ]
    parts.append(rule_text(spec).replace("≈", "†", 1))
    if published.shown(controls) and published.entries(spec):
        parts.append(
            "Rows without a rank are results reported in the benchmark's papers, placed where they would rank."
        )
    if controls.filters:
        parts.append("Filtered: " + "; ".join(f"{p}={'+'.join(v)}" for p, v in controls.filters) + ".")
    if moment is not None:
        parts.append(
            f"Board as of {moment.astimezone(dt.UTC):%Y-%m-%d %H:%M:%S} UTC: {permalink} (rows sha256:{digest})."
        )
    return " ".join(parts)


# --- LaTeX -----------------------------------------------------------------------------------------

_LATEX_SPECIAL = {
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
    "±": r"$\pm$", "†": r"$^\dagger$", "≈": r"$\approx$", "—": "--",
}  # fmt: skip


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _url(url: str) -> str:
    """A URL inside \\url{}: only the characters \\url cannot take bare are escaped."""
    return url.replace("\\", "").replace("%", r"\%").replace("#", r"\#").replace("{", "").replace("}", "")


def to_latex(table: PaperTable) -> str:
    """A ``table`` float with a booktabs ``tabular`` (needs \\usepackage{booktabs} and {url})."""
    spread = f" $\\pm$ {table.spread_name}" if table.spread_name else ""
    header = ["Rank", "Method", "Team / source", f"{latex_escape(table.columns[0])}{spread}"]
    header += [latex_escape(c) for c in table.columns[1:]]
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{rll" + "r" * len(table.columns) + "}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
    ]
    for row in table.rows:
        cells = []
        for i, cell in enumerate(row.values):
            text = latex_escape(cell.text)
            if i == 0 and row.spread:
                text += f" $\\pm$ {latex_escape(row.spread)}"
            if cell.bold:
                text = f"\\textbf{{{text}}}"
            if i == 0 and row.indistinguishable:
                text += r"$^\dagger$"
            cells.append(text)
        who = latex_escape(row.team if row.source == OURS else row.source)
        lines.append(" & ".join([row.rank or "--", latex_escape(row.method), who, *cells]) + r" \\")
    caption = latex_escape(table.caption)
    for url in _urls(table.caption):
        caption = caption.replace(latex_escape(url), f"\\url{{{_url(url)}}}")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        f"\\caption{{{caption}}}",
        f"\\label{{{table.label}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def _urls(text: str) -> list[str]:
    return [word.rstrip(".,;)") for word in text.split() if word.startswith(("http://", "https://"))]


# --- Markdown --------------------------------------------------------------------------------------


def markdown_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def to_markdown(table: PaperTable) -> str:
    """A pipe table (GitHub-flavoured Markdown) with the caption as the paragraph under it."""
    spread = f" ± {table.spread_name}" if table.spread_name else ""
    header = ["Rank", "Method", "Team / source", f"{markdown_escape(table.columns[0])}{spread}"]
    header += [markdown_escape(c) for c in table.columns[1:]]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(["---:", ":---", ":---"] + ["---:"] * len(table.columns)) + "|",
    ]
    for row in table.rows:
        cells = []
        for i, cell in enumerate(row.values):
            text = cell.text + (f" ± {row.spread}" if i == 0 and row.spread else "")
            if cell.bold:
                text = f"**{text}**"
            if i == 0 and row.indistinguishable:
                text += " †"
            cells.append(text)
        who = markdown_escape(row.team if row.source == OURS else row.source)
        lines.append("| " + " | ".join([row.rank or "—", markdown_escape(row.method), who, *cells]) + " |")
    caption = markdown_escape(table.caption)
    for url in _urls(table.caption):  # links as autolinks, unescaped, so they stay links
        caption = caption.replace(markdown_escape(url), f"<{url}>")
    return "\n".join(lines) + "\n\n" + caption + "\n"


# --- CSV -------------------------------------------------------------------------------------------


def to_csv(table: PaperTable) -> str:
    """The table's cells as shown, one line per row; the caption has no place in CSV (see the Link header)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    spread_column = [f"{table.columns[0]} {table.spread_name}"] if table.spread_name else []
    writer.writerow(
        ["rank", "method", "team", "source", table.columns[0], *spread_column, *table.columns[1:],
         "best_in_column", "indistinguishable_from_leader"]
    )  # fmt: skip
    for row in table.rows:
        spread = [row.spread] if table.spread_name else []
        best = ";".join(table.columns[i] for i, cell in enumerate(row.values) if cell.bold)
        writer.writerow(
            [row.rank, _csv_text(row.method), _csv_text(row.team), row.source, row.values[0].text, *spread,
             *(cell.text for cell in row.values[1:]), best, "true" if row.indistinguishable else "false"]
        )  # fmt: skip
    return buffer.getvalue()


def _csv_text(text: str) -> str:
    return safe_cell(text)


RENDERERS = {"tex": to_latex, "md": to_markdown, "csv": to_csv}
CONTENT_TYPES = {
    "tex": "text/x-tex; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
}
