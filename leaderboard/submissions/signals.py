"""Signals other apps listen to (the boards app precomputes rankings on these)."""

from django.dispatch import Signal

# Sent after the transaction that stored a submission's results commits.
# Arguments: submission (the Submission instance, status scored).
submission_scored = Signal()

# Sent when something that changes a board's rows changes without a new score
# (visibility toggled, submission re-scored away, deleted). Arguments: phase, and
# submission when one submission changed (receivers then update only what it touches).
board_changed = Signal()
