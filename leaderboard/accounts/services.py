"""Writes that touch accounts and teams, each under one transaction."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from leaderboard.accounts.emails import send_invitation_email
from leaderboard.accounts.models import Invitation, Membership, Team, User

# Slugs that are URLs under /teams/ themselves, so no team may have them.
RESERVED_TEAM_SLUGS = frozenset({"new"})


def unique_team_slug(name: str) -> str:
    """A slug for a new team: ``slugify(name)``, with ``-2``, ``-3``... appended while it is taken or reserved."""
    base = slugify(name)[:90] or "team"
    slug, n = base, 1
    while slug in RESERVED_TEAM_SLUGS or Team.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


@transaction.atomic
def create_user(username: str, email: str, password: str | None, **extra) -> User:
    """Create a user together with their personal team (named after the username)."""
    user = User.objects.create_user(username=username, email=email, password=password, **extra)
    name = username
    n = 1
    while Team.objects.filter(name=name).exists():
        n += 1
        name = f"{username} ({n})"
    team = Team.objects.create(name=name, slug=unique_team_slug(name), personal=True)
    Membership.objects.create(team=team, user=user, role=Membership.Role.OWNER)
    return user


@transaction.atomic
def create_team(owner: User, name: str) -> Team:
    """Create a (non-personal) team with ``owner`` as its first member and owner."""
    team = Team.objects.create(name=name, slug=unique_team_slug(name))
    Membership.objects.create(team=team, user=owner, role=Membership.Role.OWNER)
    return team


class TeamError(Exception):
    """A team action that the rules forbid; the message is shown to the user as is."""


@transaction.atomic
def invite(team: Team, invited_by: User, invited_user: User) -> Invitation:
    """Invite ``invited_user`` to ``team``; the caller has checked that ``invited_by`` owns it."""
    if team.personal:
        raise TeamError("A personal team has exactly one member: create a team to work with others.")
    if team.memberships.filter(user=invited_user).exists():
        raise TeamError(f"{invited_user.username} is already a member of {team.name}.")
    if team.invitations.filter(invited_user=invited_user, status=Invitation.Status.PENDING).exists():
        raise TeamError(f"{invited_user.username} already has a pending invitation to {team.name}.")
    invitation = Invitation.objects.create(team=team, invited_user=invited_user, invited_by=invited_by)
    transaction.on_commit(lambda: send_invitation_email(invitation))
    return invitation


def _close(invitation: Invitation, status: str) -> None:
    invitation.status = status
    invitation.responded_at = timezone.now()
    invitation.save(update_fields=["status", "responded_at"])


def _lock_pending(invitation: Invitation) -> Invitation:
    """The invitation's row, locked for this transaction; TeamError if it was already answered."""
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.status != Invitation.Status.PENDING:
        raise TeamError("This invitation is no longer open.")
    return invitation


@transaction.atomic
def accept_invitation(invitation: Invitation) -> Membership:
    """Make the invited user a member of the team and close the invitation."""
    invitation = _lock_pending(invitation)
    _close(invitation, Invitation.Status.ACCEPTED)
    membership, _ = Membership.objects.get_or_create(team=invitation.team, user=invitation.invited_user)
    return membership


@transaction.atomic
def decline_invitation(invitation: Invitation) -> None:
    """Close the invitation without joining."""
    invitation = _lock_pending(invitation)
    _close(invitation, Invitation.Status.DECLINED)


@transaction.atomic
def revoke_invitation(invitation: Invitation) -> None:
    """Withdraw a pending invitation (an owner's action)."""
    invitation = _lock_pending(invitation)
    _close(invitation, Invitation.Status.REVOKED)


@transaction.atomic
def leave_team(team: Team, user: User) -> None:
    """Remove ``user`` from ``team``.

    Rules (docs: README "Teams"): a personal team cannot be left. When the last
    owner leaves, the longest-standing remaining member becomes the owner, so a
    team with members always has an owner. A team whose last member leaves is
    kept, with no members, because its submissions stay on the leaderboards.
    """
    if team.personal:
        raise TeamError("You cannot leave your personal team.")
    # Lock the team's memberships so two owners leaving at once cannot both see "another owner remains".
    memberships = list(Membership.objects.select_for_update().filter(team=team).order_by("joined_at", "id"))
    mine = next((m for m in memberships if m.user_id == user.pk), None)
    if mine is None:
        raise TeamError(f"You are not a member of {team.name}.")
    mine.delete()
    others = [m for m in memberships if m.pk != mine.pk]
    if others and not any(m.role == Membership.Role.OWNER for m in others):
        successor = others[0]
        successor.role = Membership.Role.OWNER
        successor.save(update_fields=["role"])


@transaction.atomic
def remove_member(team: Team, by: User, member: User) -> None:
    """An owner removes another member; their submissions stay with the team. The caller checked ``by`` owns it."""
    if member.pk == by.pk:
        raise TeamError("To leave the team yourself, use Leave team.")
    deleted, _ = Membership.objects.filter(team=team, user=member).delete()
    if not deleted:
        raise TeamError(f"{member.username} is not a member of {team.name}.")


@transaction.atomic
def hand_over_ownership(team: Team, by: User, member: User) -> None:
    """Make ``member`` an owner of ``team`` and ``by`` (an owner, checked by the caller) a plain member."""
    memberships = {m.user_id: m for m in Membership.objects.select_for_update().filter(team=team)}
    target, mine = memberships.get(member.pk), memberships.get(by.pk)
    if target is None:
        raise TeamError(f"{member.username} is not a member of {team.name}.")
    if mine is None or target.pk == mine.pk:
        raise TeamError("Choose another member to hand the team over to.")
    target.role = Membership.Role.OWNER
    target.save(update_fields=["role"])
    mine.role = Membership.Role.MEMBER
    mine.save(update_fields=["role"])
