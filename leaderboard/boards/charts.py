"""The boards' Plotly charts (class F1, splits, seeds, progression); a kind's own are in its module.

The chart format (``{"id", "title", "figure", "table", "note"}``, the site's
layout) is ``leaderboard.submissions.charts``'; a submission's own charts live
there too, next to its page.

Figures are plain data (``leaderboard.submissions.charts.trace``); board charts
are still cached per board version (``leaderboard.boards.cache``) and warmed by
the worker after every board update.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from statistics import mean

from leaderboard.boards.models import BoardRow
from leaderboard.submissions.charts import HEATMAP_ROW_PX, UNIT_RANGE, Figure, category_axis, short, trace, value_axis
from leaderboard.submissions.charts import chart as _chart
from leaderboard.submissions.charts import figure as _figure

# Bars for more methods than this are unreadable; the table holds the rest.
TOP_METHODS = 8


def label(row: dict) -> str:
    """ "Method (Team)": the name a chart shows for a board row."""
    return f"{row['method_name']} ({row['team_name']})"


def plotted_points(
    given: Iterable[tuple[str, float | None, float | None]],
) -> list[tuple[str, float, float]]:
    """The (label, x, y) points that have both values: what a scatter plots and its table lists."""
    return [(name, x, y) for name, x, y in given if x is not None and y is not None]


def points_trace(points: Sequence[tuple[str, float, float]], x_name: str, y_name: str) -> dict:
    """A scatter's markers: one per labelled point, the label and both values (4 decimals) on hover."""
    return trace(
        "scatter",
        x=[p[1] for p in points],
        y=[p[2] for p in points],
        text=[p[0] for p in points],
        mode="markers",
        marker={"size": 10},
        hovertemplate=f"%{{text}}<br>{x_name} %{{x:.4f}}<br>{y_name} %{{y:.4f}}<extra></extra>",
    )


def unit_square(points: Sequence[tuple[str, float, float]]) -> tuple[list[float], dict]:
    """A shared padded range inside [0, 1] for a scatter of two such metrics, and its diagonal as a shape.

    Both axes get the same range (0.05 around the points, on 0.05 steps), so the
    diagonal is at 45 degrees and "above the diagonal" reads at a glance.
    """
    values = [v for p in points for v in (p[1], p[2])]
    low = max(0.0, math.floor((min(values) - 0.05) * 20) / 20)
    high = min(UNIT_RANGE[1], math.ceil((max(values) + 0.05) * 20) / 20)
    diagonal = {"type": "line", "x0": low, "y0": low, "x1": high, "y1": high, "line": {"dash": "dot", "color": "#999"}}
    return [low, high], diagonal


# --- board charts ---------------------------------------------------------------------------


def whose(rows: Sequence[dict], chosen: bool) -> str:
    """Whose values a chart shows: the best rows of a board, or the submissions someone picked."""
    return f"the {len(rows)} compared submissions" if chosen else f"the top {len(rows)} methods"


def class_f1_chart(
    class_keys: Sequence[tuple[str, str]], rows: Sequence[dict], setting: str = "", *, chosen: bool = False
) -> dict | None:
    """Per-class F1 of the top methods (or of ``chosen`` rows): grouped bars up to 10 classes, a heatmap beyond."""
    rows = [r for r in rows[:TOP_METHODS] if any(r["metrics"].get(key) is not None for _, key in class_keys)]
    if not class_keys or not rows:
        return None
    names = [name for name, _ in class_keys]
    title = f"Per-class F1 of {whose(rows, chosen)}{setting}"
    table_rows = [[label(r), *(r["metrics"].get(key) for _, key in class_keys)] for r in rows]
    if len(class_keys) <= 10:
        fig = _figure(
            [
                trace(
                    "bar",
                    name=short(label(r)),
                    x=names,
                    y=[r["metrics"].get(key) for _, key in class_keys],
                    hovertemplate="%{x}<br>F1 %{y:.4f}",
                )
                for r in rows
            ]
        )
        fig.update_layout(
            barmode="group", yaxis={"title": "F1", "range": UNIT_RANGE}, xaxis=category_axis(names, tickangle=-45)
        )
    else:
        fig = class_heatmap(class_keys, rows)
    return _chart("class-f1", title, fig, ["method", *names], table_rows)


def class_heatmap(class_keys: Sequence[tuple[str, str]], rows: Sequence[dict]) -> Figure:
    """Many classes (MUDI's 86): one heatmap row per class with a value, best mean F1 first, methods across.

    Classes run down the chart, not across it: 86 columns on a phone were a few
    pixels each. Each row is HEATMAP_ROW_PX tall, so the chart grows and the page
    scrolls; classes no shown method has a value for are left out (blank rows).
    """
    f1 = {name: [r["metrics"].get(key) for r in rows] for name, key in class_keys}
    shown = [name for name in f1 if any(v is not None for v in f1[name])]
    shown.sort(key=lambda name: -mean([v for v in f1[name] if v is not None]))
    methods = [short(label(r)) for r in rows]
    fig = _figure(
        trace(
            "heatmap",
            z=[f1[name] for name in shown],
            x=list(range(len(rows))),
            y=shown,
            customdata=[[label(r) for r in rows] for _ in shown],
            hovertemplate="%{customdata}<br>%{y}: F1 %{z:.4f}<extra></extra>",
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": "F1", "len": min(1, 400 / (HEATMAP_ROW_PX * len(shown) or 1)), "y": 1, "yanchor": "top"},
        )
    )
    fig.update_layout(
        height=260 + HEATMAP_ROW_PX * len(shown),
        # Methods across the top, where the chart starts; the rows below scroll with the page.
        xaxis={
            "side": "top",
            "tickmode": "array",
            "tickvals": list(range(len(rows))),
            "ticktext": methods,
            "tickangle": -30,
        },
        # Room for the title above the slanted method names (automargin alone would overlap the two).
        margin={"t": 190},
        yaxis=category_axis(shown, 32, autorange="reversed"),
    )
    return fig


def split_comparison(metric_name: str, pairs: Sequence[tuple[str, float | None, float | None]]) -> dict | None:
    """ImDrug: the primary metric of each method on the random and the standard split."""
    if not pairs:
        return None
    fig = _figure(
        [
            trace("bar", name="random split", x=[p[0] for p in pairs], y=[p[1] for p in pairs]),
            trace("bar", name="standard split", x=[p[0] for p in pairs], y=[p[2] for p in pairs]),
        ]
    )
    fig.update_layout(barmode="group", yaxis=value_axis([v for p in pairs for v in p[1:]], title=metric_name))
    return _chart(
        "splits",
        f"{metric_name}: random vs standard split",
        fig,
        ["method", "random", "standard"],
        pairs,
        note="Methods are matched by team and method name; only methods on both splits are shown.",
    )


def seed_strip(
    metric_name: str, seed_keys: Sequence[tuple[int, str]], rows: Sequence[dict], *, chosen: bool = False
) -> dict | None:
    """Per-seed values of the ranking metric for the top methods or ``chosen`` rows (box with every point)."""
    rows = [r for r in rows[:TOP_METHODS] if any(r["metrics"].get(key) is not None for _, key in seed_keys)]
    if not seed_keys or not rows:
        return None
    fig = _figure(
        [
            trace(
                "box",
                name=short(label(r)),
                y=[r["metrics"].get(key) for _, key in seed_keys],
                text=[f"seed {seed}" for seed, _ in seed_keys],
                boxpoints="all",
                jitter=0.3,
                pointpos=0,
            )
            for r in rows
        ]
    )
    fig.update_layout(yaxis={"title": metric_name, "rangemode": "nonnegative"}, showlegend=False)
    table_rows = [[label(r), *(r["metrics"].get(key) for _, key in seed_keys)] for r in rows]
    return _chart(
        "seeds",
        f"{metric_name} per seed, {whose(rows, chosen).removeprefix('the ')}",
        fig,
        ["method", *(f"seed {seed}" for seed, _ in seed_keys)],
        table_rows,
    )


DAY_MS = 86_400_000


def _date_axis(dates: Sequence[str]) -> dict:
    """A date x-axis labelled in days: records set seconds apart (the demo) get a week around them, not ms ticks."""
    axis = {"title": "date", "type": "date", "tickformat": "%Y-%m-%d", "automargin": True}
    parsed = sorted(datetime.fromisoformat(d) for d in dates if d)
    if parsed and parsed[-1] - parsed[0] < timedelta(days=3):
        middle = parsed[0] + (parsed[-1] - parsed[0]) / 2
        axis["range"] = [(middle - timedelta(days=3)).isoformat(), (middle + timedelta(days=3)).isoformat()]
    if not parsed or parsed[-1] - parsed[0] < timedelta(days=14):
        axis["dtick"] = DAY_MS  # one tick a day at most; Plotly would otherwise go down to milliseconds
    return axis


def progression_chart(metric_name: str, steps: Sequence[dict]) -> dict | None:
    """Best public score over time: every submission that set a new record."""
    if not steps:
        return None
    fig = _figure(
        trace(
            "scatter",
            x=[s["date"] for s in steps],
            y=[s["value"] for s in steps],
            text=[f"{s['method']} ({s['team']})" for s in steps],
            mode="lines+markers",
            line={"shape": "hv"},
            hovertemplate="%{text}<br>%{x}<br>%{y:.4f}<extra></extra>",
        )
    )
    fig.update_layout(
        # Every metric here is >= 0: a lone record must not get an axis running below zero (or to 1.2).
        yaxis=value_axis([s["value"] for s in steps], title=metric_name),
        xaxis=_date_axis([s["date"] for s in steps]),
        showlegend=False,
    )
    return _chart(
        "progression",
        f"State of the art over time ({metric_name})",
        fig,
        ["date", "method", "team", metric_name],
        [[s["date"][:10], s["method"], s["team"], s["value"]] for s in steps],
    )


def shakeup_scatter(metric_name: str, given: Sequence[tuple[str, float | None, float | None]]) -> dict | None:
    """A revealed phase: each final entry's public vs private score, with the diagonal (no shake-up)."""
    points = plotted_points(given)
    if not points:
        return None
    low = min(min(p[1], p[2]) for p in points)
    high = max(max(p[1], p[2]) for p in points)
    fig = _figure(
        [
            trace(
                "scatter",
                x=[low, high],
                y=[low, high],
                mode="lines",
                line={"dash": "dot", "color": "#999"},
                hoverinfo="skip",
            ),
            points_trace(points, "public", "private"),
        ]
    )
    fig.update_layout(
        xaxis={"title": f"public {metric_name}"}, yaxis={"title": f"private {metric_name}"}, showlegend=False
    )
    return _chart(
        "shakeup",
        f"Public vs private {metric_name}",
        fig,
        ["entry", "public", "private"],
        points,
        note="Points below the diagonal scored lower on the private rows than on the public ones.",
    )


def shakeup_chart(board, spec) -> dict | None:
    """The public-vs-private scatter of a private board's rows (its best CHART_ROWS entries)."""
    rows = BoardRow.objects.ranked().filter(board=board).order_by("quality", "tail")
    points = [
        (f"{r['method_name']} ({r['team_name']})", r["public_value"], r["value"])
        for r in rows.values("method_name", "team_name", "public_value", "value")[:200]
    ]
    return shakeup_scatter(spec.task.metric(spec.metric).name, points)


# --- the compare page's contexts ------------------------------------------------------------


def context_paired_chart(names: Sequence[str], per_context: dict[str, list[float | None]]) -> dict | None:
    """The compare page: every shared context's AUROC for each compared entry, contexts sorted by the first."""
    full = {c: [float(v) for v in values if v is not None] for c, values in per_context.items()}
    shared = sorted((c for c, values in full.items() if len(values) == len(names)), key=lambda c: full[c][0])
    if not shared:
        return None
    fig = _figure(
        [
            trace(
                "scatter",
                name=short(name),
                x=shared,
                y=[full[c][i] for c in shared],
                mode="markers",
                text=shared,
                hovertemplate="%{text}<br>AUROC %{y:.4f}<extra>" + short(name) + "</extra>",
            )
            for i, name in enumerate(names)
        ]
    )
    fig.update_layout(
        yaxis={"title": "AUROC", "range": UNIT_RANGE},
        xaxis={"title": "context (sorted by the first entry)", "showticklabels": len(shared) <= 40, "tickangle": -45},
    )
    rows = []
    for c in sorted(shared):
        values = full[c]
        best = max(values)
        winners = [short(n) for n, v in zip(names, values, strict=True) if v == best]
        rows.append([c, *values, winners[0] if len(winners) == 1 else "tie"])
    return _chart("context-paired", "AUROC per context, side by side", fig, ["context", *names, "best"], rows)
