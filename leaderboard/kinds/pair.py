"""ChemicalX drug pair scoring on the site: the per-context AUROC, its charts, demo truths and baseline.

Each context (cell line, side effect, interaction type) gets an AUROC, the mean
over the splits where its test rows have both classes; the worker stores them
in the report (``per_context``) and their median and worst as results. The
board shows those two as columns and each top entry's contexts as a box of
points; a submission's page plots every context and its worst and best five.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

import scoring
from leaderboard import docpages
from leaderboard.boards.charts import TOP_METHODS, label
from leaderboard.challenges.demo_truths import data_dir, ids_from
from leaderboard.kinds.registry import Baseline, Breakdown, DemoTruth, Section, SiteKind, register
from leaderboard.submissions.charts import UNIT_RANGE, chart, figure, short, trace
from leaderboard.submissions.models import Submission
from scoring.keys import context_key
from scoring.kinds import pair as scoring_pair

if TYPE_CHECKING:
    from scoring.definitions import Task

# ChemicalX's oncopolypharmacology labels are continuous synergy scores; above this is positive.
ONCOLYPHARM_THRESHOLD = 30.0
# The shared folder's name for a dataset the registry names otherwise.
FOLDERS = {"oncolypharm": "oncopolypharmacology"}
SYNTHETIC_TRIPLES = 2000  # before the 10 splits take 20% each
# Up to this many contexts get a bar each on a submission's page; beyond, a histogram (the table keeps every one).
MAX_CONTEXT_BARS = 60
EXTREMES = 5


def breakdown(task: Task) -> Breakdown:
    """The median and the worst per-context AUROC (each context's value is in the report)."""
    return Breakdown(columns=tuple(context_key(stat) for stat in ("median", "min")))


# --- the board ------------------------------------------------------------------------------------


def context_entries(rows: list[dict]) -> list[tuple[str, list[float], int]]:
    """(method label, per-context AUROCs, contexts without one) of the top rows, read from their reports.

    One query reading two keys of each report (not the curves), for at most ``TOP_METHODS`` rows.
    """
    rows = rows[:TOP_METHODS]
    ids = [r["submission_id"] for r in rows]
    reports = {
        sid: (contexts or [], counts or {})
        for sid, contexts, counts in Submission.objects.filter(pk__in=ids).values_list(
            "id", "report__per_context", "report__per_context_counts"
        )
    }
    entries = []
    for r in rows:
        contexts, counts = reports.get(r["submission_id"], ([], {}))
        values = [c["auroc"] for c in contexts if isinstance(c, dict) and c.get("auroc") is not None]
        entries.append((label(r), values, int(counts.get("one_class", 0)) if isinstance(counts, dict) else 0))
    return entries


def context_distribution_chart(entries: Sequence[tuple[str, list[float], int]], *, chosen: bool = False) -> dict | None:
    """The distribution of per-context AUROC of each entry (box with every context as a point).

    ``entries`` are (method label, per-context AUROCs, contexts without one).
    """
    entries = [e for e in entries if e[1]]
    if not entries:
        return None
    fig = figure(
        [
            trace("box", name=short(name), y=values, boxpoints="all", jitter=0.4, pointpos=0, marker={"size": 4})
            for name, values, _ in entries
        ]
    )
    fig.update_layout(yaxis={"title": "AUROC per context", "range": UNIT_RANGE}, showlegend=False)
    table = [
        [name, len(values), min(values), float(np.median(values)), max(values), one_class]
        for name, values, one_class in entries
    ]
    who = f"the {len(entries)} compared submissions" if chosen else f"the top {len(entries)} methods"
    return chart(
        "context-distribution",
        f"AUROC per context, {who}",
        fig,
        ["method", "contexts", "worst", "median", "best", "contexts with one class (no AUROC)"],
        table,
        note="Each point is one context (cell line, side effect or interaction type): its AUROC averaged over "
        "the splits where its test rows have both classes.",
    )


def breakdown_chart(spec: Any, rows: list[dict], chosen: bool = False) -> dict | None:
    return context_distribution_chart(context_entries(rows), chosen=chosen)


# --- a submission's page --------------------------------------------------------------------------


def one_class_sentence(report: dict) -> str:
    """ "12 contexts have one class and no AUROC." (empty when none has)."""
    counts = report.get("per_context_counts") or {}
    n = int(counts.get("one_class", 0))
    if not n:
        return ""
    return f"{n} context{'s have' if n != 1 else ' has'} one class in every split's test rows and no AUROC."


def per_context(report: dict) -> dict | None:
    contexts = report.get("per_context") or []
    if not contexts:
        return None
    if len(contexts) <= MAX_CONTEXT_BARS:
        fig = figure(
            trace(
                "bar",
                x=[c["context"] for c in contexts],
                y=[c["auroc"] for c in contexts],
                customdata=[[c["n_rows"], c["n_positive"]] for c in contexts],
                hovertemplate="%{x}<br>AUROC %{y:.4f}<br>%{customdata[0]} rows, %{customdata[1]} positive"
                "<extra></extra>",
            )
        )
        fig.update_layout(yaxis={"title": "AUROC", "range": UNIT_RANGE}, xaxis={"title": "context"}, showlegend=False)
    else:
        fig = figure(
            trace("histogram", x=[c["auroc"] for c in contexts], xbins={"start": 0, "end": 1.0001, "size": 0.025})
        )
        fig.update_layout(
            xaxis={"title": "AUROC", "range": UNIT_RANGE},
            yaxis={"title": "contexts", "rangemode": "tozero"},
            showlegend=False,
        )
    rows = [[c["context"], c["auroc"], c["n_splits"], c["n_rows"], c["n_positive"]] for c in contexts]
    notes = [f"{len(contexts)} contexts have an AUROC (the mean over the splits where they have both classes)."]
    if report.get("per_context_truncated"):
        notes.append("Only the first contexts by name are listed.")
    notes.append(one_class_sentence(report))
    return chart(
        "per-context",
        "AUROC per context (mean over splits)",
        fig,
        ["context", "AUROC", "splits", "rows", "positives"],
        rows,
        note=" ".join(n for n in notes if n),
    )


def context_extremes(report: dict, n: int = EXTREMES) -> dict | None:
    """The worst and the best ``n`` contexts of one submission (horizontal bars, and the same as a table)."""
    contexts = [c for c in report.get("per_context") or [] if c.get("auroc") is not None]
    if len(contexts) < 2:
        return None
    ranked = sorted(contexts, key=lambda c: (c["auroc"], c["context"]))
    worst = ranked[: min(n, len(ranked) // 2 or 1)]
    best = ranked[len(worst) :][-n:][::-1]
    shown = [("worst", c) for c in worst] + [("best", c) for c in best]
    fig = figure(
        [
            trace(
                "bar",
                name=which,
                orientation="h",
                y=[short(c["context"], 24) for w, c in shown if w == which],
                x=[c["auroc"] for w, c in shown if w == which],
                text=[c["context"] for w, c in shown if w == which],
                textposition="none",
                hovertemplate="%{text}<br>AUROC %{x:.4f}<extra></extra>",
            )
            for which in ("worst", "best")
        ]
    )
    fig.update_layout(
        xaxis={"title": "AUROC", "range": UNIT_RANGE},
        yaxis={"autorange": "reversed", "automargin": True},
        height=160 + 26 * len(shown),
    )
    rows = [[which, c["context"], c["auroc"], c["n_rows"], c["n_positive"]] for which, c in shown]
    return chart(
        "context-extremes",
        f"Worst and best {n} contexts",
        fig,
        ["", "context", "AUROC", "rows", "positives"],
        rows,
        note=one_class_sentence(report),
    )


def submission_charts(task: Task, report: dict) -> list[dict | None]:
    """Every context's AUROC, then the worst and the best five."""
    if not report.get("per_context"):
        return []
    return [per_context(report), context_extremes(report)]


# --- demo data ------------------------------------------------------------------------------------


def random_baseline(task: Task, inputs: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    keys = inputs[["seed", "drug_1", "drug_2", "context"]]
    return [
        Baseline(
            "Random", "A uniform propensity in [0, 1] for every triple.", keys.assign(prediction=rng.random(len(keys)))
        )
    ]


def folder(task: Task) -> Path:
    """The dataset's folder in the shared data (``labeled_triples.csv``, ``drug_set.json``, ...)."""
    return data_dir() / "chemicalx" / FOLDERS.get(task.dataset, task.dataset)


def synthetic_triples(task: Task, rng: np.random.Generator) -> pd.DataFrame:
    """Random triples over the dataset's real drug and context ids, random labels."""
    drugs = ids_from(folder(task) / "drug_set.json", "drug_", 200)
    contexts = ids_from(folder(task) / "context_set.json", "context_", 10)
    a = rng.choice(len(drugs), size=SYNTHETIC_TRIPLES)
    b = (a + 1 + rng.choice(len(drugs) - 1, size=SYNTHETIC_TRIPLES)) % len(drugs)
    c = rng.choice(len(contexts), size=SYNTHETIC_TRIPLES)
    triples = pd.DataFrame(
        {
            "drug_1": np.asarray(drugs, dtype=object)[a],
            "drug_2": np.asarray(drugs, dtype=object)[b],
            "context": np.asarray(contexts, dtype=object)[c],
            "label": (rng.random(SYNTHETIC_TRIPLES) < 0.35).astype(int),
        }
    ).drop_duplicates(subset=["drug_1", "drug_2", "context"], ignore_index=True)
    return triples


def demo_truth(task: Task, rng: np.random.Generator, target: Path) -> DemoTruth:
    """The 10 splits of the dataset's real labelled triples when found (OncolyPharm binarised), else synthetic."""
    triples = folder(task) / "labeled_triples.csv"
    if triples.is_file():
        threshold = ONCOLYPHARM_THRESHOLD if task.dataset == "oncolypharm" else None
        scoring.make_chemicalx_truth(triples, seeds=task.seeds, threshold=threshold, out=target)
        rule = f", label > {threshold:g} is positive" if threshold is not None else ""
        return DemoTruth(target, False, f"ChemicalX {triples.parent.name}/labeled_triples.csv{rule}")
    triples_path = target.parent / f"{task.slug}-triples.csv"
    synthetic_triples(task, rng).to_csv(triples_path, index=False)
    scoring.make_chemicalx_truth(triples_path, seeds=task.seeds, out=target)
    return DemoTruth(target, True, "synthetic demo data (real drug and context ids, random labels)")


def aupr_caveat(spec: Any, rows: list[dict]) -> dict | None:
    """The note under a board that shows the authors' AUPR: it rewards constant scores (docs/metrics.md)."""
    if not any(c.key == "aupr" for c in spec.columns):
        return None
    return {"definition": docpages.metric_url(definition("aupr")), "ranked_by": spec.columns[0].label}


def definition(key: str) -> str:
    """The heading of docs/metrics.md that defines a ChemicalX result key (AUPR has its caveat's own)."""
    if key in ("aupr", "average_precision"):
        return "aupr-and-constant-scores"
    if key.startswith("context/"):
        return "per-context-cell-line-side-effect-interaction-type"
    return "chemicalx"


SITE = register(
    SiteKind(
        kind=scoring_pair.KIND,
        breakdown=breakdown,
        breakdown_chart=breakdown_chart,
        submission_charts=submission_charts,
        baselines=random_baseline,
        demo_truth=demo_truth,
        definition=definition,
        board_sections=(Section("kinds/pair/aupr_caveat.html", aupr_caveat),),
    )
)
