"""Glue between scored submissions and ``scoring.ranking.rank``: who gets a row, and where it goes.

Pure functions over plain data (no database), so every rule here is tested
directly. The order itself (direction, missing values last, tie-breaks, dense
ranks, the "indistinguishable from the leader" mark) is ``scoring.ranking.rank``;
this module decides what is ranked against what:

- rows: one per team and method, from the team's best (board mode "best") or
  latest ("latest") submission; public and private submissions never share a row;
- public rows are ranked among public rows only;
- a team's private rows are ranked against the public rows plus that team's
  other private rows, and keep the rank and position they would have there,
  so the public order never depends on (or reveals) private results.
"""

from __future__ import annotations

import struct
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from leaderboard.boards.spec import DirectionSpec
from scoring.ranking import Entry, IntervalMode, Ranked, rank

BEST = "best"
LATEST = "latest"


@dataclass(frozen=True)
class Candidate:
    """A scored submission with the result values the ranking needs."""

    id: str
    team_id: int
    team_name: str
    method_name: str
    submitted_at: datetime
    is_public: bool
    values: dict[str, float] = field(default_factory=dict)

    @property
    def group(self) -> tuple[int, str, bool]:
        # Method names are compared without case or surrounding spaces: "GNN" and "gnn " are one method.
        return (self.team_id, " ".join(self.method_name.split()).casefold(), self.is_public)


@dataclass(frozen=True)
class Place:
    """Where a row goes under one ordering."""

    rank: int | None
    position: int
    tied_with_leader: bool


def _entry(
    candidate: Candidate,
    metric: str,
    tiebreak: Sequence[tuple[str, bool]],
    spread_key: str | None,
    n_seeds: int,
    verdict: bool | None = None,
) -> Entry:
    keys = [metric, *(key for key, _ in tiebreak)]
    return Entry(
        id=candidate.id,
        submitted_at=candidate.submitted_at,
        values={key: candidate.values.get(key) for key in keys},
        spread=candidate.values.get(spread_key) if spread_key else None,
        n_seeds=n_seeds,
        indistinguishable_from_leader=verdict,
    )


def representatives(
    spec: DirectionSpec, candidates: Iterable[Candidate], mode: str = BEST, ladder: float | None = None
) -> list[Candidate]:
    """One candidate per (team, method, public or private): the best by the view's rule, or the latest.

    ``ladder`` (a phase's Ladder threshold, Blum and Hardt 2015) replaces both
    rules: the shown submission changes only when a later one beats it by more
    than ``ladder`` on the view's metric (``ladder_choice``).
    """
    groups: dict[tuple, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        groups[candidate.group].append(candidate)
    chosen = []
    for members in groups.values():
        if ladder is not None:
            chosen.append(ladder_choice(spec, members, ladder))
            continue
        if len(members) == 1:
            chosen.append(members[0])
            continue
        if mode == LATEST:
            chosen.append(max(members, key=lambda c: (c.submitted_at, c.id)))
            continue
        by_id = {c.id: c for c in members}
        entries = [_entry(c, spec.metric, spec.tiebreak, None, 1) for c in members]
        best = rank(entries, metric=spec.metric, higher_is_better=spec.higher_is_better, tiebreak=spec.tiebreak)
        chosen.append(by_id[str(best[0].entry.id)])
    return chosen


def ladder_choice(spec: DirectionSpec, members: Sequence[Candidate], threshold: float) -> Candidate:
    """The Ladder's shown submission of one group (Blum and Hardt 2015, "The Ladder").

    In submission order, the first one with a value is shown; a later one
    replaces it only if it beats the shown value by more than ``threshold``
    (in the metric's direction). Small gains, which on a public split are
    mostly noise a team can fit by probing, never move the shown score.
    A group without any value shows its earliest submission (unranked).
    """
    ordered = sorted(members, key=lambda c: (c.submitted_at, c.id))
    shown: Candidate | None = None
    for c in ordered:
        value = c.values.get(spec.metric)
        if value is None or value != value:
            continue
        if shown is None:
            shown = c
            continue
        best = shown.values[spec.metric]
        gain = value - best if spec.higher_is_better else best - value
        if gain > threshold:
            shown = c
    return shown if shown is not None else ordered[0]


def place(
    rows: Sequence[Candidate],
    *,
    metric: str,
    higher_is_better: bool,
    tiebreak: Sequence[tuple[str, bool]] = (),
    interval_mode: IntervalMode = None,
    spread_key: str | None = None,
    n_seeds: int = 1,
    verdicts: dict[str, bool | None] | None = None,
) -> dict[str, Place]:
    """Rank public rows among themselves and each team's private rows against them.

    A private row gets the rank it would have among the public rows plus its
    own team's private rows, and position 1 + the number of public rows ranked
    above it, so ordering by (position, public last) interleaves a team's
    private rows at the places they would take. Its mark compares it with the
    public leader only. ``verdicts`` (bootstrap mode) maps a row id to
    "indistinguishable from the public leader".
    """
    verdicts = verdicts or {}

    def order(entries: Sequence[Entry], mode: IntervalMode = None) -> list[Ranked]:
        return rank(entries, metric=metric, higher_is_better=higher_is_better, tiebreak=tiebreak, interval_mode=mode)

    entries = {c.id: _entry(c, metric, tiebreak, spread_key, n_seeds, verdicts.get(c.id)) for c in rows}
    public = [entries[c.id] for c in rows if c.is_public]
    places: dict[str, Place] = {}
    public_ranked = order(public, interval_mode)
    for ranked in public_ranked:
        places[str(ranked.entry.id)] = Place(ranked.rank, ranked.position, ranked.tied_with_leader)
    private = {c.id: c for c in rows if not c.is_public}
    if not private:
        return places
    leader_entry = public_ranked[0].entry if public_ranked and public_ranked[0].rank is not None else None
    # One ranking of everything gives every private row's neighbours; ranks are then
    # recounted over what its team sees (public rows and its own private rows).
    combined = order(list(entries.values()))
    public_ids = {e.id for e in public}
    public_ranks = sorted({r.rank for r in combined if r.entry.id in public_ids and r.rank is not None})
    public_rank_set = set(public_ranks)
    team_ranks: dict[int, set[int]] = defaultdict(set)
    for r in combined:
        if r.entry.id in private and r.rank is not None:
            team_ranks[private[str(r.entry.id)].team_id].add(r.rank)
    public_above = 0
    for r in combined:
        if r.entry.id in public_ids:
            public_above += 1
            continue
        candidate = private[str(r.entry.id)]
        if r.rank is None:
            places[candidate.id] = Place(None, public_above + 1, False)
            continue
        better = bisect_left(public_ranks, r.rank)
        better += sum(1 for x in team_ranks[candidate.team_id] if x < r.rank and x not in public_rank_set)
        if interval_mode is None:
            tied = False  # column sorts carry no mark
        elif leader_entry is None:
            tied = True  # no public leader: this row would lead
        else:
            pair = order([leader_entry, r.entry], interval_mode)
            tied = next(p.tied_with_leader for p in pair if p.entry is r.entry)
        places[candidate.id] = Place(better + 1, public_above + 1, tied)
    return places


def place_for_direction(spec: DirectionSpec, rows: Sequence[Candidate]) -> dict[str, Place]:
    """Places under the view's ranking metric (ranks only: the marks are the board's rule, ``recompute._verdict``)."""
    return place(
        rows,
        metric=spec.metric,
        higher_is_better=spec.higher_is_better,
        tiebreak=spec.tiebreak,
        spread_key=spec.spread_key(spec.metric),
        n_seeds=len(spec.task.seeds),
    )


def column_tiebreak(spec: DirectionSpec, key: str) -> tuple[tuple[str, bool], ...]:
    """Sorting by a column breaks its ties by the view's ranking metric, then the view's tie-breaks."""
    chain = [(spec.metric, spec.higher_is_better), *spec.tiebreak]
    return tuple((k, better) for k, better in chain if k != key)


def place_by_columns(spec: DirectionSpec, rows: Sequence[Candidate]) -> dict[str, dict[str, Place]]:
    """{column key: {row id: Place}} for every sortable column except the ranking metric."""
    out = {}
    for column in spec.sortable:
        if column.key == spec.metric:
            continue
        out[column.key] = place(
            rows,
            metric=column.key,
            higher_is_better=column.higher_is_better,
            tiebreak=column_tiebreak(spec, column.key),
        )
    return out


def leader(spec: DirectionSpec, rows: Sequence[Candidate]) -> Candidate | None:
    """The public row ranked first under the view's metric, or None if no public row has a value."""
    places = place(
        [c for c in rows if c.is_public],
        metric=spec.metric,
        higher_is_better=spec.higher_is_better,
        tiebreak=spec.tiebreak,
    )
    for c in rows:
        p = places.get(c.id)
        if p is not None and p.position == 1 and p.rank is not None:
            return c
    return None


def progression(spec: DirectionSpec, candidates: Iterable[Candidate]) -> list[dict]:
    """The state of the art over time: every public submission that beat all earlier ones.

    Ties do not count as progress; the earlier submission keeps the record.
    """
    steps: list[dict] = []
    best: float | None = None
    public = sorted((c for c in candidates if c.is_public), key=lambda c: (c.submitted_at, c.id))
    for c in public:
        value = c.values.get(spec.metric)
        if value is None or value != value:  # NaN never sets a record
            continue
        better = best is None or (value > best if spec.higher_is_better else value < best)
        if better:
            best = value
            steps.append(
                {
                    "date": c.submitted_at.isoformat(),
                    "value": value,
                    "submission": c.id,
                    "team": c.team_name,
                    "method": c.method_name,
                }
            )
    return steps


# --- sort keys: the same order as ``scoring.ranking.rank``, as strings the database can sort -------
#
# A board row stores, per ordering, its "quality" key (the ranking metric and the
# tie-breaks, each in its own direction, missing last) and one "tail" (submission
# date, then id). Comparing (quality, tail) as strings is exactly the total order of
# ``scoring.ranking.rank``, and two rows share a dense rank iff their quality keys
# are equal, so the database ranks with DENSE_RANK()/ROW_NUMBER() over an index and
# a new score never rewrites the places of the rows it passes.

MISSING_PART = "1" + "0" * 16
_SIGN = 1 << 63
_MASK = (1 << 64) - 1


def _float_part(value: float | None, higher_is_better: bool) -> str:
    """17 characters: "1..." for a missing (or NaN) value, else "0" + 16 hex digits ascending "better first"."""
    if value is None or value != value:
        return MISSING_PART
    x = (-float(value) if higher_is_better else float(value)) + 0.0  # + 0.0 turns -0.0 into 0.0
    bits = struct.unpack(">Q", struct.pack(">d", x))[0]
    bits = (~bits & _MASK) if bits & _SIGN else (bits | _SIGN)
    return f"0{bits:016x}"


def quality_key(values: dict, metric: str, higher_is_better: bool, tiebreak: Sequence[tuple[str, bool]] = ()) -> str:
    """The sortable key of (metric, tie-breaks); starts with "1" exactly when the metric is missing."""
    first = _float_part(values.get(metric), higher_is_better)
    if first == MISSING_PART:  # unranked rows are ordered by date and id alone
        return MISSING_PART * (1 + len(tiebreak))
    return first + "".join(_float_part(values.get(key), better) for key, better in tiebreak)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def tail_key(submitted_at: datetime, submission_id: str) -> str:
    """Earlier submission first, then the id as text (``scoring.ranking``'s last two tie-breaks)."""
    micros = (submitted_at - _EPOCH) // timedelta(microseconds=1)
    # A UUID's text without its dashes (all at fixed places) sorts like its text: hex digits only,
    # so every database collation orders these keys as Python does.
    return f"{micros:016x}{str(submission_id).replace('-', '')}"


def column_keys(spec: DirectionSpec, values: dict) -> dict[str, str]:
    """{column key: quality key} for every sortable column except the view's ranking metric."""
    return {
        column.key: quality_key(values, column.key, column.higher_is_better, column_tiebreak(spec, column.key))
        for column in spec.sortable
        if column.key != spec.metric
    }


def direction_key(spec: DirectionSpec, values: dict) -> str:
    return quality_key(values, spec.metric, spec.higher_is_better, spec.tiebreak)


def is_ranked(quality: str) -> bool:
    return not quality.startswith("1")
