"""Turn aligned containers into numbers: the metrics of every hosted benchmark.

``compute(task, aligned)`` is the single entry point; it dispatches on
``task.kind``. Every definition is written up, with worked examples, in
docs/metrics.md. Values are fractions (0.52, not 52).
"""

from __future__ import annotations

from scoring.aligned import (
    Aligned,
    ClassificationAligned,
    MetricsResult,
    MudiAligned,
    PairAligned,
    RegressionAligned,
)
from scoring.metrics import chemicalx, imdrug, mudi
from scoring.tasks import Task

# Bump the major version whenever a stored score could change.
SCORER_VERSION = "1.0.0"

_EXPECTED = {
    "mudi": MudiAligned,
    "classification": ClassificationAligned,
    "regression": RegressionAligned,
    "pair": PairAligned,
}


def compute(task: Task, aligned: Aligned) -> MetricsResult:
    """Score one aligned submission for ``task``.

    Raises ``TypeError`` when the container does not match the task's kind.
    """
    expected = _EXPECTED[task.kind]
    if not isinstance(aligned, expected):
        raise TypeError(f"task {task.slug} ({task.kind}) needs {expected.__name__}, got {type(aligned).__name__}")
    if task.kind == "mudi":
        return mudi.compute(aligned)
    if task.kind == "classification":
        return imdrug.compute_classification(aligned)
    if task.kind == "regression":
        return imdrug.compute_regression(aligned)
    return chemicalx.compute(aligned)


__all__ = ["SCORER_VERSION", "compute", "MetricsResult"]
