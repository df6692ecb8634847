"""Turn truth and prediction files into the containers of ``scoring.aligned``, with validation.

One module per family (mudi, imdrug, chemicalx) and shared helpers; this
module only dispatches on ``Task.kind``. Every function raises ``ScoringError``
(and nothing else) for bad input.

A prediction file is handled in two steps: ``read_prediction`` checks its
columns and parses its rows without the truth, then ``align_table`` matches the
rows to a parsed truth. The split lets ``read_truth_and_prediction`` parse the
two files at the same time.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from scoring.aligned import Aligned
from scoring.errors import fail
from scoring.readers import Limits, Source, Table, load_raw
from scoring.validation.chemicalx import align_pairs, load_pair_truth, read_pair_prediction
from scoring.validation.common import Truth
from scoring.validation.imdrug import (
    align_classification,
    align_regression,
    load_classification_truth,
    load_regression_truth,
    read_classification_prediction,
    read_regression_prediction,
)
from scoring.validation.keyed import KeyedTruth
from scoring.validation.mudi import MudiTruth, align_mudi, load_mudi_truth, read_mudi_prediction

_TRUTH_LOADERS = {
    "mudi": load_mudi_truth,
    "classification": load_classification_truth,
    "regression": load_regression_truth,
    "pair": load_pair_truth,
}
_PREDICTION_READERS = {
    "mudi": read_mudi_prediction,
    "classification": read_classification_prediction,
    "regression": read_regression_prediction,
    "pair": read_pair_prediction,
}
_ALIGNERS = {
    "mudi": align_mudi,
    "classification": align_classification,
    "regression": align_regression,
    "pair": align_pairs,
}

__all__ = [
    "KeyedTruth",
    "MudiTruth",
    "Truth",
    "align_counted",
    "align_prediction",
    "align_table",
    "check_truth_task",
    "read_prediction",
    "read_truth",
    "read_truth_and_prediction",
]


def read_truth(task, source: Source, limits: Limits | None = None) -> Truth:
    """Parse and validate a truth file for ``task``."""
    limits = limits or Limits()
    raw = load_raw(source, limits=limits, what="truth file")
    return _TRUTH_LOADERS[task.kind](task, raw, limits)


def read_prediction(task, source: Source, limits: Limits | None = None) -> Table:
    """Check a prediction file's columns and parse its rows for ``task``; the truth is not needed."""
    limits = limits or Limits()
    raw = load_raw(source, limits=limits, what="prediction file")
    return _PREDICTION_READERS[task.kind](task, raw, limits)


def read_truth_and_prediction(
    task, truth: Source, prediction: Source, limits: Limits | None = None
) -> tuple[Truth, Table]:
    """``read_truth`` (with default limits) and ``read_prediction`` (with ``limits``), run concurrently.

    pandas' C parser releases the GIL while it tokenises and converts, so on a
    machine with two cores the two files are parsed largely in parallel. Errors
    come out as if the files were read in turn: a bad truth is reported first.
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="scoring-truth") as pool:
        pending = pool.submit(read_truth, task, truth, Limits())
        try:
            table = read_prediction(task, prediction, limits)
        except BaseException:
            pending.result()  # raises the truth's error, if it has one, instead of the prediction's
            raise
        return pending.result(), table


def check_truth_task(task, truth: Truth) -> None:
    """Raise ScoringError when ``truth`` was loaded for another task."""
    if truth.task != task.slug:
        raise fail(f"The truth was loaded for task {truth.task!r}, not {task.slug!r}.")


def align_table(task, truth: Truth, table: Table) -> tuple[Aligned, int]:
    """Match a parsed prediction (``read_prediction``) to a parsed truth; also returns its row count."""
    check_truth_task(task, truth)
    return _ALIGNERS[task.kind](task, truth, table)


def align_prediction(task, truth: Truth, source: Source, limits: Limits | None = None) -> Aligned:
    """Validate a prediction file against a parsed truth and align it row by row."""
    return align_counted(task, truth, source, limits)[0]


def align_counted(task, truth: Truth, source: Source, limits: Limits | None = None) -> tuple[Aligned, int]:
    """``align_prediction`` plus the number of data rows in the prediction file."""
    check_truth_task(task, truth)
    return align_table(task, truth, read_prediction(task, source, limits))
