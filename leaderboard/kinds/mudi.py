"""MUDI on the site: a board per setting, F1 by drug frequency, per-drug errors, its demo truth and baseline.

MUDI's score is read in two settings (``scoring.keys.MUDI_SETTINGS``:
direction-aware and -agnostic), each a board view ranked by its own macro F1.
Beside the table the board shows the top entries' F1 by drug-frequency bucket,
values the worker stored (``{setting}/drug_freq/{bucket}/...``, from
``scoring.metrics.mudi_drugs``) that each board row keeps (``row_keys``): no
query, nothing computed in the request. A submission's page adds the same
buckets and, where the labels are public anyway, the drugs it gets most wrong.

MUDI's drug pages (``leaderboard.drugs``: a model, URLs and a loader of their
own) and the demo's organized challenge (``leaderboard.ops.demo_challenge``)
are about the one MUDI task, ``TASK_SLUG``; they take it, the drug list's path
and the synthetic pairs from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from django.apps import apps
from django.conf import settings

from leaderboard.boards.charts import label, plotted_points, points_trace, unit_square
from leaderboard.challenges.access import labels_are_public
from leaderboard.challenges.demo_truths import data_dir, ids_from
from leaderboard.formatting import metric_text
from leaderboard.kinds.registry import Baseline, BoardView, DemoTruth, Section, SiteKind, register
from leaderboard.submissions.charts import chart, confusion, figure, per_class_bars
from leaderboard.submissions.models import Result, Submission
from scoring import keys as result_keys
from scoring.keys import DRUG_BUCKETS, MUDI_SETTINGS, mudi_bucket_key
from scoring.kinds import mudi as scoring_mudi

if TYPE_CHECKING:
    from scoring.definitions import Task

# The MUDI task (``scoring.registry``): the drug pages count its test pairs, the demo challenge is one of it.
TASK_SLUG = "mudi"
SETTING_NAMES = scoring_mudi.SETTING_NAMES
# The drug pages compare the top of this view's board.
DRUG_PAGE_DIRECTION = MUDI_SETTINGS[0]
# The board's "F1 by drug frequency" compares this many entries from the top of the page.
TOP_ENTRIES = 10
SYNTHETIC_PAIRS = 3000


def folder() -> Path:
    """MUDI's folder in the shared data (``test.csv``, ``drug_info.json``)."""
    return data_dir() / "mudi"


# --- the board ------------------------------------------------------------------------------------


def _other(setting: str) -> str:
    return next(s for s in MUDI_SETTINGS if s != setting)


def _swapped(key: str) -> str:
    """A result key read in the other setting: aware/... <-> agnostic/..."""
    setting, _, rest = key.partition("/")
    return f"{_other(setting)}/{rest}"


def board_view(task: Task, setting: str) -> BoardView:
    """One setting: its macro F1 ranks, its own columns, the other setting's macro F1 last.

    The task's tie-breaks are written for the first setting; another setting's
    view reads each in its own setting.
    """
    other = _other(setting)
    tiebreak = tuple((key, task.higher_is_better(key)) for key in task.secondary)
    if setting != MUDI_SETTINGS[0]:
        tiebreak = tuple((_swapped(key), better) for key, better in tiebreak)
    # Short headers: the view already says which setting the columns belong to.
    short = {"f1": "F1", "precision": "P", "recall": "R"}
    labels = {
        result_keys.mudi_key(setting, scope, stat): f"{scope.capitalize()} {short[stat]}"
        for scope in ("macro", "micro")
        for stat in ("f1", "precision", "recall")
    }
    labels[result_keys.mudi_key(setting, "macro", "f1_mean")] = "Mean class F1"
    labels[result_keys.mudi_key(other, "macro", "f1")] = f"Macro F1 ({other})"
    metric = result_keys.mudi_key(setting, "macro", "f1")
    return BoardView(metric, SETTING_NAMES[setting].capitalize(), tuple(labels), tiebreak, labels)


def bucket_keys(task: Task, setting: str) -> tuple[str, ...]:
    """The view's F1 by drug-frequency bucket, kept in each board row for the table beside the board."""
    return tuple(
        mudi_bucket_key(setting, bucket.slug, stat) for bucket in DRUG_BUCKETS for stat in result_keys.DRUG_BUCKET_STATS
    )


def direction_scatter(spec: Any, rows: list[dict]) -> dict | None:
    """Direction-aware vs direction-agnostic macro F1, one point per method."""
    aware, agnostic = (result_keys.mudi_key(setting, "macro", "f1") for setting in MUDI_SETTINGS)
    points = plotted_points((label(r), r["metrics"].get(aware), r["metrics"].get(agnostic)) for r in rows)
    if not points:
        return None
    fig = figure(points_trace(points, "aware", "agnostic"))
    shared, diagonal = unit_square(points)
    fig.update_layout(
        xaxis={"title": "direction-aware macro F1", "range": shared},
        yaxis={"title": "direction-agnostic macro F1", "range": shared},
        shapes=[diagonal],
        showlegend=False,
    )
    return chart(
        "direction",
        "Direction-aware vs direction-agnostic macro F1",
        fig,
        ["method", "aware macro F1", "agnostic macro F1"],
        points,
        note="A point far above the diagonal gets pairs right but in the wrong orientation.",
    )


def bucket_table(spec: Any, rows: list) -> dict | None:
    """``{"buckets": [...], "rows": [...], "setting"}``: the page's top entries, bucket by bucket (None: no values)."""
    entries = [row for row in rows if isinstance(row, dict) and "submission_id" in row][:TOP_ENTRIES]
    if not entries:
        return None
    values = {str(row["submission_id"]): row.get("metrics") or {} for row in entries}
    if not any(mudi_bucket_key(spec.key, b.slug, "pairs") in v for v in values.values() for b in DRUG_BUCKETS):
        return None  # every shown entry was scored (or its row built) before the breakdown existed
    pairs: dict[str, int] = {}
    for stored in values.values():
        for b in DRUG_BUCKETS:
            n = stored.get(mudi_bucket_key(spec.key, b.slug, "pairs"))
            if n is not None:
                pairs.setdefault(b.slug, int(n))
    buckets = [
        {"slug": b.slug, "label": b.label, "short": b.short, "pairs": pairs[b.slug]}
        for b in DRUG_BUCKETS
        if b.slug in pairs
    ]
    table = []
    for row in entries:
        stored = values.get(str(row["submission_id"]), {})
        table.append(
            {
                "rank": row.get("shown_rank"),
                "method": row["method_name"],
                "url": row.get("url", ""),
                "cells": [
                    (
                        metric_text(stored.get(mudi_bucket_key(spec.key, str(b["slug"]), "macro_f1"))),
                        metric_text(stored.get(mudi_bucket_key(spec.key, str(b["slug"]), "micro_f1"))),
                    )
                    for b in buckets
                ],
            }
        )
    return {"buckets": buckets, "rows": table, "setting": spec.label.lower()}


# --- a submission's page --------------------------------------------------------------------------


def submission_charts(task: Task, report: dict) -> list[dict | None]:
    """The confusion matrix and per-class bars of each setting."""
    charts: list[dict | None] = []
    for setting in MUDI_SETTINGS:
        part = report.get(setting)
        if not isinstance(part, dict):
            continue
        name = SETTING_NAMES[setting]
        charts.append(confusion(f"confusion-{setting}", f"Confusion matrix ({name})", part["confusion_matrix"]))
        charts.append(
            per_class_bars(f"per-class-{setting}", f"Per-class precision, recall, F1 ({name})", part["per_class"])
        )
    return charts


@dataclass
class DrugAnalysis:
    """What a submission's page shows by drug."""

    # [{"label", "pairs", "values": [(setting name, macro F1, micro F1)]}] per bucket with pairs.
    buckets: list[dict] = field(default_factory=list)
    # The drugs with the most errors (report entries plus the drug's "name", None for a drug not loaded),
    # None when the labels are not public: which drugs an entry gets wrong tells which test rows it gets wrong.
    top_errors: list[dict] | None = None


def drug_names(ids: Iterable[str]) -> dict[str, str]:
    """The names of the loaded drugs among ``ids``, in one query; an id with no drug page is absent.

    The drug pages' model is looked up by name: the drugs app sits above the kinds.
    """
    drug = apps.get_model("drugs", "Drug")
    return dict(drug.objects.filter(pk__in=set(ids)).values_list("pk", "name"))


def submission_bucket_keys() -> list[str]:
    return [
        mudi_bucket_key(setting, bucket.slug, stat)
        for setting in MUDI_SETTINGS
        for bucket in DRUG_BUCKETS
        for stat in ("macro_f1", "micro_f1", "pairs")
    ]


def bucket_rows(values: dict[str, float]) -> list[dict]:
    """The buckets with at least one gold pair, each with its F1s per setting."""
    rows = []
    for bucket in DRUG_BUCKETS:
        pairs = values.get(mudi_bucket_key(MUDI_SETTINGS[0], bucket.slug, "pairs"))
        if pairs is None:
            continue
        rows.append(
            {
                "slug": bucket.slug,
                "label": bucket.label,
                "short": bucket.short,
                "pairs": int(pairs),
                "values": [
                    (
                        SETTING_NAMES[setting],
                        values.get(mudi_bucket_key(setting, bucket.slug, "macro_f1")),
                        values.get(mudi_bucket_key(setting, bucket.slug, "micro_f1")),
                    )
                    for setting in MUDI_SETTINGS
                ],
            }
        )
    return rows


def drug_analysis(submission: Submission) -> DrugAnalysis | None:
    """F1 by drug-frequency bucket (stored results) and the drugs with the most errors (the stored report).

    None for a score stored before the breakdown existed. Nothing here reads a file.
    """
    values = (
        Result.objects.filter(submission=submission).by_submission(submission_bucket_keys()).get(str(submission.pk), {})
    )
    drugs = (submission.report or {}).get("drugs")
    if not values and not drugs:
        return None
    analysis = DrugAnalysis(buckets=bucket_rows(values))
    if labels_are_public(submission.phase) and isinstance(drugs, dict):
        entries = [e for e in drugs.get("top_errors", []) if isinstance(e, dict) and isinstance(e.get("drug"), str)]
        names = drug_names(e["drug"] for e in entries) if entries else {}
        analysis.top_errors = [{**e, "name": names.get(e["drug"])} for e in entries]
    return analysis


def class_table(submission: Submission) -> dict | None:
    """Per class, in both settings: precision, recall, F1 and the counts behind them (the stored report).

    Counts are whole numbers. None for a report without per-class rows (stored before they existed).
    """
    report = submission.report or {}
    settings = []
    for setting in MUDI_SETTINGS:
        rows = (report.get(setting) or {}).get("per_class")
        if not isinstance(rows, list) or not rows:
            continue
        settings.append(
            {
                "setting": setting,
                "label": "direction-aware" if setting == "aware" else "direction-agnostic",
                "rows": [
                    {
                        "class": row.get("class", ""),
                        **{k: row.get(k) for k in ("precision", "recall", "f1")},
                        **{k: int(row[k]) if row.get(k) is not None else None for k in ("tp", "fp", "fn", "support")},
                    }
                    for row in rows
                    if isinstance(row, dict)
                ],
            }
        )
    return {"settings": settings} if settings else None


# --- demo data ------------------------------------------------------------------------------------


def random_baseline(task: Task, inputs: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    labels = rng.choice(list(task.classes), size=len(inputs))
    frame = pd.DataFrame({"Drug1": inputs["Drug1"], "Interaction": labels, "Drug2": inputs["Drug2"]})
    return [Baseline("Random", "A uniformly random class for every test pair.", frame)]


def real_truth_path() -> Path | None:
    """The real MUDI test set if it is configured (``settings.MUDI_TRUTH_PATH``) or found in the shared folder."""
    configured = settings.MUDI_TRUTH_PATH
    for candidate in (Path(configured) if configured else None, folder() / "test.csv"):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


def synthetic_pairs(rng: np.random.Generator) -> pd.DataFrame:
    """Random MUDI-style pairs over the real drug list's ids (made-up ids without it), random classes."""
    drugs = ids_from(drug_info_path(), "DB", 400)
    a = rng.choice(len(drugs), size=SYNTHETIC_PAIRS)
    b = (a + 1 + rng.choice(len(drugs) - 1, size=SYNTHETIC_PAIRS)) % len(drugs)
    labels = rng.choice(["Synergism", "Antagonism", "New Adverse"], size=SYNTHETIC_PAIRS, p=[0.75, 0.18, 0.07])
    names = np.array([f"Compound::{d}" for d in drugs], dtype=object)
    frame = pd.DataFrame({"Drug1": names[a], "Interaction": labels, "Drug2": names[b]})
    # One class per unordered pair, as in the real set's de-duplicated view.
    key = np.minimum(a, b) * len(drugs) + np.maximum(a, b)
    return frame[~pd.Series(key).duplicated().to_numpy()].reset_index(drop=True)


def demo_truth(task: Task, rng: np.random.Generator, target: Path) -> DemoTruth:
    real = real_truth_path()
    if real is not None:
        return DemoTruth(real, False, f"MUDI test set ({real.name}; github hoangbros03/MUDI dataset/test.csv)")
    synthetic_pairs(rng).to_csv(target, index=False)
    return DemoTruth(target, True, "synthetic demo data (random MUDI-style pairs)")


# --- the drug pages' data -------------------------------------------------------------------------


def drug_info_path() -> Path:
    return folder() / "drug_info.json"


def drug_info_source() -> str:
    """Where ``load_drugs`` reads the drug list: ``settings.DRUG_INFO_SOURCE``, else the shared folder's."""
    return settings.DRUG_INFO_SOURCE or str(drug_info_path())


def definition(key: str) -> str:
    """The heading of docs/metrics.md that defines a MUDI result key."""
    if "/drug_freq/" in key:
        return "by-drug-frequency-buckets-and-per-drug-errors"
    return "per-class-micro-and-macro"


SITE = register(
    SiteKind(
        kind=scoring_mudi.KIND,
        board_view=board_view,
        row_keys=bucket_keys,
        board_charts=(direction_scatter,),
        board_sections=(Section("kinds/mudi/board_drug_buckets.html", bucket_table),),
        submission_charts=submission_charts,
        submission_sections=(
            Section("kinds/mudi/submission_classes.html", class_table),
            Section("kinds/mudi/submission_drugs.html", drug_analysis),
        ),
        baselines=random_baseline,
        demo_truth=demo_truth,
        definition=definition,
    )
)
