"""Ordering leaderboard entries, with dense ranks and a "tied with the leader" mark.

One pure function, ``rank``. The rule (also in docs/metrics.md):

1. Entries whose ranking metric is missing or NaN go last, unranked (rank
   None), never marked.
2. The rest are sorted by the metric in its direction, then by each tie-break
   metric in its own direction (a missing or NaN tie-break value sorts after
   every present one), then by earlier ``submitted_at``, then by ``id``. The
   order is total and deterministic.
3. Ranks are dense: two entries share a rank iff they are equal on the metric
   and on every tie-break metric (two missing values count as equal); the next
   distinct entry gets the next integer (1, 1, 2).
4. ``tied_with_leader``: the first entry is the leader and is always marked.
   In 'seeds' mode an entry is marked when its interval [mean - spread,
   mean + spread] overlaps the leader's (closed intervals; spread is the
   task's std or stderr; a missing or NaN spread counts as 0). In 'bootstrap' mode
   the entry's precomputed ``indistinguishable_from_leader`` is used (None
   counts as not marked). With no interval mode, only entries equal to the
   leader on the ranking metric are marked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

IntervalMode = Literal["seeds", "bootstrap"] | None


@dataclass(frozen=True)
class Entry:
    """One scored submission as the ranking sees it."""

    id: str | int
    submitted_at: datetime | float
    values: dict[str, float | None]
    spread: float | None  # std or stderr of the ranking metric over seeds
    n_seeds: int
    indistinguishable_from_leader: bool | None = None  # bootstrap verdict, single-seed tasks


@dataclass(frozen=True)
class Ranked:
    """An entry with its place: ``position`` is 1-based in the total order."""

    entry: Entry
    rank: int | None
    position: int
    tied_with_leader: bool


def _value(entry: Entry, key: str) -> float | None:
    value = entry.values.get(key)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def _sort_part(value: float | None, higher_is_better: bool) -> tuple[int, float]:
    """Missing values last; otherwise ascending in the "better first" direction."""
    if value is None:
        return (1, 0.0)
    return (0, -value if higher_is_better else value)


def _spread(entry: Entry) -> float:
    spread = entry.spread
    if spread is None or math.isnan(spread):
        return 0.0
    return abs(float(spread))


def _id_key(entry: Entry) -> tuple[int, int, str]:
    # Integer ids compare as numbers (9 before 10), anything else as text.
    if isinstance(entry.id, int):
        return (0, entry.id, "")
    return (1, 0, str(entry.id))


def _overlaps(entry: Entry, leader: Entry, metric: str) -> bool:
    mean, lead = _value(entry, metric), _value(leader, metric)
    if mean is None or lead is None:
        return False
    spread, lead_spread = _spread(entry), _spread(leader)
    return mean - spread <= lead + lead_spread and lead - lead_spread <= mean + spread


def rank(
    entries: Sequence[Entry],
    *,
    metric: str,
    higher_is_better: bool,
    tiebreak: Sequence[tuple[str, bool]] = (),
    interval_mode: IntervalMode = None,
) -> list[Ranked]:
    """Order ``entries`` for a leaderboard (see the module docstring for the exact rule).

    ``tiebreak`` is a sequence of (metric key, higher_is_better). All entries
    must use the same type for ``submitted_at`` (datetimes or floats).
    """
    if interval_mode not in ("seeds", "bootstrap", None):
        raise ValueError(f"unknown interval mode {interval_mode!r}")
    scored = [e for e in entries if _value(e, metric) is not None]
    unscored = [e for e in entries if _value(e, metric) is None]

    def quality(entry: Entry) -> tuple[tuple[int, float], ...]:
        parts = [_sort_part(_value(entry, metric), higher_is_better)]
        parts += [_sort_part(_value(entry, key), better) for key, better in tiebreak]
        return tuple(parts)

    scored.sort(key=lambda e: (quality(e), e.submitted_at, _id_key(e)))
    unscored.sort(key=lambda e: (e.submitted_at, _id_key(e)))

    result: list[Ranked] = []
    current_rank = 0
    previous = None
    leader = scored[0] if scored else None
    for position, entry in enumerate(scored, start=1):
        assert leader is not None  # scored is not empty here
        q = quality(entry)
        if q != previous:
            current_rank += 1
            previous = q
        if entry is leader:
            tied = True
        elif interval_mode == "seeds":
            tied = _overlaps(entry, leader, metric)
        elif interval_mode == "bootstrap":
            tied = bool(entry.indistinguishable_from_leader)
        else:
            tied = _value(entry, metric) == _value(leader, metric)
        result.append(Ranked(entry=entry, rank=current_rank, position=position, tied_with_leader=tied))
    for offset, entry in enumerate(unscored, start=len(scored) + 1):
        result.append(Ranked(entry=entry, rank=None, position=offset, tied_with_leader=False))
    return result
