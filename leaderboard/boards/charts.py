"""The boards' Plotly charts (class F1, direction scatter, splits, seeds, progression).

The chart format (``{"id", "title", "figure", "table", "note"}``, the site's
layout) is ``leaderboard.submissions.charts``'; a submission's own charts live
there too, next to its page.

Building a figure costs milliseconds (plotly validates every property), so
board charts are cached per board version (``leaderboard.boards.cache``).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from leaderboard.submissions.charts import chart as _chart
from leaderboard.submissions.charts import figure as _figure

# Bars for more methods than this are unreadable; the table holds the rest.
TOP_METHODS = 8


def label(row: dict) -> str:
    """ "Method (Team)": the name a chart shows for a board row."""
    return f"{row['method_name']} ({row['team_name']})"


# --- board charts ---------------------------------------------------------------------------


def _whose(rows: Sequence[dict], chosen: bool) -> str:
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
    title = f"Per-class F1 of {_whose(rows, chosen)}{setting}"
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


def seed_strip(
    metric_name: str, seed_keys: Sequence[tuple[int, str]], rows: Sequence[dict], *, chosen: bool = False
) -> dict | None:
    """Per-seed values of the ranking metric for the top methods or ``chosen`` rows (box with every point)."""
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
        f"{metric_name} per seed, {_whose(rows, chosen).removeprefix('the ')}",
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
