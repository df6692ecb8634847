"""Rebuild a phase's boards from its scored submissions (runs in the worker, never per request).

``recompute_phase`` reads every scored submission of a phase with the few
result values ranking needs, picks one row per team and method, ranks them
(``leaderboard.boards.placement``), loads the display metrics of the chosen rows
only, and replaces the phase's ``Board``/``BoardRow`` rows in one transaction.
A new ``Board.version`` makes every cached page of the phase stale.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import replace

from django.db import transaction
from django.utils import timezone

import scoring
from leaderboard.boards import cache
from leaderboard.boards.models import Board, BoardRow, PairTest
from leaderboard.boards.pair_tests import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from leaderboard.boards.placement import (
    Candidate,
    leader,
    place_by_columns,
    place_for_view,
    progression,
    representatives,
)
from leaderboard.boards.spec import ViewSpec, declaration_tags, view_spec, views_for
from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Result, Submission
from scoring.significance import ALPHA

log = logging.getLogger(__name__)


def _ranking_keys(specs: list[ViewSpec]) -> set[str]:
    keys: set[str] = set()
    for spec in specs:
        keys.add(spec.metric)
        keys |= {key for key, _ in spec.tiebreak}
        if spec.spread_key(spec.metric):
            keys.add(spec.spread_key(spec.metric))
    return keys


def _verdicts(spec: ViewSpec, rows: list[Candidate]) -> tuple[dict[str, bool | None], dict[str, float], int]:
    """Bootstrap verdicts against the public leader from cached PairTests, p-values, and how many are missing."""
    if spec.significance != Board.Significance.BOOTSTRAP:
        return {}, {}, 0
    top = leader(spec, rows)
    if top is None:
        return {}, {}, 0
    others = [c.id for c in rows if c.id != top.id and c.values.get(spec.metric) is not None]
    tests = PairTest.objects.filter(
        submission_a_id=top.id,
        submission_b_id__in=others,
        metric=spec.metric,
        n_resamples=BOOTSTRAP_RESAMPLES,
        seed=BOOTSTRAP_SEED,
    ).values_list("submission_b_id", "p_value")
    p_values = {str(b): p for b, p in tests}
    verdicts = {other: (p_values[other] >= ALPHA if other in p_values else None) for other in others}
    return verdicts, p_values, sum(1 for other in others if other not in p_values)


def _candidates(phase: Phase, keys: set[str]) -> tuple[list[Candidate], dict[str, dict]]:
    fields = (
        "id", "team_id", "team__name", "method_name", "created_at", "is_public", "is_baseline",
        "uses_external_data", "paper_url", "code_url", "declarations",
    )  # fmt: skip
    subs = list(Submission.objects.filter(phase=phase, status=Submission.Status.SCORED).values(*fields))
    scored = Result.objects.filter(submission__phase=phase, submission__status=Submission.Status.SCORED)
    values = scored.by_submission(keys)
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


def _build_rows(
    board: Board, spec: ViewSpec, reps: list[Candidate], info: dict, places: dict, by_column: dict, p_values: dict
) -> list[BoardRow]:
    rows = []
    for c in reps:
        s = info[c.id]
        place = places[c.id]
        values = c.values
        spread_key = spec.spread_key(spec.metric)
        rows.append(
            BoardRow(
                board=board,
                submission_id=s["id"],
                team_id=c.team_id,
                team_name=c.team_name,
                method_name=c.method_name,
                submitted_at=c.submitted_at,
                is_public=c.is_public,
                is_baseline=s["is_baseline"],
                uses_external_data=s["uses_external_data"],
                paper_url=s["paper_url"],
                code_url=s["code_url"],
                declarations=s["declarations"] or {},
                tags=declaration_tags(
                    spec.task,
                    s["declarations"] or {},
                    uses_external_data=s["uses_external_data"],
                    is_baseline=s["is_baseline"],
                ),
                rank=place.rank,
                position=place.position,
                value=values.get(spec.metric),
                spread=values.get(spread_key) if spread_key else None,
                n_seeds=len(spec.task.seeds),
                tied_with_leader=place.tied_with_leader,
                p_value=p_values.get(c.id),
                metrics=values,
                ranks={key: places[c.id].rank for key, places in by_column.items()},
                positions={key: places[c.id].position for key, places in by_column.items()},
            )
        )
    return rows


def recompute_phase(phase: Phase, *, enqueue_tests: bool = True) -> list[Board]:
    """Rebuild every board of ``phase``; enqueue missing bootstrap tests after commit if asked."""
    task = phase.task
    specs = [view_spec(task, view) for view in views_for(task)]
    boards = []
    with transaction.atomic():
        # Serialise recomputes of one phase (two workers finishing at once) on PostgreSQL. NO KEY
        # UPDATE: an upload inserting a submission of this phase (FOR KEY SHARE) is not blocked by it.
        Phase.objects.select_for_update(no_key=True).filter(pk=phase.pk).first()
        candidates, info = _candidates(phase, _ranking_keys(specs))
        stored = {key for spec in specs for key in spec.stored_keys()}
        for spec in specs:
            reps = representatives(spec, candidates, phase.board_mode)
            verdicts, p_values, pending = _verdicts(spec, reps)
            board, _ = Board.objects.get_or_create(
                phase=phase,
                view=spec.key,
                defaults={"metric": spec.metric, "significance": spec.significance, "computed_at": timezone.now()},
            )
            rep_ids = [c.id for c in reps]
            metrics = Result.objects.filter(submission_id__in=rep_ids).by_submission(stored) if rep_ids else {}
            # The ranking needs the sortable column values of every row, not only the ranking keys.
            reps = [replace(c, values={**c.values, **metrics.get(c.id, {})}) for c in reps]
            places = place_for_view(spec, reps, verdicts)
            column_places = place_by_columns(spec, reps)
            public = [c for c in candidates if c.is_public]
            top = [c for c in reps if c.is_public and places[c.id].position == 1]
            board.metric = spec.metric
            board.higher_is_better = spec.higher_is_better
            board.tiebreak = [list(pair) for pair in spec.tiebreak]
            board.significance = spec.significance
            board.version = uuid.uuid4()
            board.computed_at = timezone.now()
            board.scoring_version = scoring.__version__
            board.n_rows = sum(1 for c in reps if c.is_public)
            board.n_submissions = len(public)
            board.best_value = top[0].values.get(spec.metric) if top else None
            board.last_activity = max((c.submitted_at for c in public), default=None)
            board.progression = progression(spec, public)
            board.pending_tests = pending
            board.save()
            BoardRow.objects.filter(board=board).delete()
            rows = _build_rows(board, spec, reps, info, places, column_places, p_values)
            BoardRow.objects.bulk_create(rows, batch_size=500)
            boards.append(board)
        transaction.on_commit(cache.invalidate_summaries)
        transaction.on_commit(lambda: _warm(boards))
        if enqueue_tests and any(b.pending_tests for b in boards):
            transaction.on_commit(lambda: _enqueue_tests(phase.pk))
    return boards


def _warm(boards: list[Board]) -> None:
    """Pre-build the default view of each board so the first visitor after a score gets a cached page."""
    from leaderboard.boards.present import warm

    for board in boards:
        try:
            warm(board)
        except Exception:  # a cold cache is slower, never wrong: do not fail the scoring job for it
            log.exception("could not warm the cache of board %s", board.pk)


def _enqueue_tests(phase_id: int) -> None:
    from leaderboard.boards.tasks import run_board_tests

    try:
        run_board_tests.delay(phase_id)
    except Exception:  # a broker outage must not break scoring; the next recompute tries again
        log.exception("could not enqueue the bootstrap tests of phase %s", phase_id)
