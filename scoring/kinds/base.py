"""What a benchmark kind is: everything about scoring that differs between kinds.

A ``Kind`` bundles how a task of that kind reads and validates its files, how
it is scored and resampled, which result keys it emits beyond the generic
ones, and the settings its score is read in. What the site shows for it is
the site's own business (``leaderboard.kinds``). Every caller asks
``kind_of(task)`` once instead of branching on ``task.kind``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from scoring.keys import MetricDef

if TYPE_CHECKING:
    from scoring.aligned import Aligned, MetricsResult
    from scoring.readers import Limits, RawFile, Table
    from scoring.validation.common import Truth

# (task, a, b, n_resamples, seed) -> ((observed a, observed b), resampled sums of a, of b, units averaged);
# a and b are the kind's own aligned type.
Resampler = Callable[..., "tuple[tuple[float, float], np.ndarray, np.ndarray, int]"]


# The task a kind's functions take is a ``scoring.definitions.Task``; it is written
# ``Any`` here because the definitions import this module (the kinds sit below them).
Task = Any


class _HasKind(Protocol):
    @property
    def kind(self) -> str: ...


def _no_derived(task: Task, key: str) -> MetricDef | None:
    return None


def _no_checks(metrics: dict[str, float]) -> list[str]:
    return []


def _no_classes(task: Task, setting: str | None) -> tuple[tuple[str, str], ...]:
    return ()


def _primary_only(task: Task) -> tuple[str, ...]:
    return (task.primary,)


def classes_in_turn(task: Task, n: int) -> np.ndarray:
    """``n`` placeholder labels: the task's classes in turn (zeros for a task without classes: numeric labels)."""
    if not task.classes:
        return np.zeros(n)
    return np.asarray(task.classes, dtype=object)[np.arange(n) % len(task.classes)]


# The file rules of a kind whose files give one prediction per test key (per seed where there are seeds).
KEYED_RULES = (
    "Give one prediction for every key of the test inputs file (on every seed it lists, where there are seeds); "
    "the example file has exactly these keys.",
    "A file that leaves a key out, repeats one or adds one that is not in the test set is refused, with the lines "
    "to fix; a refused file costs no quota.",
)


@dataclass(frozen=True)
class Kind:
    """One kind of benchmark (``Task.kind`` names it).

    ``load_truth``, ``read_prediction`` and ``align`` turn files into the
    ``aligned`` container that ``compute`` scores. ``bootstrap`` resamples two
    aligned submissions for the paired test (None: the kind has none).
    ``derived_metric`` names the kind's own result keys that are not headline
    metrics. ``settings`` are the ways one score is read (MUDI's ``aware`` and
    ``agnostic``: a board view each; empty: one view). ``class_f1_keys`` gives
    (class name, result key) of the per-class F1 values for a setting.
    ``example_value`` is a constant prediction the kind accepts; ``extra_labels``
    are legal prediction labels beyond the scored classes; ``resample_unit``
    names what the bootstrap draws when it is not a test row; ``truth_from_triples`` says
    that a truth can be built from a labeled triples file; ``placeholder_labels``
    gives n legal truth labels for a stand-in truth built from test inputs.
    ``published_key`` resolves a metric name printed in a paper (with its
    setting) to a result key, "" when not comparable (None: the printed name
    must equal a metric's key or name); ``published_checks`` lists the paper's
    own definitions a published entry's values break. ``class_groups`` says that
    a truth may carry long-tailed class groups (``scoring.longtail``).
    ``ranking_metrics`` are the metrics the task's board views rank by.
    ``rules`` are the file rules the submit page states up front (plain sentences,
    `code` in backticks); the refusals of the validation say how to fix each.
    """

    name: str
    aligned: type
    load_truth: Callable[[Task, RawFile, Limits], Truth]
    read_prediction: Callable[[Task, RawFile, Limits], Table]
    align: Callable[[Task, Any, Table], tuple[Aligned, int]]
    compute: Callable[[Any], MetricsResult]
    example_value: Callable[[Task], object]
    bootstrap: Resampler | None = None
    derived_metric: Callable[[Task, str], MetricDef | None] = _no_derived
    settings: tuple[str, ...] = ()
    class_f1_keys: Callable[[Task, str | None], tuple[tuple[str, str], ...]] = _no_classes
    extra_labels: tuple[str, ...] = ()
    resample_unit: str = ""
    truth_from_triples: bool = False
    placeholder_labels: Callable[[Task, int], np.ndarray] = classes_in_turn
    published_key: Callable[[str, str], str] | None = None
    published_checks: Callable[[dict[str, float]], list[str]] = _no_checks
    class_groups: bool = False
    # The metrics a board of the task ranks by (one per setting): what stored replicates are kept for.
    ranking_metrics: Callable[[Task], tuple[str, ...]] = _primary_only
    rules: tuple[str, ...] = KEYED_RULES


KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    """Add ``kind`` to the registry (replacing one of the same name) and return it."""
    KINDS[kind.name] = kind
    return kind


def kind_of(task: _HasKind | str) -> Kind:
    """The Kind of a task (or of a kind name); ``KeyError`` listing the kinds when unknown."""
    name = task if isinstance(task, str) else task.kind
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"unknown kind {name!r}; valid kinds: {', '.join(KINDS)}") from None
