"""Turn truth and prediction files into the containers of ``scoring.aligned``, with validation.

One module per family (mudi, imdrug, chemicalx) and shared helpers; this
module asks the task's kind (``scoring.kinds``) which of them to use. Every function raises ``ScoringError``
(and nothing else) for bad input.

A prediction file is handled in two steps: ``read_prediction`` checks its
columns and parses its rows without the truth, then ``align_table`` matches the
rows to a parsed truth. The split lets ``read_truth_and_prediction`` parse the
two files at the same time.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from scoring.aligned import Aligned
from scoring.errors import fail
from scoring.kinds.base import Kind, kind_of
from scoring.readers import Limits, Source, Table, load_raw
from scoring.validation.common import Truth
from scoring.validation.keyed import KeyedTruth
from scoring.validation.mudi import MudiTruth

if TYPE_CHECKING:
    from scoring.definitions import Task


def _kind(task: Task) -> Kind:
    return kind_of(task)


__all__ = [
    "KeyedTruth",
    "MudiTruth",
    "Truth",
    "align_table",
    "check_truth_task",
    "read_prediction",
    "read_truth",
    "read_truth_and_prediction",
]


def read_truth(task: Task, source: Source, limits: Limits | None = None) -> Truth:
    """Parse and validate a truth file for ``task``."""
    limits = limits or Limits()
    raw = load_raw(source, limits=limits, what="truth file")
    return _kind(task).load_truth(task, raw, limits)


def read_prediction(task: Task, source: Source, limits: Limits | None = None) -> Table:
    """Check a prediction file's columns and parse its rows for ``task``; the truth is not needed."""
    limits = limits or Limits()
    raw = load_raw(source, limits=limits, what="prediction file")
    return _kind(task).read_prediction(task, raw, limits)


def read_truth_and_prediction(
    task: Task, truth: Source, prediction: Source, limits: Limits | None = None
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


def check_truth_task(task: Task, truth: Truth) -> None:
    """Raise ScoringError when ``truth`` was loaded for another task."""
    if truth.task != task.slug:
        raise fail(f"The truth was loaded for task {truth.task!r}, not {task.slug!r}.")


def align_table(task: Task, truth: Truth, table: Table) -> tuple[Aligned, int]:
    """Match a parsed prediction (``read_prediction``) to a parsed truth; also returns its row count."""
    check_truth_task(task, truth)
    return _kind(task).align(task, truth, table)
