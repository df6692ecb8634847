"""Who may see and act on a submission: the one place these rules live.

Views (and the API) get the submission and the user's permissions on it in one
call, ``get_submission_with_access``, and hand the permissions to the template,
so a page decides access once per request: whether the user is on the team and
whether they organize the challenge are each looked up at most once.
"""

from __future__ import annotations

from functools import cached_property

from django.core.exceptions import PermissionDenied
from django.http import Http404

from leaderboard.submissions.models import Submission

VIEW = "view"  # the page and status.json: public ones to all, private ones to the team and organizers
FILE = "file"  # the uploaded file: the team, staff and the challenge's organizers, never the public
TEAM = "team"  # owner actions (visibility): members of the submitting team
ORGANIZE = "organize"  # re-run: staff and the challenge's organizers


class SubmissionAccess:
    """What one user may do with one submission; each fact is looked up once, when first asked."""

    def __init__(self, user, submission: Submission) -> None:
        self.user = user
        self.submission = submission

    @cached_property
    def is_member(self) -> bool:
        """On the submitting team."""
        return self.user.is_authenticated and self.submission.team.memberships.filter(user=self.user).exists()

    @cached_property
    def is_organizer(self) -> bool:
        """Staff, or an organizer of the submission's challenge."""
        if not self.user.is_authenticated:
            return False
        return self.user.is_staff or self.submission.phase.challenge.organizers.filter(pk=self.user.pk).exists()

    @property
    def can_view(self) -> bool:
        """The page and its status: public submissions to everyone, private ones to the team and organizers."""
        return self.submission.is_public or self.is_member or self.is_organizer

    @property
    def can_download(self) -> bool:
        """The uploaded file: never the public."""
        return self.is_member or self.is_organizer

    @property
    def can_manage(self) -> bool:
        """The team's own actions (public or private)."""
        return self.is_member

    @property
    def can_rerun(self) -> bool:
        """Clear the results and score the file again."""
        return self.is_organizer

    def allows(self, purpose: str) -> bool:
        """Whether the user may use the submission for ``purpose`` (VIEW, FILE, TEAM or ORGANIZE)."""
        if purpose == VIEW:
            return self.can_view
        if purpose == FILE:
            return self.can_download
        if purpose == TEAM:
            return self.can_manage
        if purpose == ORGANIZE:
            return self.can_rerun
        raise ValueError(f"unknown purpose {purpose!r}")


def allowed(user, submission: Submission, purpose: str = VIEW) -> bool:
    """Whether ``user`` may use ``submission`` for ``purpose`` (VIEW, FILE, TEAM or ORGANIZE)."""
    return SubmissionAccess(user, submission).allows(purpose)


def get_submission_with_access(user, submission_id, purpose: str = VIEW) -> tuple[Submission, SubmissionAccess]:
    """The submission and ``user``'s permissions on it, if ``user`` may use it for ``purpose``.

    Raises Http404 when the user may not even see it (so private ids do not
    leak which exist) and PermissionDenied (403) when they may see it but not
    do this with it.
    """
    try:
        submission = Submission.objects.select_related("phase__challenge", "team", "user").get(pk=submission_id)
    except (Submission.DoesNotExist, ValueError):
        raise Http404("No such submission.") from None
    permissions = SubmissionAccess(user, submission)
    if not permissions.can_view:
        raise Http404("No such submission.")
    if not permissions.allows(purpose):
        raise PermissionDenied("You may not do this with this submission.")
    return submission, permissions


def get_submission_for(user, submission_id, purpose: str = VIEW) -> Submission:
    """The submission if ``user`` may use it for ``purpose``; see ``get_submission_with_access``."""
    return get_submission_with_access(user, submission_id, purpose)[0]
