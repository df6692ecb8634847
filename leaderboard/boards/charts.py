"""Plotly figures built server-side, each with the same numbers as a table.

Every function returns a chart dict ``{"id", "title", "figure", "table",
"note"}``: ``figure`` is ``fig.to_json()`` made safe to embed in a
``<script type="application/json">`` block (static/js/charts.js renders it with
the locally served plotly.js; CSP forbids inline scripts, a data block is not
executed), and ``table`` is ``{"columns": [...], "rows": [[...]]}`` for the
``<details>`` under the chart, so every chart is readable without JavaScript.

Building a figure costs milliseconds (plotly validates every property), so
board charts are cached per board version (``leaderboard.boards.cache``).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from leaderboard.formatting import metric_text

# Bars for more methods than this are unreadable; the table holds the rest.
TOP_METHODS = 8
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


def _fmt(value) -> str:
    """A chart table cell: metrics as the pages write them, labels and counts as they are."""
    return metric_text(value) if value is None or isinstance(value, float) else str(value)


def _figure(data) -> go.Figure:
    """A figure with the site's layout; per-chart settings are merged on top of it."""
    return go.Figure(data, layout=LAYOUT)


def _chart(chart_id: str, title: str, fig: go.Figure, columns: Sequence[str], rows, note: str = "") -> dict:
    fig.update_layout(title={"text": title, "x": 0})
    return {
        "id": chart_id,
        "title": title,
        "figure": _json(fig),
        "table": {"columns": list(columns), "rows": [[_fmt(v) for v in row] for row in rows]},
        "note": note,
    }


def label(row: dict) -> str:
    """ "Method (Team)": the name a chart shows for a board row."""
    return f"{row['method_name']} ({row['team_name']})"


# --- board charts ---------------------------------------------------------------------------


def class_f1_chart(class_keys: Sequence[tuple[str, str]], rows: Sequence[dict], setting: str = "") -> dict | None:
    """Per-class F1 of the top methods: grouped bars up to 10 classes, a heatmap beyond."""
    rows = [r for r in rows[:TOP_METHODS] if any(r["metrics"].get(key) is not None for _, key in class_keys)]
    if not class_keys or not rows:
        return None
    names = [name for name, _ in class_keys]
    title = f"Per-class F1 of the top {len(rows)} methods{setting}"
    table_rows = [[label(r), *(r["metrics"].get(key) for _, key in class_keys)] for r in rows]
    if len(class_keys) <= 10:
        fig = _figure(
            [go.Bar(name=label(r), x=names, y=[r["metrics"].get(key) for _, key in class_keys]) for r in rows]
        )
        fig.update_layout(barmode="group", yaxis={"title": "F1", "range": [0, 1]})
    else:
        fig = _figure(
            go.Heatmap(
                z=[[r["metrics"].get(key) for _, key in class_keys] for r in rows],
                x=names,
                y=[label(r) for r in rows],
                zmin=0,
                zmax=1,
                colorscale="Viridis",
                colorbar={"title": "F1"},
            )
        )
        fig.update_layout(height=200 + 30 * len(rows), margin={"l": 220})
    return _chart("class-f1", title, fig, ["method", *names], table_rows)


def direction_scatter(rows: Sequence[dict]) -> dict | None:
    """MUDI: direction-aware vs direction-agnostic macro F1, one point per method."""
    points = [
        (label(r), r["metrics"].get("aware/macro/f1"), r["metrics"].get("agnostic/macro/f1"))
        for r in rows
        if r["metrics"].get("aware/macro/f1") is not None and r["metrics"].get("agnostic/macro/f1") is not None
    ]
    if not points:
        return None
    fig = _figure(
        go.Scatter(
            x=[p[1] for p in points],
            y=[p[2] for p in points],
            text=[p[0] for p in points],
            mode="markers",
            marker={"size": 10},
            hovertemplate="%{text}<br>aware %{x:.4f}<br>agnostic %{y:.4f}<extra></extra>",
        )
    )
    fig.update_layout(
        xaxis={"title": "direction-aware macro F1"},
        yaxis={"title": "direction-agnostic macro F1"},
        showlegend=False,
    )
    return _chart(
        "direction",
        "Direction-aware vs direction-agnostic macro F1",
        fig,
        ["method", "aware macro F1", "agnostic macro F1"],
        points,
        note="A point far above the diagonal gets pairs right but in the wrong orientation.",
    )


def split_comparison(metric_name: str, pairs: Sequence[tuple[str, float | None, float | None]]) -> dict | None:
    """ImDrug: the primary metric of each method on the random and the standard split."""
    if not pairs:
        return None
    fig = _figure(
        [
            go.Bar(name="random split", x=[p[0] for p in pairs], y=[p[1] for p in pairs]),
            go.Bar(name="standard split", x=[p[0] for p in pairs], y=[p[2] for p in pairs]),
        ]
    )
    fig.update_layout(barmode="group", yaxis={"title": metric_name})
    return _chart(
        "splits",
        f"{metric_name}: random vs standard split",
        fig,
        ["method", "random", "standard"],
        pairs,
        note="Methods are matched by team and method name; only methods on both splits are shown.",
    )


def seed_strip(metric_name: str, seed_keys: Sequence[tuple[int, str]], rows: Sequence[dict]) -> dict | None:
    """Per-seed values of the ranking metric for the top methods (box with every point)."""
    rows = [r for r in rows[:TOP_METHODS] if any(r["metrics"].get(key) is not None for _, key in seed_keys)]
    if not seed_keys or not rows:
        return None
    fig = _figure(
        [
            go.Box(
                name=label(r),
                y=[r["metrics"].get(key) for _, key in seed_keys],
                text=[f"seed {seed}" for seed, _ in seed_keys],
                boxpoints="all",
                jitter=0.3,
                pointpos=0,
            )
            for r in rows
        ]
    )
    fig.update_layout(yaxis={"title": metric_name}, showlegend=False)
    table_rows = [[label(r), *(r["metrics"].get(key) for _, key in seed_keys)] for r in rows]
    return _chart(
        "seeds",
        f"{metric_name} per seed, top {len(rows)} methods",
        fig,
        ["method", *(f"seed {seed}" for seed, _ in seed_keys)],
        table_rows,
    )


def progression_chart(metric_name: str, steps: Sequence[dict]) -> dict | None:
    """Best public score over time: every submission that set a new record."""
    if not steps:
        return None
    fig = _figure(
        go.Scatter(
            x=[s["date"] for s in steps],
            y=[s["value"] for s in steps],
            text=[f"{s['method']} ({s['team']})" for s in steps],
            mode="lines+markers",
            line={"shape": "hv"},
            hovertemplate="%{text}<br>%{x}<br>%{y:.4f}<extra></extra>",
        )
    )
    fig.update_layout(yaxis={"title": metric_name}, xaxis={"title": "date"}, showlegend=False)
    return _chart(
        "progression",
        f"State of the art over time ({metric_name})",
        fig,
        ["date", "method", "team", metric_name],
        [[s["date"][:10], s["method"], s["team"], s["value"]] for s in steps],
    )


# --- submission charts ---------------------------------------------------------------------


def _confusion(chart_id: str, title: str, cm: dict) -> dict:
    matrix = cm["matrix"]
    fig = _figure(
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
    return _chart(chart_id, title, fig, ["gold \\ predicted", *cm["predicted_labels"]], rows)


def _per_class_bars(chart_id: str, title: str, per_class: Sequence[dict]) -> dict | None:
    if not per_class:
        return None
    names = [str(r["class"]) for r in per_class]
    stats = ("precision", "recall", "f1")
    fig = _figure([go.Bar(name=stat, x=names, y=[r.get(stat) for r in per_class]) for stat in stats])
    fig.update_layout(barmode="group", yaxis={"range": [0, 1]})
    rows = [[r["class"], *(r.get(stat) for stat in stats), r.get("support")] for r in per_class]
    return _chart(chart_id, title, fig, ["class", *stats, "support"], rows)


def _curves(chart_id: str, title: str, curves: Sequence[dict], x: str, y: str, diagonal: bool) -> dict | None:
    if not curves:
        return None
    traces = []
    for curve in curves:
        name = f"seed {curve['seed']}" + (f", {curve['class']}" if "class" in curve else "")
        traces.append(go.Scatter(x=curve[x], y=curve[y], mode="lines", name=name))
    if diagonal:
        traces.append(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance", line={"dash": "dot"}))
    fig = _figure(traces)
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
    return _chart(
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
    fig = _figure(
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
    return _chart(
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
    fig = _figure([go.Bar(name=k, x=[f"seed {s['seed']}" for s in seeds], y=[s.get(k) for s in seeds]) for k in keys])
    fig.update_layout(barmode="group")
    rows = [[s["seed"], s.get("n"), *(s.get(k) for k in keys)] for s in seeds]
    return _chart("seed-values", "Metrics per seed", fig, ["seed", "test rows", *keys], rows)


def _regression_scatter(scatter: Sequence[dict]) -> dict | None:
    if not scatter:
        return None
    fig = _figure([go.Scatter(x=s["y_true"], y=s["y_pred"], mode="markers", name=f"seed {s['seed']}") for s in scatter])
    fig.update_layout(xaxis={"title": "true"}, yaxis={"title": "predicted"})
    rows = [[s["seed"], len(s["y_true"])] for s in scatter]
    return _chart("regression", "Predicted vs true (thinned sample)", fig, ["seed", "points"], rows)


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
