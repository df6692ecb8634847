"""Signal receivers: enqueue a board update when a phase's results change.

``submission_scored`` arrives in the worker after the scoring transaction
commits; ``board_changed`` wherever visibility or a score changed (web or
worker), with the changed ``submission`` when there is one. Both only enqueue
``leaderboard.boards.tasks.update_boards`` on commit: the update runs in a worker,
never in the web request that changed something.
"""

from __future__ import annotations

from leaderboard.boards.tasks import enqueue_update


def on_submission_scored(sender, submission, **kwargs) -> None:
    enqueue_update(submission.phase_id, submission.pk)


def on_board_changed(sender, phase, submission=None, **kwargs) -> None:
    enqueue_update(phase.pk, submission.pk if submission is not None else None)
