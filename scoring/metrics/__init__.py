"""Turn aligned containers into numbers: the metrics of every hosted benchmark.

``compute(task, aligned)`` is the single entry point; the task's kind
(``scoring.kinds``) says which module scores it. Every definition is written
up, with worked examples, in docs/metrics.md. Values are fractions (0.52, not 52).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scoring.aligned import Aligned, MetricsResult
from scoring.kinds.base import kind_of

if TYPE_CHECKING:
    from scoring.definitions import Task

# Bump the major version whenever a stored score could change, the minor one when scores gain keys
# or report sections (1.1.0: calibration curves, ImDrug long-tail groups, ChemicalX per-context
# AUROC columns, MUDI per-drug errors and drug-frequency buckets; 1.2.0: ChemicalX average
# precision beside the authors' AUPR); `manage.py rescore --task T --outdated` re-scores what an
# older version stored.
SCORER_VERSION = "1.2.0"


def compute(task: Task, aligned: Aligned) -> MetricsResult:
    """Score one aligned submission for ``task``.

    Raises ``TypeError`` when the container does not match the task's kind.
    """
    kind = kind_of(task)
    if not isinstance(aligned, kind.aligned):
        raise TypeError(f"task {task.slug} ({task.kind}) needs {kind.aligned.__name__}, got {type(aligned).__name__}")
    return kind.compute(aligned)


__all__ = ["SCORER_VERSION", "compute", "MetricsResult"]
