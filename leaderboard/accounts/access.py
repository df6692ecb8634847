"""Access helpers: the only place that decides who may see or change a team or an invitation.

Views call these and never check membership inline. Someone with no business
knowing an object exists gets a 404; a member who may see it but not change it
gets a 403.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404

from leaderboard.accounts.models import Invitation, Membership, Team, User


def get_team_for(user: User, slug: str) -> tuple[Team, Membership]:
    """The team ``slug`` and ``user``'s membership in it; 404 unless ``user`` is a member."""
    membership = Membership.objects.select_related("team").filter(team__slug=slug, user=user).first()
    if membership is None:
        raise Http404("No such team.")
    return membership.team, membership


def can_manage_team(membership: Membership) -> bool:
    """Owners invite, withdraw invitations and see the pending ones; other members only look."""
    return membership.role == Membership.Role.OWNER


def get_owned_team_for(user: User, slug: str) -> Team:
    """The team ``slug`` if ``user`` owns it; 404 for outsiders, 403 for members who are not owners."""
    team, membership = get_team_for(user, slug)
    if not can_manage_team(membership):
        raise PermissionDenied("Only the team's owners can do this.")
    return team


def get_invitation_for(user: User, invitation_id: int) -> Invitation:
    """A pending invitation addressed to ``user``; 404 for anyone else."""
    invitation = (
        Invitation.objects.select_related("team", "invited_by")
        .filter(pk=invitation_id, invited_user=user, status=Invitation.Status.PENDING)
        .first()
    )
    if invitation is None:
        raise Http404("No such invitation.")
    return invitation


def get_team_invitation_for(user: User, slug: str, invitation_id: int) -> Invitation:
    """A pending invitation of team ``slug``, for the team's owners (404 outsiders, 403 members)."""
    team = get_owned_team_for(user, slug)
    invitation = team.invitations.filter(pk=invitation_id, status=Invitation.Status.PENDING).first()
    if invitation is None:
        raise Http404("No such invitation.")
    return invitation


def get_team_member_for(user: User, slug: str, member_id: int) -> tuple[Team, User]:
    """Team ``slug`` and one of its members, for the team's owners (404 outsiders and non-members, 403 members)."""
    team = get_owned_team_for(user, slug)
    membership = team.memberships.select_related("user").filter(user_id=member_id).first()
    if membership is None:
        raise Http404("No such member.")
    return team, membership.user
