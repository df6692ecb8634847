"""The public entry points: load a truth once, align and score any number of predictions.

The web site caches ``load_truth``'s result per task and calls ``score_files``
(or ``align`` then ``scoring.metrics.compute``) for each upload.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from scoring.aligned import Aligned
from scoring.errors import fail
from scoring.metrics import SCORER_VERSION, compute
from scoring.readers import Limits, Source, Table
from scoring.registry import TASKS, Task, get_task
from scoring.validation import (
    Truth,
    align_table,
    check_truth_task,
    read_prediction,
    read_truth,
    read_truth_and_prediction,
)


@dataclass(frozen=True)
class Score:
    """The result of scoring one prediction file.

    ``primary_value`` is None when the primary metric could not be computed
    (e.g. AUROC from hard labels). ``n_rows`` counts the prediction rows.
    """

    task: str
    primary: str
    primary_value: float | None
    metrics: dict[str, float]
    report: dict[str, Any]
    n_rows: int
    scorer_version: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field."""
        return asdict(self)


def resolve_task(task: str | Task) -> Task:
    """The Task for a slug (or the Task itself); ScoringError listing the slugs if unknown."""
    if isinstance(task, Task):
        return task
    try:
        return get_task(task)
    except KeyError:
        raise fail(f"Unknown task {task!r}; valid tasks: {', '.join(TASKS)}.") from None


def _limits(limits: Limits | dict[str, Any] | None) -> Limits:
    if limits is None:
        return Limits()
    if isinstance(limits, Limits):
        return limits
    return Limits(**limits)


def load_truth(task: str | Task, truth: Source | Truth, *, limits: Limits | dict[str, Any] | None = None) -> Truth:
    """Parse and validate a truth file (path, bytes or binary file object) for ``task``.

    The result is immutable and can be reused for any number of predictions.
    A Truth passed in is returned unchanged. Raises ScoringError.
    """
    task = resolve_task(task)
    if isinstance(truth, Truth):
        return truth
    return read_truth(task, truth, _limits(limits))


def validate_truth(task: str | Task, path: Source, *, limits: Limits | dict[str, Any] | None = None) -> Truth:
    """Check an organizer's truth file before import; returns the parsed Truth or raises ScoringError."""
    return load_truth(task, path, limits=limits)


def _read_both(task: Task, truth: Source | Truth, pred: Source, limits: Limits) -> tuple[Truth, Table]:
    """The parsed truth and the parsed prediction rows; a truth source is parsed alongside the prediction."""
    if isinstance(truth, Truth):
        check_truth_task(task, truth)  # before the (possibly large) prediction is read
        return truth, read_prediction(task, pred, limits)
    return read_truth_and_prediction(task, truth, pred, limits)


def align(
    task: str | Task, truth: Source | Truth, pred: Source, *, limits: Limits | dict[str, Any] | None = None
) -> Aligned:
    """Validate a prediction file against the truth and return the aligned container for the metrics.

    ``limits`` cap the prediction file; the truth (trusted, organizer-supplied) is read with the defaults.
    """
    return align_counted(task, truth, pred, limits=limits)[0]


def align_counted(
    task: str | Task, truth: Source | Truth, pred: Source, *, limits: Limits | dict[str, Any] | None = None
) -> tuple[Aligned, int]:
    """``align``, with the number of prediction rows (what ``score_aligned`` reports)."""
    task = resolve_task(task)
    parsed, table = _read_both(task, truth, pred, _limits(limits))
    return align_table(task, parsed, table)


def score_files(
    task: str | Task, truth: Source | Truth, pred: Source, *, limits: Limits | dict[str, Any] | None = None
) -> Score:
    """Read, validate, align and score a prediction file. Raises ScoringError on invalid input.

    ``truth`` is a source or a Truth from ``load_truth`` (cache it to score many files);
    ``limits`` (a Limits or a dict of its fields) cap the prediction file.
    """
    task = resolve_task(task)
    aligned, n_rows = align_counted(task, truth, pred, limits=limits)
    return score_aligned(task, aligned, n_rows)


def score_aligned(task: Task, aligned: Aligned, n_rows: int) -> Score:
    """Compute the metrics of an aligned prediction (``n_rows`` prediction rows) as a Score.

    ``score_files`` ends here; ``scoring.splits`` calls it once per part of a split.
    """
    result = compute(task, aligned)
    return Score(
        task=task.slug,
        primary=task.primary,
        primary_value=result.metrics.get(task.primary),
        metrics=dict(result.metrics),
        report=result.report,
        n_rows=n_rows,
        scorer_version=SCORER_VERSION,
    )
