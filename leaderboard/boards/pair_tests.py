"""Paired bootstrap tests between two submissions, computed once and cached in ``PairTest``.

The board needs "leader vs every other row" for single-seed tasks (MUDI); the
compare page needs "first vs each other" on request. Both go through
``pair_test``, so a pair tested for one is free for the other. The test itself
is ``scoring.significance.paired_bootstrap`` on containers from
``scoring.align``.
"""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction
from django.db.models import QuerySet

import scoring
from leaderboard.boards.models import Board, BoardRow, PairTest
from leaderboard.boards.spec import DirectionSpec, direction_spec
from leaderboard.challenges.models import Phase
from leaderboard.challenges.truth_cache import phase_split, phase_truth
from leaderboard.submissions.models import Submission
from scoring.significance import paired_bootstrap
from scoring.splits import PUBLIC, restrict
from scoring.validation import Truth

log = logging.getLogger(__name__)

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0


class Aligner:
    """Aligns submissions of one phase against its truth, parsing each file at most once.

    On a phase with a private part the containers hold the public rows only: a
    test over every row would publish differences computed on hidden labels.
    """

    def __init__(self, phase: Phase, spec: DirectionSpec) -> None:
        self.phase = phase
        self.spec = spec
        self._truth: Truth | None = None
        self._aligned: dict[str, object] = {}

    def __call__(self, submission: Submission):
        key = str(submission.pk)
        if key not in self._aligned:
            if self._truth is None:
                self._truth = phase_truth(self.phase)
            with submission.file.open("rb") as handle:
                aligned = scoring.align(self.spec.task, self._truth, handle)
            split = phase_split(self.phase) if self.phase.split_spec is not None else None
            if split is not None:
                aligned, _ = restrict(aligned, split, PUBLIC)
            self._aligned[key] = aligned
        return self._aligned[key]


def _stored_tests(a_id, b_id, metric: str, n_resamples: int) -> QuerySet[PairTest]:
    return PairTest.objects.filter(
        submission_a_id=a_id, submission_b_id=b_id, metric=metric, n_resamples=n_resamples, seed=BOOTSTRAP_SEED
    )


def cached_test(a_id, b_id, metric: str, n_resamples: int = BOOTSTRAP_RESAMPLES) -> PairTest | None:
    return _stored_tests(a_id, b_id, metric, n_resamples).first()


def pair_test(
    spec: DirectionSpec,
    a: Submission,
    b: Submission,
    *,
    aligner: Aligner | None = None,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
) -> PairTest:
    """The cached paired bootstrap of ``spec.metric`` for A vs B, computing and storing it if new.

    Raises ``scoring.ScoringError``/``OSError`` if a file cannot be read and
    ``ValueError`` if the metric is undefined for either submission.
    """
    found = cached_test(a.pk, b.pk, spec.metric, n_resamples)
    if found is not None:
        return found
    aligner = aligner or Aligner(a.phase, spec)
    outcome = paired_bootstrap(
        spec.ranking_task(), aligner(a), aligner(b), n_resamples=n_resamples, seed=BOOTSTRAP_SEED
    )
    test = PairTest(
        submission_a=a,
        submission_b=b,
        metric=spec.metric,
        n_resamples=n_resamples,
        seed=BOOTSTRAP_SEED,
        observed_a=outcome.observed_a,
        observed_b=outcome.observed_b,
        delta=outcome.delta,
        p_value=outcome.p_value,
        n_used=outcome.n_resamples,
        scoring_version=scoring.__version__,
    )
    try:
        with transaction.atomic():
            test.save()
    except IntegrityError:  # computed concurrently by another process: keep theirs
        return _stored_tests(a.pk, b.pk, spec.metric, n_resamples).get()
    return test


def run_pending_tests(phase: Phase) -> int:
    """Run every missing leader-vs-row bootstrap of the phase's boards; returns how many were computed.

    A pair that cannot be tested (file gone, metric undefined) is logged and
    skipped: its row shows "not tested" rather than blocking the others.
    """
    computed = 0
    boards = Board.objects.public().filter(phase=phase, significance=Board.Significance.BOOTSTRAP, pending_tests__gt=0)
    for board in boards:
        spec = direction_spec(phase.task, board.direction)
        top = BoardRow.objects.public().filter(board=board).order_by("quality", "tail").first()
        if top is None or top.value is None:
            continue
        leader = Submission.objects.select_related("phase").get(pk=top.submission_id)
        others = (
            BoardRow.objects.filter(board=board, value__isnull=False, p_value__isnull=True)
            .exclude(submission_id=leader.pk)
            .values_list("submission_id", flat=True)
        )
        aligner = Aligner(phase, spec)
        for other in Submission.objects.filter(pk__in=list(others)):
            try:
                pair_test(spec, leader, other, aligner=aligner)
                computed += 1
            except (scoring.ScoringError, OSError, ValueError):
                log.exception("bootstrap %s vs %s on %s failed", leader.pk, other.pk, spec.metric)
    return computed
