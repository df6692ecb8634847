"""Ranking methods across a suite of tasks by mean normalised rank.

The rule, stated once: on one task, a method's entry has ``better`` entries
strictly better than it among the ``n`` ranked entries of that task's board; its
*normalised rank* is ``better / (n - 1)`` (0 = first, 1 = last; 0 when it is the
only entry). A method's suite score is the mean of its normalised ranks over the
suite's tasks it entered, and only those: a task it did not enter counts neither
for nor against it, and its coverage (tasks entered / tasks in the suite) is
reported beside the score. Methods are ordered by that mean (lower first), then
by coverage (more first), then by their key; methods with the same mean and
coverage share a rank. The percentile shown on a method's page is
``100 * (1 - normalised rank)``: the share of the other entries it ranks at
least level with.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


def normalised_rank(better: int, n: int) -> float:
    """``better / (n - 1)``: 0 for the first entry, 1 for the last, 0 when ``n`` is 1.

    >>> normalised_rank(0, 5), normalised_rank(4, 5), normalised_rank(0, 1)
    (0.0, 1.0, 0.0)
    """
    if n < 1 or not 0 <= better < n:
        raise ValueError(f"better={better} must be in 0..n-1 for n={n} entries")
    return better / (n - 1) if n > 1 else 0.0


def percentile(better: int, n: int) -> float:
    """``100 * (1 - normalised_rank)``: the share of the other entries an entry ranks at least level with."""
    return 100.0 * (1.0 - normalised_rank(better, n))


@dataclass(frozen=True)
class Placement:
    """Where one method's entry stands on one task: ``better`` entries ahead of it of ``n`` ranked."""

    task: str
    better: int
    n: int

    @property
    def normalised(self) -> float:
        return normalised_rank(self.better, self.n)


@dataclass(frozen=True)
class SuiteStanding(Generic[K]):
    """A method's line in a suite: its rank, mean normalised rank, and the tasks it entered."""

    key: K
    rank: int
    mean_normalised_rank: float
    entered: tuple[str, ...]  # the suite's tasks it entered, in the suite's order
    n_tasks: int  # tasks in the suite

    @property
    def coverage(self) -> float:
        return len(self.entered) / self.n_tasks


def rank_suite(placements: Mapping[K, Sequence[Placement]], tasks: Sequence[str]) -> list[SuiteStanding[K]]:
    """Every method with an entry on at least one of ``tasks``, best first (the module's rule).

    Placements on tasks outside the suite are ignored; a method with none inside is left out.
    """
    order = {task: i for i, task in enumerate(tasks)}
    lines = []
    for key, found in placements.items():
        inside = sorted((p for p in found if p.task in order), key=lambda p: order[p.task])
        if not inside:
            continue
        if len({p.task for p in inside}) != len(inside):
            raise ValueError(f"method {key!r} has two placements on one task")
        mean = sum(p.normalised for p in inside) / len(inside)
        # Rounded so that equal means reached by different sums of fractions tie.
        lines.append((round(mean, 12), -len(inside), str(key), key, tuple(p.task for p in inside)))
    lines.sort(key=lambda line: line[:3])
    out: list[SuiteStanding[K]] = []
    for i, (mean, minus_covered, _, key, entered) in enumerate(lines):
        tied = i > 0 and lines[i - 1][:2] == (mean, minus_covered)
        rank = out[-1].rank if tied else i + 1
        out.append(SuiteStanding(key, rank, mean, entered, len(tasks)))
    return out
