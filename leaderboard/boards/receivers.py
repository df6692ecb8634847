"""Signal receivers: keep a phase's boards up to date when its results change.

``submission_scored`` arrives in the scoring worker after the scoring
transaction commits: the board update task runs right there, in that worker
(``apply``: no second trip through the broker, so the new score is on the board
when the submitter's client reads it). ``board_changed`` arrives wherever
visibility or a score changed, often a web request, with the changed
``submission`` when there is one: it only enqueues
``leaderboard.boards.tasks.update_boards`` on commit, so no web request ranks.
"""

from __future__ import annotations

from leaderboard.boards.tasks import enqueue_update, update_boards


def on_submission_scored(sender, submission, **kwargs) -> None:
    update_boards.apply(args=(submission.phase_id, str(submission.pk)), throw=True)


def on_board_changed(sender, phase, submission=None, **kwargs) -> None:
    enqueue_update(phase.pk, submission.pk if submission is not None else None)
