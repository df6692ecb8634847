"""Signal receivers: keep a phase's boards up to date when its results change.

``submission_scored`` arrives in the scoring worker after the scoring commit and
``board_changed`` wherever visibility or a score changed, often a web request
(with the changed ``submission`` when there is one). Both only record the change
and send the phase's coalesced refresh (``tasks.enqueue_update``) to the
background queue: the scoring worker goes straight on to the next upload, and no
web request ranks.
"""

from __future__ import annotations

from leaderboard.boards.tasks import enqueue_update


def on_submission_scored(sender, submission, **kwargs) -> None:
    enqueue_update(submission.phase_id, submission.pk)


def on_board_changed(sender, phase, submission=None, **kwargs) -> None:
    enqueue_update(phase.pk, submission.pk if submission is not None else None)
