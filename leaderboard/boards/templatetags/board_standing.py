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
    phase = submission.phase
    if phase.public_board_hidden_for(is_organizer=False):
        # Even its own team's rank would say where the others stand on a board nobody may see yet.
        return {"absent": "the public board of this phase is hidden until the reveal."}
    found = standing_of(submission)
    if found is not None:
        return found
    if submission.is_hidden:
        reason = f": {submission.hidden_reason}" if submission.hidden_reason else ""
        return {"absent": f"the organizers hid it{reason}."}
    if phase.ladder_threshold is not None and submission.is_public:
        ladder = "the Ladder shows a new score only when it beats the shown one by more than the threshold."
        if phase.boards.filter(computed_at__gte=submission.finished_at or phase.starts_at).exists():
            return {"absent": ladder}
    if submission.finished_at and submission.phase.boards.filter(computed_at__gte=submission.finished_at).exists():
        if submission.is_public:
            return {"absent": "the board shows the best public submission of each team and method."}
        return {"absent": "it is private, and a better submission of the same method stands for it."}
    return {"pending": True}
