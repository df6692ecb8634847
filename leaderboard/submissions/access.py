"""Who may see and act on a submission: the one helper every view goes through."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied
from django.http import Http404

from leaderboard.submissions.models import Submission

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from leaderboard.accounts.models import User

VIEW = "view"  # the page and status.json: public ones to all, private ones to the team and organizers
FILE = "file"  # the uploaded file: the team, staff and the challenge's organizers, never the public
TEAM = "team"  # owner actions (visibility): members of the submitting team
ORGANIZE = "organize"  # re-run: staff and the challenge's organizers


def is_member(user: User | AnonymousUser, submission: Submission) -> bool:
    return user.is_authenticated and submission.team.memberships.filter(user=user).exists()


def is_organizer(user: User | AnonymousUser, submission: Submission) -> bool:
    if not user.is_authenticated:
        return False
    return user.is_staff or submission.phase.challenge.organizers.filter(pk=user.pk).exists()


def allowed(user: User | AnonymousUser, submission: Submission, purpose: str = VIEW) -> bool:
    """Whether ``user`` may use ``submission`` for ``purpose`` (VIEW, FILE, TEAM or ORGANIZE)."""
    if purpose == VIEW:
        return submission.is_public or is_member(user, submission) or is_organizer(user, submission)
    if purpose == FILE:
        return is_member(user, submission) or is_organizer(user, submission)
    if purpose == TEAM:
        return is_member(user, submission)
    if purpose == ORGANIZE:
        return is_organizer(user, submission)
    raise ValueError(f"unknown purpose {purpose!r}")


def get_submission_for(user: User | AnonymousUser, submission_id: uuid.UUID | str, purpose: str = VIEW) -> Submission:
    """The submission if ``user`` may use it for ``purpose``.

    Raises Http404 when the user may not even see it (so private ids do not
    leak which exist) and PermissionDenied (403) when they may see it but not
    do this with it.
    """
    try:
        submission = Submission.objects.select_related("phase__challenge", "team", "user").get(pk=submission_id)
    except (Submission.DoesNotExist, ValueError):
        raise Http404("No such submission.") from None
    if not allowed(user, submission, VIEW):
        raise Http404("No such submission.")
    if not allowed(user, submission, purpose):
        raise PermissionDenied("You may not do this with this submission.")
    return submission
