"""Keeping a phase's boards current (in the worker, never per request).

Rows store sort keys, not ranks (``leaderboard.boards.placement``); pages and exports
rank in the database when they read (``leaderboard.boards.query``). So:

- ``update_board(phase, submission_id)``, run by ``tasks.update_boards`` after one
  submission was scored, hidden, shown, re-run or removed, rebuilds only that
  submission's team-and-method rows (public and private), keeps the counts by
  difference, extends the state of the art in place, and rewrites other rows'
  marks only when the public leader changed;
- ``recompute_phase(phase)`` rebuilds every board from scratch: the specification
  the update must always agree with (``tests/boards/test_board_incremental.py``),
  and what ``manage.py recompute_boards`` runs after a scorer-version change.

Both replace ``Board.version``, which makes every cached page of the phase stale.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime

from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

import scoring
from leaderboard.boards import cache, pinned
from leaderboard.boards.models import Board, BoardRow, carried_fields, row_metadata
from leaderboard.boards.placement import (
    Candidate,
    column_keys,
    direction_key,
    is_ranked,
    progression,
    representatives,
    tail_key,
)
from leaderboard.boards.present import warm
from leaderboard.boards.spec import DirectionSpec, declaration_tags, direction_spec, directions_for
from leaderboard.boards.verdicts import NO_STATISTIC, Inputs, Statistic, statistics
from leaderboard.challenges.models import Phase, Registration
from leaderboard.submissions.models import Result, Submission
from scoring.replicates import beyond_reach
from scoring.splits import PRIVATE, PUBLIC

log = logging.getLogger(__name__)


def _ranking_keys(specs: list[DirectionSpec]) -> set[str]:
    keys: set[str] = set()
    for spec in specs:
        keys.add(spec.metric)
        keys |= {key for key, _ in spec.tiebreak}
        if spread := spec.spread_key(spec.metric):
            keys.add(spread)
    return keys


_RANKING_FIELDS = (
    "id", "team_id", "team__name", "method_name", "created_at", "is_public", "is_baseline", "declarations",
    "is_verified",
)  # fmt: skip
# What a board row needs from a submission: ranking, then the method fields it exports or filters on.
SUBMISSION_FIELDS = _RANKING_FIELDS + tuple(
    f.column_name for f in carried_fields() if f.column_name not in _RANKING_FIELDS
)
# The submission columns of the filtered method fields (``spec.declaration_tags``).
_FILTERED_COLUMNS = tuple(f.column_name for f in carried_fields() if f.board_filter)


def _to_candidates(subs: list[dict], values: dict[str, dict[str, float]]) -> tuple[list[Candidate], dict[str, dict]]:
    candidates = []
    info = {}
    for s in subs:
        sid = str(s["id"])
        info[sid] = s
        candidates.append(
            Candidate(
                id=sid,
                team_id=s["team_id"],
                team_name=s["team__name"],
                method_name=s["method_name"],
                submitted_at=s["created_at"],
                is_public=s["is_public"],
                values=values.get(sid, {}),
            )
        )
    return candidates, info


def _candidates(phase: Phase, keys: set[str]) -> tuple[list[Candidate], dict[str, dict]]:
    subs = list(Submission.objects.on_boards().filter(phase=phase).values(*SUBMISSION_FIELDS))
    values = Result.objects.filter(submission__phase=phase, submission__status=Submission.Status.SCORED).by_submission(
        keys
    )
    return _to_candidates(subs, values)


def method_key(name: str) -> str:
    """The method half of a row's group (``Candidate.group``): no case, single spaces."""
    return " ".join(name.split()).casefold()


def _build_row(board: Board, spec: DirectionSpec, c: Candidate, s: dict, stat: Statistic = NO_STATISTIC) -> BoardRow:
    """A board row for representative ``c`` (its values include the display metrics) and its
    ``Statistic`` (interval and reach); no mark yet."""
    values = c.values
    spread_key = spec.spread_key(spec.metric)
    value = values.get(spec.metric)
    return BoardRow(
        board=board,
        submission_id=s["id"],
        team_id=c.team_id,
        team_name=c.team_name,
        method_name=c.method_name,
        method_key=method_key(c.method_name),
        submitted_at=c.submitted_at,
        is_public=c.is_public,
        is_baseline=s["is_baseline"],
        uses_external_data=s["uses_external_data"],
        paper_url=s["paper_url"],
        code_url=s["code_url"],
        declarations=s["declarations"] or {},
        metadata=row_metadata(s),
        tags=declaration_tags(
            spec.task,
            s["declarations"] or {},
            is_baseline=s["is_baseline"],
            is_verified=s["is_verified"],
            **{column: s[column] for column in _FILTERED_COLUMNS},
        ),
        quality=direction_key(spec, values),
        tail=tail_key(c.submitted_at, c.id),
        sort_keys=column_keys(spec, values),
        value=values.get(spec.metric),
        spread=values.get(spread_key) if spread_key else None,
        n_seeds=len(spec.task.seeds),
        metrics=values,
        low=stat.low,
        high=stat.high,
        reach=stat.reach,
        best_case=None if value is None or stat.reach is None else _normal(spec, value) + stat.reach,
    )


def _normal(spec: DirectionSpec, value: float) -> float:
    """A value in "higher is better" units (``BoardRow.best_case`` is stored in them)."""
    return value if spec.higher_is_better else -value


def _build_rows(board: Board, spec: DirectionSpec, reps: list[Candidate], info: dict) -> list[BoardRow]:
    """The rows of ``reps`` with their intervals and reaches (one query for a bootstrap view)."""
    stats = statistics(spec, [(c.id, c.values) for c in reps])
    return [_build_row(board, spec, c, info[c.id], stats[c.id]) for c in reps]


def _first(rows: Iterable[BoardRow]) -> BoardRow | None:
    """The public leader among ``rows``: the first public ranked row in (quality, tail) order."""
    ranked = [r for r in rows if r.is_public and is_ranked(r.quality)]
    return min(ranked, key=lambda r: (r.quality, r.tail), default=None)


def _leader_row(board: Board, exclude: Q | None = None) -> BoardRow | None:
    rows = BoardRow.objects.public().filter(board=board)
    if exclude is not None:
        rows = rows.exclude(exclude)
    found = rows.order_by("quality", "tail").only(*MARK_FIELDS)
    first = found.first()
    return first if first is not None and is_ranked(first.quality) else None


def _verdict(row: BoardRow, leader: BoardRow | None, inputs: Inputs | None) -> tuple[float | None, bool]:
    """(p-value against the public leader, "indistinguishable from the leader") of one row, by the rule.

    The leader is marked; an unranked row is not; a row with no public leader, or
    a private row placed above it, would lead and is marked. A row beyond reach of
    the leader is told apart without a test (``scoring.replicates.beyond_reach``);
    the others are tested (``verdicts.pair_outcome``), and a pair that cannot be
    tested is not marked.
    """
    if not is_ranked(row.quality) or row.value is None:
        return None, False
    if leader is None or str(row.submission_id) == str(leader.submission_id):
        return None, True
    if (row.quality, row.tail) < (leader.quality, leader.tail):
        return None, True
    assert leader.value is not None  # a ranked leader has a value
    if beyond_reach(leader.value, leader.reach, row.value, row.reach) or inputs is None:
        return None, False
    outcome = inputs.outcome(str(leader.submission_id), str(row.submission_id))
    if isinstance(outcome, str):
        return None, False
    return outcome.p_value, not outcome.significant


def _needs_test(row: BoardRow, leader: BoardRow | None) -> bool:
    return (
        leader is not None
        and row.value is not None
        and is_ranked(row.quality)
        and str(row.submission_id) != str(leader.submission_id)
        and (row.quality, row.tail) > (leader.quality, leader.tail)
        and not beyond_reach(leader.value or 0.0, leader.reach, row.value, row.reach)
    )


def _mark_rows(spec: DirectionSpec, rows: list[BoardRow], leader: BoardRow | None) -> list[BoardRow]:
    """Set every row's p-value and mark against ``leader``; returns the rows whose mark or p-value changed.

    Only rows within reach of the leader have their test inputs loaded (one query).
    """
    tested = [r for r in rows if _needs_test(r, leader)]
    inputs = None
    if tested and leader is not None:
        metrics = {str(r.submission_id): r.metrics for r in [leader, *tested]}
        inputs = Inputs(spec, metrics)
    changed = []
    for row in rows:
        p_value, tied = _verdict(row, leader, inputs)
        if (row.p_value, row.tied_with_leader) != (p_value, tied):
            row.p_value, row.tied_with_leader = p_value, tied
            changed.append(row)
    return changed


def _board_for(phase: Phase, spec: DirectionSpec, part: str = Board.Part.PUBLIC) -> Board:
    board, _ = Board.objects.get_or_create(
        phase=phase,
        direction=spec.key,
        part=part,
        defaults={"metric": spec.metric, "significance": spec.significance, "computed_at": timezone.now()},
    )
    board.metric = spec.metric
    board.higher_is_better = spec.higher_is_better
    board.tiebreak = [list(pair) for pair in spec.tiebreak]
    board.significance = spec.significance
    return board


def _public_activity(phase: Phase) -> tuple[int, datetime | None]:
    found = (
        Submission.objects.on_boards()
        .filter(phase=phase, is_public=True)
        .aggregate(n=Count("*"), last=Max("created_at"))
    )
    return found["n"], found["last"]


def _stamp(board: Board, leader: BoardRow | None) -> None:
    board.best_value = leader.value if leader is not None else None
    board.version = uuid.uuid4()
    board.computed_at = timezone.now()
    board.scoring_version = scoring.__version__


def _after_commit(phase: Phase, boards: list[Board], touched: set[str] | None = None) -> None:
    """After a board write, inside its transaction: the history, then cache and warm-up once it commits.

    ``touched``: the only submissions whose rows may have changed (the update's own and those a new
    leader re-marked), so the history compares just those; None compares every row.
    """
    # The history pinned views (?as_of=) read, in the same transaction as the rows.
    pinned.record(boards, only=touched)
    if phase.revealed_at is not None:
        # A score changed after the reveal (a re-run, a new truth, moderation): the private boards follow.
        private = build_private_boards(phase)
        pinned.record(private)
        boards = boards + private
    transaction.on_commit(cache.invalidate_summaries)
    transaction.on_commit(lambda: _warm(boards))


def recompute_phase(phase: Phase) -> list[Board]:
    """Rebuild every board of ``phase`` from scratch, marks included (from stored statistics only).

    The specification the incremental ``update_board`` must always agree with
    (a property test checks it), and what a scorer-version change runs
    (``manage.py recompute_boards``).
    """
    task = phase.task
    specs = [direction_spec(task, direction) for direction in directions_for(task)]
    boards = []
    with transaction.atomic():
        # Serialise rebuilds and updates of one phase (two workers finishing at once) on PostgreSQL. NO KEY
        # UPDATE: an upload inserting a submission of this phase (FOR KEY SHARE) is not blocked by it.
        Phase.objects.select_for_update(no_key=True).filter(pk=phase.pk).first()
        candidates, info = _candidates(phase, _ranking_keys(specs))
        stored = {key for spec in specs for key in spec.stored_keys()}
        public = [c for c in candidates if c.is_public]
        n_submissions = len(public)
        last_activity = max((c.submitted_at for c in public), default=None)
        for spec in specs:
            reps = representatives(spec, candidates, phase.board_mode, phase.ladder_threshold)
            board = _board_for(phase, spec)
            rep_ids = [c.id for c in reps]
            metrics = Result.objects.filter(submission_id__in=rep_ids).by_submission(stored) if rep_ids else {}
            reps = [replace(c, values={**c.values, **metrics.get(c.id, {})}) for c in reps]
            board.save()
            rows = _build_rows(board, spec, reps, info)
            leader = _first(rows)
            _mark_rows(spec, rows, leader)
            _stamp(board, leader)
            board.n_rows = sum(1 for r in rows if r.is_public)
            board.n_submissions = n_submissions
            board.last_activity = last_activity
            board.progression = progression(spec, public)
            board.save()
            BoardRow.objects.filter(board=board).delete()
            BoardRow.objects.bulk_create(rows, batch_size=500)
            boards.append(board)
        _after_commit(phase, boards)
    return boards


def _progression_after(spec: DirectionSpec, phase: Phase, steps: list[dict], changed: Candidate | None, sid: str):
    """The state of the art after one submission changed, recomputed from scratch only if it held a record."""
    if any(step["submission"] == sid for step in steps):
        public = Submission.objects.on_boards().filter(phase=phase, is_public=True)
        values = Result.objects.filter(submission__in=public).by_submission([spec.metric])
        candidates, _ = _to_candidates(list(public.values(*SUBMISSION_FIELDS)), values)
        return progression(spec, candidates)
    if changed is None or not changed.is_public or changed.values.get(spec.metric) is None:
        return steps
    # Records before the changed submission stay; it is a record if it beats the last of them,
    # and then later records stay only if they beat it.
    at = (changed.submitted_at, changed.id)
    before = [s for s in steps if (datetime.fromisoformat(s["date"]), s["submission"]) < at]
    after = [s for s in steps if (datetime.fromisoformat(s["date"]), s["submission"]) > at]
    value = changed.values[spec.metric]

    def beats(a: float, b: float) -> bool:
        return a > b if spec.higher_is_better else a < b

    if before and not beats(value, before[-1]["value"]):
        return steps
    return before + progression(spec, [changed]) + [s for s in after if beats(s["value"], value)]


def update_board(phase: Phase, submission_id) -> list[Board]:
    """Bring the phase's boards up to date after one submission changed (scored, hidden, shown, re-run).

    Work is proportional to what changed, not to the board: the submission's
    team-and-method rows (public and private) are rebuilt from that group's
    submissions; ranks are not stored, so no other row is written unless the
    public leader changed, when the marks of the rows within reach of the old or
    the new leader are recomputed (``_remark``). A deleted
    submission (no group to find) falls back to a full rebuild.
    """
    sub = Submission.objects.filter(pk=submission_id, phase=phase).values("team_id", "method_name").first()
    if sub is None:
        return recompute_phase(phase)
    sid = str(submission_id)
    key = method_key(sub["method_name"])
    task = phase.task
    specs = [direction_spec(task, direction) for direction in directions_for(task)]
    stored = _ranking_keys(specs) | {k for spec in specs for k in spec.stored_keys()}
    boards = []
    touched: set[str] = {sid}  # the submissions whose rows this update rewrote or re-marked
    with transaction.atomic():
        Phase.objects.select_for_update(no_key=True).filter(pk=phase.pk).first()
        group = Submission.objects.on_boards().filter(phase=phase, team_id=sub["team_id"])
        members = [m for m in group.values(*SUBMISSION_FIELDS) if method_key(m["method_name"]) == key]
        values = (
            Result.objects.filter(submission_id__in=[m["id"] for m in members]).by_submission(stored) if members else {}
        )
        candidates, info = _to_candidates(members, values)
        changed = next((c for c in candidates if c.id == sid), None)
        n_submissions, last_activity = _public_activity(phase)
        in_group = Q(team_id=sub["team_id"], method_key=key)
        for spec in specs:
            board = _board_for(phase, spec)
            old = _leader_row(board)
            reps = representatives(spec, candidates, phase.board_mode, phase.ladder_threshold)
            rows = _build_rows(board, spec, reps, info)
            others = _leader_row(board, exclude=in_group)
            leader = _first([*rows, *([others] if others else [])])
            moved = (old is None) != (leader is None) or (
                old is not None and leader is not None and _identity(old) != _identity(leader)
            )
            gone = list(BoardRow.objects.filter(board=board).filter(in_group).only(*MARK_FIELDS))
            touched |= {str(r.submission_id) for r in [*gone, *rows]}
            BoardRow.objects.filter(pk__in=[r.pk for r in gone]).delete()
            _mark_rows(spec, rows, leader)
            BoardRow.objects.bulk_create(rows)
            if moved:
                touched |= _remark(spec, board, leader, exclude=in_group)
            _stamp(board, leader)
            board.n_rows += sum(r.is_public for r in rows) - sum(r.is_public for r in gone)
            board.n_submissions = n_submissions
            board.last_activity = last_activity
            board.progression = _progression_after(spec, phase, board.progression, changed, sid)
            board.save()
            boards.append(board)
        _after_commit(phase, boards, touched)
    return boards


MARK_FIELDS = (
    "id", "submission_id", "is_public", "quality", "tail", "value", "reach", "best_case", "p_value", "tied_with_leader",
    "metrics",
)  # fmt: skip


def _identity(row: BoardRow) -> tuple:
    """What the marks of other rows depend on: which row leads, its value, its reach and its test inputs."""
    return (str(row.submission_id), row.quality, row.tail, row.value, row.reach, row.metrics)


# Slack on the band's database comparison; the exact test is ``beyond_reach`` in Python.
_BAND_SLACK = 1e-9


def _band(board: Board, spec: DirectionSpec, leader: BoardRow | None) -> Q:
    """The rows whose mark can differ from "not marked, no p-value" under ``leader``.

    Those are the rows marked or tested now (under the old leader), the rows above
    the leader (private ones that would lead), and the rows within reach of it:
    ``best_case`` (value plus reach, in higher-is-better units) at least the
    leader's value minus its reach. Every other row is beyond reach, so told
    apart without a test. Served by ``boardrow_band_idx`` and ``boardrow_verdict_idx``.
    """
    now = Q(p_value__isnull=False) | Q(tied_with_leader=True)
    if leader is None:
        return Q()
    if leader.reach is None or leader.value is None:
        return Q()  # no bound for this leader: every row is tested
    floor = _normal(spec, leader.value) - leader.reach
    floor -= _BAND_SLACK * (1 + abs(floor))
    above = Q(quality__lt=leader.quality) | Q(quality=leader.quality, tail__lt=leader.tail)
    return now | above | Q(best_case__gte=floor)


def _remark(spec: DirectionSpec, board: Board, leader: BoardRow | None, exclude: Q) -> set[str]:
    """Recompute the marks that a new leader can change (``_band``); returns the submissions of the rows rewritten.

    The work grows with the rows near the top of the board, not with the board.
    """
    rows = list(
        BoardRow.objects.filter(board=board).filter(_band(board, spec, leader)).exclude(exclude).only(*MARK_FIELDS)
    )
    dirty = _mark_rows(spec, rows, leader)
    BoardRow.objects.bulk_update(dirty, ["p_value", "tied_with_leader"], batch_size=1000)
    return {str(r.submission_id) for r in dirty}


# --- private boards (after the reveal, ``leaderboard.boards.reveal``) ---------------------------------


def disqualified_teams(phase: Phase) -> set[int]:
    return set(
        Registration.objects.filter(
            challenge_id=phase.challenge_id, status=Registration.Status.DISQUALIFIED
        ).values_list("team_id", flat=True)
    )


def _public_team_ranks(phase: Phase, direction: str) -> dict[int, int]:
    """{team id: its best dense rank on the public board of ``direction``}, as the public board shows it."""
    board = Board.objects.public().filter(phase=phase, direction=direction).first()
    if board is None:
        return {}
    ranks: dict[int, int] = {}
    rank, last = 0, None
    for team_id, quality in (
        BoardRow.objects.public()
        .ranked()
        .filter(board=board)
        .order_by("quality", "tail")
        .values_list("team_id", "quality")
        .iterator(chunk_size=5000)
    ):
        if quality != last:
            rank, last = rank + 1, quality
        ranks.setdefault(team_id, rank)
    return ranks


def build_private_boards(phase: Phase) -> list[Board]:
    """(Re)build the phase's private boards from its final submissions' private results; call inside a transaction.

    One row per team: the best of its final submissions on the private part
    (ties by the board's tie-breaks, then the earlier submission). Rows are
    public on this board (a final submission enters the ranking that decides
    the challenge, under its method name). No significance test is run on
    private rows: the board carries no "indistinguishable" marks but the leader's.
    """
    if phase.split_spec is None:
        return []
    task = phase.task
    specs = [direction_spec(task, direction) for direction in directions_for(task)]
    chosen = Submission.objects.on_boards().filter(phase=phase).exclude(final_by="")
    finals = list(chosen.values(*SUBMISSION_FIELDS))
    excluded = disqualified_teams(phase)
    finals = [s for s in finals if s["team_id"] not in excluded]
    ids = [s["id"] for s in finals]
    stored = _ranking_keys(specs) | {key for spec in specs for key in spec.stored_keys()}
    private_values = Result.objects.filter(submission_id__in=ids).by_submission(stored, part=PRIVATE) if ids else {}
    public_values = (
        Result.objects.filter(submission_id__in=ids).by_submission([s.metric for s in specs], part=PUBLIC)
        if ids
        else {}
    )
    candidates, info = _to_candidates(finals, private_values)
    candidates = [replace(c, is_public=True) for c in candidates]
    boards = []
    for spec in specs:
        board, _ = Board.objects.get_or_create(
            phase=phase,
            direction=spec.key,
            part=Board.Part.PRIVATE,
            defaults={"metric": spec.metric, "significance": spec.significance, "computed_at": timezone.now()},
        )
        board.metric = spec.metric
        board.higher_is_better = spec.higher_is_better
        board.tiebreak = [list(pair) for pair in spec.tiebreak]
        board.significance = spec.significance
        # One row per team: group on the team alone (the method name is the same for every candidate here).
        by_id = {c.id: c for c in candidates}
        best = representatives(spec, [replace(c, method_name="") for c in candidates])
        reps = [by_id[c.id] for c in best]
        team_ranks = _public_team_ranks(phase, spec.key)
        rows = []
        # Replicates cover the public rows only: a private board's intervals are the seed views' alone.
        private_stats = (
            statistics(spec, [(c.id, c.values) for c in reps])
            if spec.significance == "seeds"
            else {c.id: NO_STATISTIC for c in reps}
        )
        for c in reps:
            row = _build_row(board, spec, c, {**info[c.id], "is_public": True}, private_stats[c.id])
            row.is_public = True
            row.public_rank = team_ranks.get(c.team_id)
            row.public_value = public_values.get(c.id, {}).get(spec.metric)
            rows.append(row)
        leader = _first(rows)
        for row in rows:
            row.p_value = None
            row.tied_with_leader = leader is not None and row.submission_id == leader.submission_id
        _stamp(board, leader)
        board.n_rows = len(rows)
        board.n_submissions = len(finals)
        board.last_activity = max((c.submitted_at for c in candidates), default=None)
        board.progression = []
        board.save()
        BoardRow.objects.filter(board=board).delete()
        BoardRow.objects.bulk_create(rows, batch_size=500)
        boards.append(board)
    return boards


def _warm(boards: list[Board]) -> None:
    """Pre-build the default view of each board so the first visitor after a score gets a cached page."""
    for board in boards:
        try:
            warm(board)
        except Exception:  # a cold cache is slower, never wrong: do not fail the scoring job for it
            log.exception("could not warm the cache of board %s", board.pk)
