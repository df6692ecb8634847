"""Signal receivers: rebuild a phase's boards when its results change.

``submission_scored`` arrives in the worker after the scoring transaction
commits; ``board_changed`` wherever visibility changed (web or worker). Both
rebuild synchronously (a second or so even for thousands of submissions) so the
next page view is current; the slow bootstrap tests go to a Celery task.
"""

from __future__ import annotations

import logging

from leaderboard.boards.recompute import recompute_phase

log = logging.getLogger(__name__)


def on_submission_scored(sender, submission, **kwargs) -> None:
    recompute_phase(submission.phase)


def on_board_changed(sender, phase, **kwargs) -> None:
    recompute_phase(phase)
