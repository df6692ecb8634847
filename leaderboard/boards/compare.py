"""The /compare/ page: 2-4 submissions of one task, every metric side by side, the board's paired test.

Access follows the submission page (``leaderboard.submissions.access``): a
submission the user may not open is "not found", and then so is the whole
comparison, so the page never reveals which of the ids exist.
"""

from __future__ import annotations

import logging
from itertools import combinations
from typing import Any

from django.http import Http404

from leaderboard.boards import charts
from leaderboard.boards.exports import describe_metric
from leaderboard.boards.spec import DirectionSpec, direction_spec, directions_for
from leaderboard.boards.verdicts import Inputs, rule_text
from leaderboard.formatting import interval_text, metric_text
from leaderboard.kinds.registry import site_kind
from leaderboard.submissions import access
from leaderboard.submissions.models import Result, Submission
from scoring import keys as result_keys
from scoring.replicates import PAIR_LEVEL

log = logging.getLogger(__name__)


def _key_order(spec: DirectionSpec, keys: set[str]) -> list[str]:
    """The view's columns (with spreads) first, then per-class values, then everything else."""
    first = []
    for column in spec.sortable:
        first.append(column.key)
        spread = spec.spread_key(column.key)
        if spread:
            first.append(spread)
    first = [k for k in first if k in keys]
    rest = sorted(keys - set(first), key=lambda k: (result_keys.is_seed(k), k))
    return first + rest


def metric_table(spec: DirectionSpec, subs: list[Submission], values: dict[str, dict[str, float]]) -> list[dict]:
    """One row per result key: name, a cell per submission, which cell is best, and whether it is a main column."""
    main = {c.key for c in spec.sortable} | {spec.spread_key(c.key) for c in spec.sortable if spec.spread_key(c.key)}
    keys = set()
    for sub in subs:
        keys |= set(values.get(str(sub.pk), {}))
    table = []
    for key in _key_order(spec, keys):
        definition = describe_metric(spec.task, key)
        cells = [values.get(str(sub.pk), {}).get(key) for sub in subs]
        present = [v for v in cells if v is not None]
        is_spread = result_keys.is_spread(key)
        is_count = result_keys.is_count(key)
        best = None
        if len(present) > 1 and not is_spread and not is_count and len(set(present)) > 1:
            best = max(present) if definition["higher_is_better"] else min(present)
        table.append(
            {
                "key": key,
                "name": definition["name"],
                "higher_is_better": definition["higher_is_better"],
                "main": key in main,
                "cells": [
                    {
                        "text": metric_text(v) if not is_count or v is None else str(int(v)),
                        "best": v is not None and v == best,
                    }
                    for v in cells
                ],
            }
        )
    return table


def significance(spec: DirectionSpec, subs: list[Submission], values: dict | None = None) -> list[dict]:
    """The board's rule on every pair of the compared submissions (``verdicts.pair_outcome``).

    Reads stored numbers only (bootstrap replicates, or per-seed results): no
    prediction file is opened and no resampling is done in the request, and each
    pair gets the verdict the leader marks and the matrix give it.
    """
    values = values or {}
    inputs = Inputs(spec, {str(s.pk): values.get(str(s.pk), {}) for s in subs})
    outcomes = []
    for a, b in combinations(subs, 2):
        outcome: dict[str, Any] = {"a": a, "b": b}
        found = inputs.outcome(str(a.pk), str(b.pk))
        if isinstance(found, str):
            outcome["error"] = found
        else:
            outcome.update(
                p_value=found.p_value,
                delta=found.delta,
                interval=interval_text(found.low, found.high),
                significant=found.significant,
                n=found.n,
                observed_a=values.get(str(a.pk), {}).get(spec.metric),
                observed_b=values.get(str(b.pk), {}).get(spec.metric),
            )
        outcomes.append(outcome)
    return outcomes


# --- breakdowns: the kind's breakdown chart, and the contexts each entry wins ----------------------


def context_wins(labels: list[str], subs: list[Submission]) -> tuple[list[dict], dict | None]:
    """Per-context paired view: for every pair of entries, the shared contexts each wins; and its chart.

    Read from the reports already loaded with the submissions (each context's AUROC
    is stored there, not as results). Empty for tasks without contexts.
    """
    per_sub = [
        {c["context"]: c["auroc"] for c in (s.report or {}).get("per_context") or [] if isinstance(c, dict)}
        for s in subs
    ]
    if not any(per_sub):
        return [], None
    contexts = sorted(set().union(*per_sub))
    pairs = []
    for i in range(len(subs)):
        for j in range(i + 1, len(subs)):
            shared = [c for c in contexts if c in per_sub[i] and c in per_sub[j]]
            a_wins = sum(1 for c in shared if per_sub[i][c] > per_sub[j][c])
            b_wins = sum(1 for c in shared if per_sub[i][c] < per_sub[j][c])
            pairs.append(
                {
                    "a": labels[i], "b": labels[j], "shared": len(shared), "a_wins": a_wins, "b_wins": b_wins,
                    "ties": len(shared) - a_wins - b_wins,
                }
            )  # fmt: skip
    values = {c: [p.get(c) for p in per_sub] for c in contexts}
    return pairs, charts.context_paired_chart(labels, values)


def _breakdown_charts(spec: DirectionSpec, rows: list[dict]) -> list[dict | None]:
    """The compared entries' breakdown chart (``SiteKind.breakdown_chart``), if the task's kind has one."""
    breakdown = site_kind(spec.task).breakdown_chart
    return [breakdown(spec, rows, True)] if breakdown else []


def build_comparison(user, ids: list, direction: str | None) -> dict | str:
    """The page context, or a message saying why these ids cannot be compared (404 if one is not visible)."""
    found = {s.pk: s for s in Submission.objects.select_related("phase__challenge", "team").filter(pk__in=ids)}
    if len(found) != len(ids) or not all(access.allowed(user, s, access.VIEW) for s in found.values()):
        raise Http404("No such submission.")
    subs = [found[i] for i in ids]
    if any(s.status != Submission.Status.SCORED for s in subs):
        return "Only scored submissions can be compared."
    if len({s.phase_id for s in subs}) > 1:
        return "These submissions belong to different tasks or phases; only submissions of one task can be compared."
    task = subs[0].phase.task
    direction = direction if direction in directions_for(task) else directions_for(task)[0]
    spec = direction_spec(task, direction)
    values = Result.objects.filter(submission__in=subs).by_submission()
    tests = significance(spec, subs, values)
    rows = [
        {
            "method_name": s.method_name,
            "team_name": s.team.name,
            "metrics": values.get(str(s.pk), {}),
            "submission_id": s.pk,
        }
        for s in subs
    ]
    found_charts = [
        charts.class_f1_chart(spec.class_chart_keys, rows, chosen=True),
        charts.seed_strip(task.metric(spec.metric).name, spec.seed_keys(spec.metric), rows, chosen=True),
        *_breakdown_charts(spec, rows),
    ]
    labels = [charts.label(r) for r in rows]
    wins, paired_chart = context_wins(labels, subs)
    found_charts.append(paired_chart)
    return {
        "task": task,
        "spec": spec,
        "submissions": subs,
        "labels": labels,
        "context_wins": wins,
        "table": metric_table(spec, subs, values),
        "tests": tests,
        "charts": [c for c in found_charts if c],
        "directions": [
            {"key": v, "label": direction_spec(task, v).label, "checked": v == spec.key} for v in directions_for(task)
        ]
        if len(directions_for(task)) > 1
        else [],
        "ids": ",".join(str(s.pk) for s in subs),
        "test_rule": rule_text(spec),
        "pair_level": PAIR_LEVEL,
    }
