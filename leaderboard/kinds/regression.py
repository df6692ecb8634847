"""ImDrug regression on the site: the predicted-vs-true scatter, demo truths and the baseline."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from leaderboard.kinds.registry import Baseline, DemoTruth, SiteKind, register
from leaderboard.submissions.charts import chart, figure, trace
from scoring.kinds import regression as scoring_regression

if TYPE_CHECKING:
    from scoring.definitions import Task

SYNTHETIC_ROWS_PER_SEED = 1000


def scatter_chart(scatter: Sequence[dict]) -> dict | None:
    """Predicted against true values, a thinned sample per seed (the worker keeps it in the report)."""
    if not scatter:
        return None
    fig = figure(
        [trace("scatter", x=s["y_true"], y=s["y_pred"], mode="markers", name=f"seed {s['seed']}") for s in scatter]
    )
    fig.update_layout(xaxis={"title": "true"}, yaxis={"title": "predicted"})
    rows = [[s["seed"], len(s["y_true"])] for s in scatter]
    return chart("regression", "Predicted vs true (thinned sample)", fig, ["seed", "points"], rows)


def submission_charts(task: Task, report: dict) -> list[dict | None]:
    return [scatter_chart(report["scatter"])] if report.get("scatter") else []


def random_baseline(task: Task, inputs: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    keys = inputs[["seed", "id"]]
    # Not the labels' range: that would be read from the test labels.
    values = rng.standard_normal(len(keys))
    return [
        Baseline("Random", "A standard normal value for every row (no label statistic is used).", keys.assign(y=values))
    ]


def synthetic_truth(task: Task, rng: np.random.Generator) -> pd.DataFrame:
    frames = []
    for seed in task.seeds:
        ids = [f"{task.dataset}-{seed}-{i:05d}" for i in range(SYNTHETIC_ROWS_PER_SEED)]
        y = np.round(rng.normal(6.5, 1.4, size=SYNTHETIC_ROWS_PER_SEED), 4)
        frames.append(pd.DataFrame({"seed": seed, "id": ids, "y": y}))
    return pd.concat(frames, ignore_index=True)


def demo_truth(task: Task, rng: np.random.Generator, target: Path) -> DemoTruth:
    synthetic_truth(task, rng).to_csv(target, index=False)
    return DemoTruth(target, True, "synthetic demo data (random labels)")


def definition(key: str) -> str:
    """The heading of docs/metrics.md that defines the regression metrics (SBAP affinity)."""
    return "regression-sbap-affinity"


SITE = register(
    SiteKind(
        kind=scoring_regression.KIND,
        submission_charts=submission_charts,
        baselines=random_baseline,
        demo_truth=demo_truth,
        definition=definition,
    )
)
