"""Plotly figures built server-side, each with the same numbers as a table.

Every function returns a chart dict ``{"id", "title", "figure", "table",
"note"}``: ``figure`` is ``fig.to_json()`` made safe to embed in a
``<script type="application/json">`` block (static/js/charts.js renders it with
the locally served plotly.js; CSP forbids inline scripts, a data block is not
executed), and ``table`` is ``{"columns": [...], "rows": [[...]]}`` for the
``<details>`` under the chart, so every chart is readable without JavaScript.

This module holds the chart format (``figure``, ``chart``) and the charts of
one submission's page; the boards' charts (``leaderboard.boards.charts``) build
on the same format, so the import points from boards to submissions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

COLORS = ("#3366aa", "#dd7733", "#339955", "#bb4444", "#8866bb", "#886655", "#cc66aa", "#777777", "#aaaa33", "#33aacc")
LAYOUT = {
    "template": "none",
    "font": {"family": "system-ui, sans-serif", "size": 13},
    "margin": {"l": 60, "r": 20, "t": 50, "b": 80},
    "colorway": list(COLORS),
    # Below the x-axis title, not on it.
    "legend": {"orientation": "h", "y": -0.3, "yanchor": "top"},
    "hovermode": "closest",
}


def _json(fig: go.Figure) -> str:
    # Escaping <, > and & keeps "</script>" in a method name from closing the data block.
    return fig.to_json().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _fmt(value, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def figure(data) -> go.Figure:
    """A figure with the site's layout; per-chart settings are merged on top of it."""
    return go.Figure(data, layout=LAYOUT)


def chart(chart_id: str, title: str, fig: go.Figure, columns: Sequence[str], rows, note: str = "") -> dict:
    fig.update_layout(title={"text": title, "x": 0})
    return {
        "id": chart_id,
        "title": title,
        "figure": _json(fig),
        "table": {"columns": list(columns), "rows": [[_fmt(v) for v in row] for row in rows]},
        "note": note,
    }


# --- submission charts ---------------------------------------------------------------------


def _confusion(chart_id: str, title: str, cm: dict) -> dict:
    matrix = cm["matrix"]
    fig = figure(
        go.Heatmap(
            z=matrix,
            x=cm["predicted_labels"],
            y=cm["true_labels"],
            colorscale="Blues",
            colorbar={"title": "count"},
            hovertemplate="gold %{y}<br>predicted %{x}<br>%{z}<extra></extra>",
        )
    )
    n = len(cm["true_labels"])
    fig.update_layout(
        xaxis={"title": "predicted", "side": "bottom"},
        yaxis={"title": "gold", "autorange": "reversed"},
        height=max(380, 26 * n + 160),
        margin={"l": 160, "b": 140},
    )
    if n <= 12:
        fig.update_traces(texttemplate="%{z}")
    rows = [[label_, *values] for label_, values in zip(cm["true_labels"], matrix, strict=True)]
    return chart(chart_id, title, fig, ["gold \\ predicted", *cm["predicted_labels"]], rows)


def _per_class_bars(chart_id: str, title: str, per_class: Sequence[dict]) -> dict | None:
    if not per_class:
        return None
    names = [str(r["class"]) for r in per_class]
    stats = ("precision", "recall", "f1")
    fig = figure([go.Bar(name=stat, x=names, y=[r.get(stat) for r in per_class]) for stat in stats])
    fig.update_layout(barmode="group", yaxis={"range": [0, 1]})
    rows = [[r["class"], *(r.get(stat) for stat in stats), r.get("support")] for r in per_class]
    return chart(chart_id, title, fig, ["class", *stats, "support"], rows)


def _curves(chart_id: str, title: str, curves: Sequence[dict], x: str, y: str, diagonal: bool) -> dict | None:
    if not curves:
        return None
    traces = []
    for curve in curves:
        name = f"seed {curve['seed']}" + (f", {curve['class']}" if "class" in curve else "")
        traces.append(go.Scatter(x=curve[x], y=curve[y], mode="lines", name=name))
    if diagonal:
        traces.append(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance", line={"dash": "dot"}))
    fig = figure(traces)
    fig.update_layout(xaxis={"title": x, "range": [0, 1]}, yaxis={"title": y, "range": [0, 1.02]})
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


def _per_context(contexts: Sequence[dict], truncated: bool) -> dict | None:
    if not contexts:
        return None
    fig = figure(
        go.Bar(
            x=[c["context"] for c in contexts],
            y=[c["auroc"] for c in contexts],
            customdata=[[c["n_rows"], c["n_positive"]] for c in contexts],
            hovertemplate="%{x}<br>AUROC %{y:.4f}<br>%{customdata[0]} rows, %{customdata[1]} positive<extra></extra>",
        )
    )
    fig.update_layout(yaxis={"title": "AUROC", "range": [0, 1]}, xaxis={"title": "context"}, showlegend=False)
    rows = [[c["context"], c["auroc"], c["n_splits"], c["n_rows"], c["n_positive"]] for c in contexts]
    note = "Only the first contexts by name are listed." if truncated else ""
    return chart(
        "per-context",
        "AUROC per context (mean over splits)",
        fig,
        ["context", "AUROC", "splits", "rows", "positives"],
        rows,
        note=note,
    )


def _seed_values(report: dict, keys: Sequence[str]) -> dict | None:
    seeds = report.get("seeds") or []
    if len(seeds) < 2:
        return None
    keys = [k for k in keys if any(s.get(k) is not None for s in seeds)]
    fig = figure([go.Bar(name=k, x=[f"seed {s['seed']}" for s in seeds], y=[s.get(k) for s in seeds]) for k in keys])
    fig.update_layout(barmode="group")
    rows = [[s["seed"], s.get("n"), *(s.get(k) for k in keys)] for s in seeds]
    return chart("seed-values", "Metrics per seed", fig, ["seed", "test rows", *keys], rows)


def _regression_scatter(scatter: Sequence[dict]) -> dict | None:
    if not scatter:
        return None
    fig = figure([go.Scatter(x=s["y_true"], y=s["y_pred"], mode="markers", name=f"seed {s['seed']}") for s in scatter])
    fig.update_layout(xaxis={"title": "true"}, yaxis={"title": "predicted"})
    rows = [[s["seed"], len(s["y_true"])] for s in scatter]
    return chart("regression", "Predicted vs true (thinned sample)", fig, ["seed", "points"], rows)


def submission_charts(submission) -> list[dict]:
    """Charts for one scored submission: [{"id", "title", "figure" (JSON str), "table", "note"}].

    Built from ``submission.report`` as ``scoring`` wrote it; an unknown or
    empty report gives no charts.
    """
    report = submission.report or {}
    if not isinstance(report, dict) or not report:
        return []
    charts: list[dict | None] = []
    if "aware" in report and "agnostic" in report:  # MUDI
        for setting, name in (("aware", "direction-aware"), ("agnostic", "direction-agnostic")):
            part = report[setting]
            charts.append(_confusion(f"confusion-{setting}", f"Confusion matrix ({name})", part["confusion_matrix"]))
            charts.append(
                _per_class_bars(f"per-class-{setting}", f"Per-class precision, recall, F1 ({name})", part["per_class"])
            )
        return [c for c in charts if c]
    if "confusion_matrix" in report:
        charts.append(_confusion("confusion", "Confusion matrix (summed over seeds)", report["confusion_matrix"]))
    if report.get("per_class"):
        charts.append(
            _per_class_bars("per-class", "Per-class precision, recall, F1 (mean over seeds)", report["per_class"])
        )
    charts.append(_curves("roc", "ROC curves", report.get("roc") or [], "fpr", "tpr", diagonal=True))
    charts.append(
        _curves("pr", "Precision-recall curves", report.get("pr") or [], "recall", "precision", diagonal=False)
    )
    if report.get("per_context"):
        charts.append(_per_context(report["per_context"], bool(report.get("per_context_truncated"))))
    if report.get("scatter"):
        charts.append(_regression_scatter(report["scatter"]))
    charts.append(
        _seed_values(report, ("balanced_accuracy", "balanced_f1", "auroc", "macro_f1", "aupr", "f1", "mse", "mae"))
    )
    return [c for c in charts if c]
