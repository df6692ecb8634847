"""Turn truth and prediction files into the containers of ``scoring.aligned``, with validation.

One module per family (mudi, imdrug, chemicalx) and shared helpers; this
module only dispatches on ``Task.kind``. Every function raises ``ScoringError``
(and nothing else) for bad input.
"""

from __future__ import annotations

from scoring.aligned import Aligned
from scoring.errors import fail
from scoring.readers import Limits, Source, load_raw
from scoring.validation.chemicalx import align_pairs, load_pair_truth
from scoring.validation.common import Truth
from scoring.validation.imdrug import (
    align_classification,
    align_regression,
    load_classification_truth,
    load_regression_truth,
)
from scoring.validation.keyed import KeyedTruth
from scoring.validation.mudi import MudiTruth, align_mudi, load_mudi_truth

_TRUTH_LOADERS = {
    "mudi": load_mudi_truth,
    "classification": load_classification_truth,
    "regression": load_regression_truth,
    "pair": load_pair_truth,
}
_ALIGNERS = {
    "mudi": align_mudi,
    "classification": align_classification,
    "regression": align_regression,
    "pair": align_pairs,
}

__all__ = ["KeyedTruth", "MudiTruth", "Truth", "align_counted", "align_prediction", "read_truth"]


def read_truth(task, source: Source, limits: Limits | None = None) -> Truth:
    """Parse and validate a truth file for ``task``."""
    limits = limits or Limits()
    raw = load_raw(source, limits=limits, what="truth file")
    return _TRUTH_LOADERS[task.kind](task, raw, limits)


def align_prediction(task, truth: Truth, source: Source, limits: Limits | None = None) -> Aligned:
    """Validate a prediction file against a parsed truth and align it row by row."""
    return align_counted(task, truth, source, limits)[0]


def align_counted(task, truth: Truth, source: Source, limits: Limits | None = None) -> tuple[Aligned, int]:
    """``align_prediction`` plus the number of data rows in the prediction file."""
    if truth.task != task.slug:
        raise fail(f"The truth was loaded for task {truth.task!r}, not {task.slug!r}.")
    limits = limits or Limits()
    raw = load_raw(source, limits=limits, what="prediction file")
    return _ALIGNERS[task.kind](task, truth, raw, limits)
