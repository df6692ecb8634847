"""Celery tasks of the boards: the bootstrap tests behind the "indistinguishable" mark."""

from __future__ import annotations

from celery import shared_task

from leaderboard.boards.pair_tests import run_pending_tests
from leaderboard.boards.recompute import recompute_phase
from leaderboard.challenges.models import Phase


@shared_task(acks_late=True, ignore_result=True)
def run_board_tests(phase_id: int) -> int:
    """Run the missing leader-vs-row bootstraps of a phase, then rebuild its boards with the marks.

    Idempotent: tests already stored are skipped, and the rebuild does not
    enqueue this task again (a pair that cannot be tested would loop forever).
    """
    phase = Phase.objects.filter(pk=phase_id).first()
    if phase is None:
        return 0
    computed = run_pending_tests(phase)
    recompute_phase(phase, enqueue_tests=False)
    return computed
