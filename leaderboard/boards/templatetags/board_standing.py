"""{% board_standing submission as where %}: a scored submission's place on its board.

A template tag so the submission page (a lower layer) can show the boards'
answer without importing the boards app.
"""

from __future__ import annotations

from django import template

from leaderboard.boards.present import board_standing as standing_of

register = template.Library()


@register.simple_tag
def board_standing(submission) -> dict:
    """{"rank", "n_ranked", "is_public", "metric_name", "url"} when the submission is a board row;
    else {"absent": why} once the board has been rebuilt since it was scored, or {"pending": True}."""
    found = standing_of(submission)
    if found is not None:
        return found
    if submission.finished_at and submission.phase.boards.filter(computed_at__gte=submission.finished_at).exists():
        if submission.is_public:
            return {"absent": "the board shows the best public submission of each team and method."}
        return {"absent": "it is private, and a better submission of the same method stands for it."}
    return {"pending": True}
