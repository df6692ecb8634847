"""Account pages: sign-up, profile, notification settings, answering invitations."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST

from leaderboard.accounts import services
from leaderboard.accounts.access import get_invitation_for
from leaderboard.accounts.forms import NotificationsForm, SignupForm
from leaderboard.accounts.models import Invitation, Membership


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure()):
        return target
    return None


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account (and its personal team), log the new user in, go to their profile."""
    if request.user.is_authenticated:
        return redirect("accounts:profile")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = services.create_user(
            form.cleaned_data["username"], form.cleaned_data["email"], form.cleaned_data["password1"]
        )
        login(request, user)  # the one backend of AUTHENTICATION_BACKENDS
        messages.success(request, f"Welcome, {user.username}! Your personal team is ready.")
        return redirect(_safe_next(request) or settings.LOGIN_REDIRECT_URL)
    return render(request, "accounts/signup.html", {"form": form, "next": _safe_next(request) or ""})


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """Account info, notification setting, teams and invitations.

    The latest submissions come from the submissions app's ``{% latest_submissions_of %}``
    tag in the template, so this app imports none of the apps above it.
    """
    user = request.user
    memberships = (
        Membership.objects.filter(user=user)
        .select_related("team")
        .annotate(n_members=Count("team__memberships"))
        .order_by("-team__personal", "team__name")
    )
    invitations = (
        Invitation.objects.filter(invited_user=user, status=Invitation.Status.PENDING)
        .select_related("team", "invited_by")
        .order_by("-created_at")
    )
    context = {
        "memberships": memberships,
        "invitations": invitations,
        "notifications_form": NotificationsForm(instance=user),
    }
    return render(request, "accounts/profile.html", context)


class LogoutView(auth_views.LogoutView):
    """Django's logout (POST only), then says so on the page it lands on."""

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        was_logged_in = request.user.is_authenticated
        response = super().post(request, *args, **kwargs)
        if was_logged_in:
            messages.info(request, "You have logged out.")
        return response


@login_required
@require_POST
def update_notifications(request: HttpRequest) -> HttpResponse:
    """Save the email preferences (an unchecked box arrives as a missing field: off)."""
    form = NotificationsForm(request.POST, instance=request.user)
    if form.is_valid():
        form.save()
        state = "on" if form.instance.email_results else "off"
        messages.success(request, f"Emails about scored submissions are {state}.")
    return redirect("accounts:profile")


@login_required
@require_POST
def accept_invitation(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = get_invitation_for(request.user, invitation_id)
    try:
        services.accept_invitation(invitation)
    except services.TeamError as exc:
        messages.error(request, str(exc))
        return redirect("accounts:profile")
    messages.success(request, f"You joined {invitation.team.name}.")
    return redirect(invitation.team)


@login_required
@require_POST
def decline_invitation(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = get_invitation_for(request.user, invitation_id)
    try:
        services.decline_invitation(invitation)
    except services.TeamError as exc:
        messages.error(request, str(exc))
    else:
        messages.info(request, f"You declined the invitation to {invitation.team.name}.")
    return redirect("accounts:profile")
