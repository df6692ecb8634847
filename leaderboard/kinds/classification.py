"""ImDrug classification on the site: head, middle and tail classes, demo truths and the baseline.

A truth that carries ImDrug's long-tailed class groups (``scoring.longtail``)
gives each score a value per group; the board shows each group's balanced
accuracy as a column and the top entries' groups as grouped bars, and a
submission's page the three metrics of every group.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

import scoring
from leaderboard.boards.charts import TOP_METHODS, label, whose
from leaderboard.kinds.registry import Baseline, Breakdown, DemoTruth, SiteKind, register
from leaderboard.submissions.charts import UNIT_RANGE, chart, figure, short, trace
from scoring.keys import group_key, spread_key
from scoring.kinds import classification as scoring_classification
from scoring.longtail import GROUP_METRICS, HEAD, MIDDLE, OPEN, TAIL

if TYPE_CHECKING:
    from scoring.definitions import Task

GROUP_STATS = tuple(zip(GROUP_METRICS, ("balanced accuracy", "balanced F1", "AUROC"), strict=True))
SYNTHETIC_ROWS_PER_SEED = 1000


def task_groups(task: Task) -> tuple[str, ...]:
    """The long-tailed groups a task's boards can show (``open`` in the open setting)."""
    return (HEAD, MIDDLE, TAIL) + ((OPEN,) if OPEN in task.classes else ())


def breakdown(task: Task) -> Breakdown:
    """Balanced accuracy per group as columns; balanced F1 and AUROC per group for the chart."""
    groups = task_groups(task)
    return Breakdown(
        columns=tuple(group_key(g, "balanced_accuracy") for g in groups),
        chart_keys=tuple(group_key(g, m) for g in groups for m in GROUP_METRICS),
    )


# --- the board ------------------------------------------------------------------------------------


def longtail_chart(
    groups: Sequence[str], spread: str | None, rows: Sequence[dict], *, chosen: bool = False
) -> dict | None:
    """Head / middle / tail balanced accuracy of the top methods (grouped bars, ± spread over seeds).

    The table beside it has the three metrics of every group. Rows without any
    group value (scored without a grouping) are left out; none left, no chart.
    """
    rows = [
        r
        for r in rows[:TOP_METHODS]
        if any(r["metrics"].get(group_key(g, "balanced_accuracy")) is not None for g in groups)
    ]
    if not rows:
        return None
    traces = []
    for r in rows:
        values = [r["metrics"].get(group_key(g, "balanced_accuracy")) for g in groups]
        bar = trace("bar", name=short(label(r)), x=list(groups), y=values)
        if spread:
            errors = [r["metrics"].get(spread_key(group_key(g, "balanced_accuracy"), spread)) for g in groups]
            if any(e is not None for e in errors):
                bar["error_y"] = {"type": "data", "array": [e or 0 for e in errors], "visible": True}
        traces.append(bar)
    fig = figure(traces)
    fig.update_layout(barmode="group", yaxis={"title": "balanced accuracy", "range": UNIT_RANGE})
    columns = ["method", *(f"{g} {name}" for g in groups for _, name in GROUP_STATS)]
    table = [
        [label(r), *(r["metrics"].get(group_key(g, stat)) for g in groups for stat, _ in GROUP_STATS)] for r in rows
    ]
    note = (
        "Classes are grouped by their frequency in the whole dataset (head: the most frequent 30%, tail: the "
        "rarest 30%); each group's value is the mean of its classes' values, by class id."
        + (
            f" Bars show ± the {'standard deviation' if spread == 'std' else 'standard error'} over seeds."
            if spread
            else ""
        )
    )
    return chart("longtail", f"Head, middle and tail classes: {whose(rows, chosen)}", fig, columns, table, note=note)


def breakdown_chart(spec: Any, rows: list[dict], chosen: bool = False) -> dict | None:
    return longtail_chart(task_groups(spec.task), spec.spread, rows, chosen=chosen)


# --- a submission's page --------------------------------------------------------------------------


def longtail_groups(report: dict) -> dict | None:
    """Balanced accuracy, balanced F1 and AUROC of the head, middle and tail classes (mean over seeds)."""
    groups = report.get("groups") or {}
    metrics = groups.get("summary") or {}
    names = [g for g in (HEAD, MIDDLE, TAIL, OPEN) if g in (groups.get("sizes") or {})]
    if not names:
        return None
    traces = []
    for stat, stat_name in GROUP_STATS:
        values = [metrics.get(group_key(g, stat)) for g in names]
        if all(v is None for v in values):
            continue
        errors = [metrics.get(spread_key(group_key(g, stat), "std")) for g in names]
        traces.append(
            trace(
                "bar",
                name=stat_name,
                x=names,
                y=values,
                error_y={"type": "data", "array": [e or 0 for e in errors], "visible": any(errors)},
            )
        )
    if not traces:
        return None
    fig = figure(traces)
    fig.update_layout(barmode="group", yaxis={"title": "value", "range": UNIT_RANGE})
    sizes = groups["sizes"]
    rows = [[g, sizes[g], *(metrics.get(group_key(g, stat)) for stat, _ in GROUP_STATS)] for g in names]
    return chart(
        "longtail",
        "Head, middle and tail classes (mean ± std over seeds)",
        fig,
        ["group", "classes", *(name for _, name in GROUP_STATS)],
        rows,
        note="Groups come with the truth (classes ranked by their frequency in the whole dataset); a group's value "
        "is the mean of its classes' values, by class id.",
    )


def submission_charts(task: Task, report: dict) -> list[dict | None]:
    return [longtail_groups(report)] if report.get("groups") else []


# --- demo data ------------------------------------------------------------------------------------


def random_baseline(task: Task, inputs: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    n_classes = len(task.classes)
    keys = inputs[["seed", "id"]]
    random_probs = rng.dirichlet(np.ones(n_classes), size=len(keys))
    random_frame = keys.assign(label=random_probs.argmax(axis=1))
    for k in range(n_classes):
        random_frame[f"prob_{k}"] = random_probs[:, k]
    return [Baseline("Random", "A random probability vector per row; the label is its argmax.", random_frame)]


def _class_weights(n_classes: int, split: str, rng: np.random.Generator) -> np.ndarray:
    if split == "standard":
        return np.full(n_classes, 1.0 / n_classes)
    # Long-tailed, as in ImDrug's random splits: Zipf-like class frequencies.
    weights = 1.0 / np.arange(1, n_classes + 1) ** 1.1
    rng.shuffle(weights)
    return weights / weights.sum()


def synthetic_truth(task: Task, rng: np.random.Generator) -> pd.DataFrame:
    """Random labels per seed: long-tailed on a random split, balanced on ImDrug's standard one."""
    frames = []
    n_classes = len(task.classes)
    for seed in task.seeds:
        n = SYNTHETIC_ROWS_PER_SEED if task.split != "standard" else n_classes * max(3, 600 // n_classes)
        if task.split == "standard":
            labels = np.repeat(np.arange(n_classes), n // n_classes)
            rng.shuffle(labels)
        else:
            labels = rng.choice(n_classes, size=n, p=_class_weights(n_classes, task.split, rng))
        ids = [f"{task.dataset}-{seed}-{i:05d}" for i in range(len(labels))]
        frames.append(pd.DataFrame({"seed": seed, "id": ids, "label": labels}))
    frame = pd.concat(frames, ignore_index=True)
    if n_classes > 2:  # the long-tailed groups, counted over these rows: all the demo data there is
        frame["group"] = scoring.longtail.group_column(frame["label"].to_numpy(), task.classes)
    return frame


def demo_truth(task: Task, rng: np.random.Generator, target: Path) -> DemoTruth:
    synthetic_truth(task, rng).to_csv(target, index=False)
    return DemoTruth(target, True, "synthetic demo data (random labels)")


# The headings of docs/metrics.md that define ImDrug's classification metrics.
DEFINITIONS = {
    "balanced_accuracy": "balanced-accuracy-primary",
    "balanced_f1": "balanced-f1-the-authors-definition",
    "auroc": "auroc",
}


def definition(key: str) -> str:
    """The heading of docs/metrics.md that defines an ImDrug classification result key."""
    if key.startswith("group/"):
        return "head-middle-and-tail-classes-long-tailed-groups"
    return DEFINITIONS.get(key, "secondary-columns")


SITE = register(
    SiteKind(
        kind=scoring_classification.KIND,
        breakdown=breakdown,
        breakdown_chart=breakdown_chart,
        submission_charts=submission_charts,
        baselines=random_baseline,
        demo_truth=demo_truth,
        definition=definition,
    )
)
