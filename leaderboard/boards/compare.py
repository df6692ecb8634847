"""The /compare/ page: 2-4 submissions of one task, every metric side by side, a paired test.

Access follows the submission page (``leaderboard.submissions.access``): a
submission the user may not open is "not found", and then so is the whole
comparison, so the page never reveals which of the ids exist.
"""

from __future__ import annotations

import logging
from itertools import combinations
from typing import Any

from celery import shared_task
from django.core.cache import cache as django_cache
from django.db import transaction
from django.http import Http404

import scoring
from leaderboard.boards import cache, charts
from leaderboard.boards.exports import describe_metric
from leaderboard.boards.matrix import correction_text, method_text
from leaderboard.boards.models import PairTest
from leaderboard.boards.pair_tests import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, Aligner, pair_test
from leaderboard.boards.spec import DirectionSpec, direction_spec, directions_for
from leaderboard.challenges.truth_cache import TruthMissing
from leaderboard.formatting import metric_text
from leaderboard.kinds.registry import site_kind
from leaderboard.submissions import access
from leaderboard.submissions.models import Result, Submission
from scoring import keys as result_keys
from scoring.multiple import holm_adjust, paired_seed_test
from scoring.significance import ALPHA

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


def failure_key(a_id, b_id, metric: str) -> str:
    """Where the worker leaves the reason a pair could not be tested (read by the page)."""
    return cache.key("compare-failure", a_id, b_id, metric)


def _stored_tests(spec: DirectionSpec, ids: list) -> dict[tuple[str, str], PairTest]:
    """The cached bootstraps among ``ids``, keyed (a id, b id) as they were tested."""
    found = PairTest.objects.filter(
        submission_a_id__in=ids,
        submission_b_id__in=ids,
        metric=spec.metric,
        n_resamples=BOOTSTRAP_RESAMPLES,
        seed=BOOTSTRAP_SEED,
    )
    return {(str(t.submission_a_id), str(t.submission_b_id)): t for t in found}


def _bootstrap_outcome(a: Submission, b: Submission, stored: dict) -> dict | None:
    """The stored bootstrap of A vs B in either order (p is symmetric; the differences flip), or None."""
    if (test := stored.get((str(a.pk), str(b.pk)))) is not None:
        return {
            "p_value": test.p_value,
            "delta": test.delta,
            "observed_a": test.observed_a,
            "observed_b": test.observed_b,
            "n_resamples": test.n_used,
        }
    if (test := stored.get((str(b.pk), str(a.pk)))) is not None:
        return {
            "p_value": test.p_value,
            "delta": -test.delta,
            "observed_a": test.observed_b,
            "observed_b": test.observed_a,
            "n_resamples": test.n_used,
        }
    return None


def _seed_outcome(spec: DirectionSpec, a: Submission, b: Submission, values: dict) -> dict:
    """The paired t-test over seeds of A vs B from their stored per-seed results (no file, no bootstrap)."""
    keys = [key for _, key in spec.seed_keys(spec.metric)]
    per_a = [values.get(str(a.pk), {}).get(key) for key in keys]
    per_b = [values.get(str(b.pk), {}).get(key) for key in keys]
    if any(v is None for v in [*per_a, *per_b]):
        return {"error": "not tested: a per-seed value is missing"}
    outcome = paired_seed_test(per_a, per_b)
    return {
        "p_value": outcome.p_value,
        "delta": outcome.delta,
        "observed_a": values[str(a.pk)].get(spec.metric),
        "observed_b": values[str(b.pk)].get(spec.metric),
        "n_seeds": outcome.n_seeds,
    }


def significance(spec: DirectionSpec, subs: list[Submission], values: dict | None = None) -> list[dict]:
    """The board's pairwise test on every pair of the compared submissions, Holm-corrected across the pairs.

    Seed-mode tasks (several seeds) use the paired t-test over the stored per-seed
    values, as the board's significance matrix does. Bootstrap-mode tasks read
    only stored bootstraps here; missing ones are enqueued for a worker
    (``leaderboard.boards.tasks.run_compare_tests``) after the request, and the
    page shows them as pending until they are stored (its script reloads that part).
    The adjusted p-values appear once every pair is known.
    """
    values = values or {}
    outcomes = []
    stored = _stored_tests(spec, [s.pk for s in subs]) if spec.significance != "seeds" else {}
    missing: dict[str, list[str]] = {}
    for a, b in combinations(subs, 2):
        outcome: dict[str, Any] = {"a": a, "b": b}
        if spec.significance == "seeds":
            outcome.update(_seed_outcome(spec, a, b, values))
        elif (found := _bootstrap_outcome(a, b, stored)) is not None:
            outcome.update(found)
        elif not a.phase.has_truth:
            outcome["error"] = "the task's truth file is not available"
        elif failure := django_cache.get(failure_key(a.pk, b.pk, spec.metric)):
            outcome["error"] = failure
        else:
            outcome["pending"] = True
            missing.setdefault(str(a.pk), []).append(str(b.pk))
        outcomes.append(outcome)
    tested = [o for o in outcomes if "p_value" in o]
    if not missing:
        for outcome, adjusted in zip(tested, holm_adjust([o["p_value"] for o in tested]), strict=True):
            outcome["p_adjusted"] = adjusted
            outcome["significant"] = adjusted < ALPHA
    for a_id, b_ids in missing.items():
        enqueue_compare_tests(spec.key, a_id, b_ids)
    return outcomes


@shared_task(acks_late=True, ignore_result=True)
def run_compare_tests(direction: str, a_id: str, b_ids: list[str]) -> int:
    """The compare page's missing bootstraps of A against each B (stored in ``PairTest``), in a worker."""
    return run_tests(direction, a_id, b_ids)


def enqueue_compare_tests(direction: str, a_id: str, b_ids: list[str]) -> None:
    """Send ``run_compare_tests`` after the request's transaction (the page never computes a test)."""

    def send() -> None:
        try:
            run_compare_tests.delay(direction, a_id, b_ids)
        except Exception:  # the page keeps saying "pending"; the next visit tries again
            log.exception("could not enqueue the compare tests of %s", a_id)

    transaction.on_commit(send)


def run_tests(direction: str, a_id, b_ids: list) -> int:
    """Compute and store the bootstraps of A against each B (the worker's side of ``significance``)."""
    a = Submission.objects.select_related("phase").filter(pk=a_id).first()
    if a is None:
        return 0
    spec = direction_spec(a.phase.task, direction)
    aligner = Aligner(a.phase, spec)
    done = 0
    for b in Submission.objects.filter(pk__in=b_ids, phase=a.phase):
        try:
            pair_test(spec, a, b, aligner=aligner)
            done += 1
        except TruthMissing:
            django_cache.set(failure_key(a.pk, b.pk, spec.metric), "the task's truth file is not available", 3600)
        except (scoring.ScoringError, OSError, ValueError) as error:
            log.warning("compare: bootstrap %s vs %s failed: %s", a.pk, b.pk, error)
            django_cache.set(failure_key(a.pk, b.pk, spec.metric), f"the test could not be run ({error})", 3600)
    return done


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
        "tests_pending": any(t.get("pending") for t in tests),
        "test_method": method_text(spec.significance, len(tests)),
        "test_correction": correction_text(len(tests)),
        "alpha": ALPHA,
    }
