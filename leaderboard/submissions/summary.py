"""Shapes of a submission for pages and JSON: headline metrics, the status payload, its method fields."""

from __future__ import annotations

from collections.abc import Iterable

from leaderboard.submissions.models import ReplicateSet, Result, Submission
from scoring import keys as result_keys
from scoring import replicates as stats
from scoring import submission_fields
from scoring.splits import ALL, PRIVATE, PUBLIC
from scoring.submission_fields import SubmissionField


def overall_results(submission: Submission, part: str = PUBLIC) -> dict[str, float]:
    """Results that are not per seed, keyed as scoring names them (of the public test rows unless asked)."""
    rows = Result.objects.filter(submission=submission).overall()
    return rows.by_submission(part=part).get(str(submission.pk), {})


# The parts a split phase's submission page adds after the reveal (or for organizers), in page order.
REVEALED_PARTS = ((PRIVATE, "the private test rows"), (ALL, "all test rows"))


def revealed_parts(submission: Submission, may_see_private: bool) -> list[dict]:
    """The private and all-rows headline tables of a scored split-phase submission, when they may be shown."""
    phase = submission.phase
    if phase.split_spec is None or submission.status != Submission.Status.SCORED or not may_see_private:
        return []
    out = []
    for part, label in REVEALED_PARTS:
        results = overall_results(submission, part)
        out.append({"part": part, "label": label, "headline": headline_metrics(submission, results)})
    return out


def primary_interval(submission: Submission, results: dict[str, float]) -> tuple[float, float] | None:
    """The 95% interval of the primary metric, from stored numbers: the bootstrap percentile interval of the
    stored replicates (single-seed tasks) or the t-interval over the per-seed values (multi-seed tasks)."""
    task = submission.phase.task
    if stats.uses_bootstrap(task):
        found = (
            ReplicateSet.objects.filter(submission=submission, metric=task.primary, version=stats.REPLICATES_VERSION)
            .values_list("low", "high")
            .first()
        )
        if found is None or found[0] is None or found[1] is None:
            return None
        return float(found[0]), float(found[1])
    values = [results.get(result_keys.seed_key(seed, task.primary)) for seed in task.seeds]
    if any(v is None for v in values):
        return None
    return stats.seed_interval([float(v) for v in values if v is not None])


def headline_metrics(submission: Submission, results: dict[str, float] | None = None) -> list[dict]:
    """The task's headline metrics in registry order, with the spread over seeds when the task has one."""
    task = submission.phase.task
    results = overall_results(submission) if results is None else results
    rows = []
    interval = primary_interval(submission, results) if task.primary in results else None
    for metric in task.metrics:
        spread = results.get(result_keys.spread_key(metric.key, task.spread)) if task.spread else None
        rows.append(
            {
                "key": metric.key,
                "name": metric.name,
                "value": results.get(metric.key),
                "spread": spread,
                "spread_kind": task.spread,
                "higher_is_better": metric.higher_is_better,
                "description": metric.description,
                "primary": metric.key == task.primary,
                "interval": list(interval) if interval and metric.key == task.primary else None,
            }
        )
    return rows


def status_payload(submission: Submission) -> dict:
    """What /submissions/<id>/status.json returns (the live page and scripts read it)."""
    task = submission.phase.task
    scored = submission.status == Submission.Status.SCORED
    results = overall_results(submission) if scored else {}
    primary = task.metric(task.primary)
    report = submission.report or {}
    failed_invalid = submission.error_kind == Submission.ErrorKind.INVALID
    headline = headline_metrics(submission, results) if scored else []
    return {
        "id": str(submission.pk),
        "status": submission.status,
        "status_display": submission.get_status_display(),
        "error": submission.error_message or None,
        "error_kind": submission.error_kind or None,
        "problems": report.get("errors", []) if failed_invalid else [],
        "problem_count": report.get("error_count", 0) if failed_invalid else 0,
        "primary": {
            "key": primary.key,
            "name": primary.name,
            "value": submission.primary_value if scored else None,
            # The 95% interval (``primary_interval``), [low, high]; None before scoring or without statistics.
            "interval": next((m["interval"] for m in headline if m["primary"]), None),
            "higher_is_better": primary.higher_is_better,
        },
        "metrics": results,
        "headline": headline,
        "queue_position": submission.queue_position(),
        "scorer_version": submission.scorer_version or None,
        "created_at": submission.created_at.isoformat() if submission.created_at else None,
        "started_at": submission.started_at.isoformat() if submission.started_at else None,
        "finished_at": submission.finished_at.isoformat() if submission.finished_at else None,
        "url": submission.get_absolute_url(),
    }


def truth_size(phase) -> dict | None:
    """The loaded test set's size for the format description, from the counts stored at truth import."""
    counts = phase.truth_counts or {}
    if not phase.has_truth or not counts.get("rows"):
        return None
    per_seed = list((counts.get("per_seed") or {}).values())
    return {
        "rows": counts["rows"],
        "n_splits": len(per_seed),
        "per_split_min": min(per_seed) if per_seed else None,
        "per_split_max": max(per_seed) if per_seed else None,
        "subsample": phase.truth_is_synthetic,
    }


def field_values(submission: Submission, fields: Iterable[SubmissionField] = submission_fields.FIELDS) -> dict:
    """The declared method fields by name, as the API shows them (``shown_value``)."""
    return {f.name: submission_fields.shown_value(f, getattr(submission, f.column_name)) for f in fields}


# The submission page's title already names the method.
TITLE_FIELD = "method_name"


def method_facts(submission: Submission, fields: Iterable[SubmissionField] = submission_fields.FIELDS) -> dict:
    """What the submission page says about the method: Markdown texts, then a list of labelled facts.

    A link that was not given is left out; anything else not given says so.
    """
    texts, facts = [], []
    for f in fields:
        if not f.describes_method or f.name == TITLE_FIELD:
            continue
        value = submission_fields.shown_value(f, getattr(submission, f.column_name))
        if f.kind == "markdown":
            if value:
                texts.append(value)
            continue
        if f.kind == "url" and not value:
            continue
        if f.kind == "flag":
            text = "yes" if value else "no"
        elif f.kind == "choice":
            text = f.label_of(str(value)) if value else ""
        elif f.kind == "count":
            text = "" if value is None else f"{value:,}"
        else:
            text = str(value)
        facts.append(
            {"id": f.name.replace("_", "-"), "label": f.label, "text": text or "not given",
             "url": value if f.kind == "url" else ""}
        )  # fmt: skip
    return {"texts": texts, "facts": facts}
