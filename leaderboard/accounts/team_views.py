"""Team pages: create, view, invite, revoke an invitation, leave (after a confirmation), remove a member, hand over."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from leaderboard.accounts import ratelimit, services
from leaderboard.accounts.access import (
    can_manage_team,
    get_owned_team_for,
    get_team_for,
    get_team_invitation_for,
    get_team_member_for,
)
from leaderboard.accounts.authenticated import AuthenticatedRequest
from leaderboard.accounts.forms import InviteForm, TeamCreateForm
from leaderboard.accounts.models import Invitation, Membership


@login_required
@require_http_methods(["GET", "POST"])
def team_create(request: AuthenticatedRequest) -> HttpResponse:
    form = TeamCreateForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        # Teams are bound per phase (a new team is no fresh quota), and creating them is braked too.
        limited = ratelimit.hit("team-create-user", str(request.user.pk))
        if limited is None:
            team = services.create_team(request.user, form.cleaned_data["name"])
            messages.success(request, f"Team {team.name} created. Invite your colleagues by username.")
            return redirect(team)
        form.add_error(None, limited.explain("new teams"))
        status = 429
    return render(request, "accounts/team_create.html", {"form": form}, status=status)


def _team_page(request: AuthenticatedRequest, slug: str, invite_form: InviteForm | None = None, status: int = 200):
    team, membership = get_team_for(request.user, slug)
    is_owner = can_manage_team(membership)
    context = {
        "team": team,
        "is_owner": is_owner,
        "members": team.memberships.select_related("user").order_by("joined_at", "id"),
        "invitations": (
            team.invitations.filter(status=Invitation.Status.PENDING).select_related("invited_user", "invited_by")
            if is_owner
            else []
        ),
        "invite_form": invite_form or InviteForm(),
    }
    return render(request, "accounts/team_detail.html", context, status=status)


@login_required
def team_detail(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    """Members of the team; owners also see pending invitations and the invite form. Members only."""
    return _team_page(request, slug)


@login_required
@require_POST
def team_invite(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    team = get_owned_team_for(request.user, slug)
    form = InviteForm(request.POST)
    status = 400
    if form.is_valid():
        invited = form.cleaned_data["username"]
        # Each invitation is a mail: braked per sender (whichever of their teams), per team (invite/revoke
        # cycles) and per invited user (whichever teams invite them).
        braked = [("invite-mail-sender", str(request.user.pk), "invitations sent by you"),
                  ("invite-mail-team", str(team.pk), "invitations from this team"),
                  ("invite-mail-user", str(invited.pk), f"invitations to {invited.username}")]  # fmt: skip
        limited = next(((lim, what) for scope, ident, what in braked if (lim := ratelimit.blocked(scope, ident))), None)
        if limited is not None:
            form.add_error("username", limited[0].explain(limited[1]))
            status = 429
        else:
            try:
                services.invite(team, request.user, invited)
            except services.TeamError as exc:
                form.add_error("username", str(exc))
            else:
                for scope, ident, _ in braked:
                    ratelimit.hit(scope, ident)
                messages.success(request, f"Invited {invited.username}. They can accept on their profile page.")
                return redirect(team)
    return _team_page(request, slug, invite_form=form, status=status)


@login_required
@require_POST
def team_revoke_invitation(request: AuthenticatedRequest, slug: str, invitation_id: int) -> HttpResponse:
    invitation = get_team_invitation_for(request.user, slug, invitation_id)
    services.revoke_invitation(invitation)
    messages.info(request, f"Invitation to {invitation.invited_user.username} withdrawn.")
    return redirect("teams:detail", slug)


@login_required
@require_POST
def team_leave(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    team, _ = get_team_for(request.user, slug)
    try:
        services.leave_team(team, request.user)
    except services.TeamError as exc:
        messages.error(request, str(exc))
        return redirect(team)
    messages.success(request, f"You left {team.name}.")
    return redirect("accounts:profile")


@login_required
@require_GET
def team_leave_confirm(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    """Are you sure? The button posts to ``team_leave``."""
    team, membership = get_team_for(request.user, slug)
    if team.personal:
        messages.error(request, "You cannot leave your personal team.")
        return redirect(team)
    others = team.memberships.exclude(pk=membership.pk)
    context = {
        "team": team,
        "is_last_owner": membership.role == Membership.Role.OWNER
        and not others.filter(role=Membership.Role.OWNER).exists(),
        "n_others": others.count(),
    }
    return render(request, "accounts/team_leave.html", context)


def _member_action(request: AuthenticatedRequest, slug: str, member_id: int, action, done: str) -> HttpResponse:
    """Run an owner's ``action(team, owner, member)``; ``done`` is the message, formatted with member and team."""
    team, member = get_team_member_for(request.user, slug, member_id)
    try:
        action(team, request.user, member)
    except services.TeamError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, done.format(member=member.username, team=team.name))
    return redirect(team)


@login_required
@require_POST
def team_remove_member(request: AuthenticatedRequest, slug: str, member_id: int) -> HttpResponse:
    return _member_action(request, slug, member_id, services.remove_member, "{member} is no longer a member of {team}.")


@login_required
@require_POST
def team_hand_over(request: AuthenticatedRequest, slug: str, member_id: int) -> HttpResponse:
    return _member_action(
        request, slug, member_id, services.hand_over_ownership, "{member} now owns {team}; you are a member."
    )
