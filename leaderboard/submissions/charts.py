"""Plotly figures built server-side, each with the same numbers as a table.

Every function returns a chart dict ``{"id", "title", "figure", "table",
"note"}``: ``figure`` is ``fig.to_json()`` made safe to embed in a
``<script type="application/json">`` block (static/js/charts.js renders it with
the locally served plotly.js; CSP forbids inline scripts, a data block is not
executed), and ``table`` is ``{"columns": [...], "rows": [[...]]}`` for the
``<details>`` under the chart, so every chart is readable without JavaScript.

Figures are plain data (``trace``, ``Figure``), serialised by ``plotly.io``:
plotly's graph objects validate every property as it is set, which cost ~50 ms
of a board page built cold. The tests validate every figure they build with
plotly's own validator instead (tests/boards/test_chart_figures.py), so a
misspelt property still fails, in CI rather than per request.

This module holds the chart format (``figure``, ``chart``) and the charts of
one submission's page; the boards' charts (``leaderboard.boards.charts``) build
on the same format, so the import points from boards to submissions.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

import plotly.colors
import plotly.io
from plotly.subplots import make_subplots

from leaderboard.formatting import metric_text
from leaderboard.kinds.registry import site_kind

COLORS = ("#3366aa", "#dd7733", "#339955", "#bb4444", "#8866bb", "#886655", "#cc66aa", "#777777", "#aaaa33", "#33aacc")
# Confusion matrices and per-class bars show at most this many classes (the most frequent); the table has all.
MAX_CLASSES_PLOTTED = 20
# Longer labels are cut in axes and legends (the hover text and the table keep them whole).
MAX_LABEL = 28
# A metric in [0, 1] is drawn on it, with headroom so a marker or bar at 1 is not cut at the frame.
UNIT_RANGE = [0, 1.02]
# A heatmap row (one class) this tall keeps its label readable; the chart grows and the page scrolls.
HEATMAP_ROW_PX = 20
LAYOUT: dict[str, Any] = {
    # plotly.js takes a template as an object: the "none" template as plotly resolves it.
    "template": plotly.io.templates["none"].to_plotly_json(),
    "font": {"family": "system-ui, sans-serif", "size": 13},
    # Room above the plot for the title and the mode bar; automargin grows the sides for long labels.
    "margin": {"l": 60, "r": 20, "t": 70, "b": 60},
    "colorway": list(COLORS),
    # Horizontal, above the plot area and under the title: below it, a fixed paper offset landed on
    # the x-axis title whenever tick labels were tall. static/js/charts.js adds a top-margin line per
    # row of entries, so the legend never reaches the title either.
    "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"},
    # Whole numbers as written ("54,032"), never an SI suffix ("54.032k").
    "xaxis": {"automargin": True, "exponentformat": "none", "separatethousands": True},
    "yaxis": {"automargin": True, "exponentformat": "none", "separatethousands": True},
    "hovermode": "closest",
}


def trace(kind: str, **properties: Any) -> dict[str, Any]:
    """One Plotly trace as plain data: ``{"type": kind, ...}``; a property given as None is left out.

    A named ``colorscale`` is expanded by plotly (plotly.js's own scales of the
    same names differ slightly).
    """
    out: dict[str, Any] = {"type": kind}
    out.update((key, value) for key, value in properties.items() if value is not None)
    if isinstance(out.get("colorscale"), str):
        out["colorscale"] = plotly.colors.get_colorscale(out["colorscale"])
    return out


def _merge(target: dict[str, Any], update: dict[str, Any]) -> None:
    """Plotly's update rule: nested dicts merge, anything else (lists included) replaces."""
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value) if isinstance(value, dict) else value


def _title_objects(value: Any) -> Any:
    """Every ``title`` given as text becomes ``{"text": ...}``, the only form plotly.js 3 reads."""
    if isinstance(value, dict):
        return {
            key: {"text": item} if key == "title" and isinstance(item, str) else _title_objects(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_title_objects(item) for item in value]
    return value


class Figure:
    """A Plotly figure as plain data: traces, and the site's layout with per-chart settings merged on top."""

    def __init__(self, data: dict[str, Any] | Iterable[dict[str, Any]], layout: dict[str, Any] | None = None):
        self.data: list[dict[str, Any]] = [data] if isinstance(data, dict) else list(data)
        self.layout: dict[str, Any] = copy.deepcopy(LAYOUT)
        if layout is not None:
            _merge(self.layout, layout)

    def update_layout(self, **properties: Any) -> None:
        _merge(self.layout, properties)

    def update_traces(self, **properties: Any) -> None:
        for one in self.data:
            _merge(one, properties)

    def to_plotly_json(self) -> dict[str, Any]:
        return _title_objects({"data": self.data, "layout": self.layout})


def _json(fig: Figure) -> str:
    text = plotly.io.to_json(fig.to_plotly_json(), validate=False)
    # Escaping <, > and & keeps "</script>" in a method name from closing the data block.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _fmt(value: object) -> str:
    """A chart table cell: metrics as the pages write them, labels and counts as they are."""
    return metric_text(value) if value is None or isinstance(value, float) else str(value)


def figure(data: dict[str, Any] | Iterable[dict[str, Any]]) -> Figure:
    """A figure with the site's layout; per-chart settings are merged on top of it."""
    return Figure(data)


def short(text, limit: int = MAX_LABEL) -> str:
    """A label cut to ``limit`` characters for an axis or legend."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def value_axis(values: Iterable[float | None], **settings: Any) -> dict[str, Any]:
    """A metric axis: on UNIT_RANGE when every value lies in [0, 1] (a lone point got 0 to 1.2), else from 0."""
    given = [v for v in values if v is not None]
    if given and all(0 <= v <= 1 for v in given):
        return {"range": UNIT_RANGE, **settings}
    return {"rangemode": "tozero", **settings}


def category_axis(names: Sequence[str], limit: int = 18, **settings: Any) -> dict[str, Any]:
    """A categorical axis placed on the full names (hover shows them whole) and labelled with them cut.

    Cutting the values themselves could merge two long classes into one bar; the
    tick text is only what is written on the axis. automargin sizes the margin
    to the labels, so none is clipped.
    """
    names = [str(n) for n in names]
    return {
        "tickmode": "array",
        "tickvals": names,
        "ticktext": [short(n, limit) for n in names],
        "automargin": True,
        **settings,
    }


def chart(chart_id: str, title: str, fig: Figure, columns: Sequence[str], rows, note: str = "") -> dict:
    # Left-aligned at the top, clear of the mode bar (static/js/charts.js wraps long titles on phones).
    fig.update_layout(title={"text": title, "x": 0, "xanchor": "left", "y": 0.98, "yanchor": "top"})
    return {
        "id": chart_id,
        "title": title,
        "figure": _json(fig),
        "table": {"columns": list(columns), "rows": [[_fmt(v) for v in row] for row in rows]},
        "note": note,
    }


# --- submission charts ---------------------------------------------------------------------


def _top_classes(cm: dict) -> tuple[list[int], list[int]]:
    """Row and column indices of the MAX_CLASSES_PLOTTED most frequent gold classes (all when fewer)."""
    matrix, true_labels, predicted = cm["matrix"], list(cm["true_labels"]), list(cm["predicted_labels"])
    if len(true_labels) <= MAX_CLASSES_PLOTTED:
        return list(range(len(true_labels))), list(range(len(predicted)))
    support = [sum(row) for row in matrix]
    rows = sorted(sorted(range(len(true_labels)), key=lambda i: -support[i])[:MAX_CLASSES_PLOTTED])
    kept = {str(true_labels[i]) for i in rows}
    cols = [j for j, name in enumerate(predicted) if str(name) in kept]
    return rows, cols


def confusion(chart_id: str, title: str, cm: dict) -> dict:
    matrix = cm["matrix"]
    rows_kept, cols_kept = _top_classes(cm)
    n_all = len(cm["true_labels"])
    true_names = [str(cm["true_labels"][i]) for i in rows_kept]
    predicted_names = [str(cm["predicted_labels"][j]) for j in cols_kept]
    fig = figure(
        trace(
            "heatmap",
            z=[[matrix[i][j] for j in cols_kept] for i in rows_kept],
            x=predicted_names,
            y=true_names,
            colorscale="Blues",
            colorbar={"title": "count", "tickformat": ",d"},
            hovertemplate="gold %{y}<br>predicted %{x}<br>%{z:,d}<extra></extra>",
        )
    )
    n = len(rows_kept)
    fig.update_layout(
        xaxis=category_axis(predicted_names, title="predicted", side="bottom", tickangle=-45),
        yaxis=category_axis(true_names, title="gold", autorange="reversed"),
        height=max(380, 22 * n + 200),
    )
    if n <= 12:
        fig.update_traces(texttemplate="%{z:,d}")
    note = ""
    if n < n_all:
        note = (
            f"The {n} most frequent of {n_all} gold classes are plotted (rows and the same predicted columns); "
            "the table below has every class."
        )
    rows = [[label_, *values] for label_, values in zip(cm["true_labels"], matrix, strict=True)]
    return chart(chart_id, title, fig, ["gold \\ predicted", *cm["predicted_labels"]], rows, note=note)


def per_class_bars(chart_id: str, title: str, per_class: Sequence[dict]) -> dict | None:
    if not per_class:
        return None
    plotted = list(per_class)
    note = ""
    if len(plotted) > MAX_CLASSES_PLOTTED:
        plotted = sorted(plotted, key=lambda r: -(r.get("support") or 0))[:MAX_CLASSES_PLOTTED]
        note = f"The {len(plotted)} most frequent of {len(per_class)} classes are plotted; the table has every class."
    names = [str(r["class"]) for r in plotted]
    stats = ("precision", "recall", "f1")
    fig = figure(
        [
            trace(
                "bar",
                name=stat,
                x=names,
                y=[r.get(stat) for r in plotted],
                hovertemplate=f"%{{x}}<br>{stat} %{{y:.4f}}",
            )
            for stat in stats
        ]
    )
    fig.update_layout(
        barmode="group", yaxis={"title": "value", "range": UNIT_RANGE}, xaxis=category_axis(names, tickangle=-45)
    )
    rows = [[r["class"], *(r.get(stat) for stat in stats), r.get("support")] for r in per_class]
    return chart(chart_id, title, fig, ["class", *stats, "support"], rows, note=note)


def _curves(chart_id: str, title: str, curves: Sequence[dict], x: str, y: str, diagonal: bool) -> dict | None:
    if not curves:
        return None
    traces = []
    for curve in curves:
        name = f"seed {curve['seed']}" + (f", {curve['class']}" if "class" in curve else "")
        traces.append(trace("scatter", x=curve[x], y=curve[y], mode="lines", name=name))
    if diagonal:
        traces.append(trace("scatter", x=[0, 1], y=[0, 1], mode="lines", name="chance", line={"dash": "dot"}))
    fig = figure(traces)
    fig.update_layout(xaxis={"title": x, "range": UNIT_RANGE}, yaxis={"title": y, "range": UNIT_RANGE})
    rows = [
        [
            f"seed {c['seed']}" + (f", {c['class']}" if "class" in c else ""),
            len(c[x]),
            c[x][len(c[x]) // 2],
            c[y][len(c[y]) // 2],
        ]
        for c in curves
    ]
    return chart(
        chart_id,
        title,
        fig,
        ["curve", "points", f"{x} (middle point)", f"{y} (middle point)"],
        rows,
        note="Curves are thinned to at most 200 points; the table lists each curve's size and middle point.",
    )


def _calibration(curves: Sequence[dict]) -> dict | None:
    """The reliability diagram: observed fraction of positives against the mean predicted probability."""
    if not curves:
        return None
    traces = [
        trace(
            "scatter",
            x=c["mean_predicted"],
            y=c["fraction_positive"],
            mode="lines+markers",
            name=f"seed {c['seed']} (Brier {metric_text(c['brier'])})",
            customdata=c["count"],
            hovertemplate="mean predicted %{x:.3f}<br>fraction positive %{y:.3f}<br>%{customdata} rows<extra></extra>",
        )
        for c in curves
    ]
    traces.append(trace("scatter", x=[0, 1], y=[0, 1], mode="lines", name="perfectly calibrated", line={"dash": "dot"}))
    fig = figure(traces)
    fig.update_layout(
        xaxis={"title": "mean predicted probability", "range": UNIT_RANGE},
        yaxis={"title": "fraction of positives", "range": UNIT_RANGE},
    )
    rows = [
        [f"seed {c['seed']}", f"{mean:.3f}", f"{fraction:.3f}", count, c["brier"]]
        for c in curves
        for mean, fraction, count in zip(c["mean_predicted"], c["fraction_positive"], c["count"], strict=True)
    ]
    return chart(
        "calibration",
        "Calibration (reliability) of the predicted probabilities",
        fig,
        ["seed", "mean predicted", "fraction positive", "rows in bin", "Brier score"],
        rows,
        note=(
            "Ten equal-width probability bins (scikit-learn's calibration_curve); empty bins are left out. "
            "A calibrated model lies on the diagonal. The Brier score (lower is better) is not ranked."
        ),
    )


def _seed_values(report: dict, keys: Sequence[str], names: dict[str, str] | None = None) -> dict | None:
    """One small panel per metric (its own y-axis: 0.017 MSE is not drawn beside 0.5 accuracy)."""
    seeds = report.get("seeds") or []
    if len(seeds) < 2:
        return None
    keys = [k for k in keys if any(s.get(k) is not None for s in seeds)]
    if not keys:
        return None
    names = names or {}
    titles = [names.get(k, k.replace("_", " ")) for k in keys]
    # plotly lays out the grid (axis domains, anchors, the panel titles); the traces are placed on it by axis name.
    grid = make_subplots(rows=len(keys), cols=1, shared_xaxes=True, subplot_titles=titles, vertical_spacing=0.12)
    layout = grid.layout.to_plotly_json()
    layout.pop("template", None)
    x = [f"seed {s['seed']}" for s in seeds]
    traces = [
        trace(
            "bar",
            name=title,
            x=x,
            y=[s.get(key) for s in seeds],
            marker={"color": COLORS[i - 1]},
            xaxis="x" if i == 1 else f"x{i}",
            yaxis="y" if i == 1 else f"y{i}",
        )
        for i, (key, title) in enumerate(zip(keys, titles, strict=True), start=1)
    ]
    fig = Figure(traces, layout)
    fig.update_layout(showlegend=False, height=130 + 150 * len(keys))
    rows = [[s["seed"], s.get("n"), *(s.get(k) for k in keys)] for s in seeds]
    return chart("seed-values", "Metrics per seed", fig, ["seed", "test rows", *titles], rows)


def submission_charts(submission) -> list[dict]:
    """Charts for one scored submission: [{"id", "title", "figure" (JSON str), "table", "note"}].

    Built from ``submission.report`` as ``scoring`` wrote it: the generic charts
    of whatever the report holds (confusion matrix, per-class bars, ROC and PR
    curves, calibration), then the kind's own (``SiteKind.submission_charts``),
    then the headline metrics per seed. An unknown or empty report gives no charts.
    """
    report = submission.report or {}
    if not isinstance(report, dict) or not report:
        return []
    task = submission.phase.task
    charts: list[dict | None] = []
    if "confusion_matrix" in report:
        charts.append(confusion("confusion", "Confusion matrix (summed over seeds)", report["confusion_matrix"]))
    if report.get("per_class"):
        charts.append(
            per_class_bars("per-class", "Per-class precision, recall, F1 (mean over seeds)", report["per_class"])
        )
    charts.append(_curves("roc", "ROC curves", report.get("roc") or [], "fpr", "tpr", diagonal=True))
    charts.append(
        _curves("pr", "Precision-recall curves", report.get("pr") or [], "recall", "precision", diagonal=False)
    )
    charts.append(_calibration(report.get("calibration") or []))
    charts += site_kind(task).submission_charts(task, report)
    charts.append(_seed_values(report, [m.key for m in task.metrics], {m.key: m.name for m in task.metrics}))
    return [c for c in charts if c]
