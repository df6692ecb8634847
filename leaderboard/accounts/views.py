"""Account pages: sign-up, profile, notification settings, answering invitations."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from leaderboard.accounts import ratelimit, services, verification
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
    status = 200
    if request.method == "POST" and form.is_valid():
        # Counted only for valid forms: a typo in the password confirmation does not use up an attempt.
        limited = ratelimit.hit("signup-ip", ratelimit.client_ip(request))
        if limited is None:
            user = services.create_user(
                form.cleaned_data["username"], form.cleaned_data["email"], form.cleaned_data["password1"]
            )
            verification.send_verification_email(user)
            login(request, user)  # the one backend of AUTHENTICATION_BACKENDS
            messages.success(
                request,
                f"Welcome, {user.username}! Your personal team is ready. We sent a link to {user.email}: "
                "open it to verify your address before submitting.",
            )
            return redirect(_safe_next(request) or settings.LOGIN_REDIRECT_URL)
        form.add_error(None, limited.explain("accounts created from your network"))
        status = 429
    return render(request, "accounts/signup.html", {"form": form, "next": _safe_next(request) or ""}, status=status)


def login_limits(request: HttpRequest) -> list[tuple[str, str, str]]:
    """(scope, identifier, what) of the log-in brakes for this POST: its username and its client address."""
    username = request.POST.get("username", "")
    return [
        ("login-user", ratelimit.ident_of(username), "failed log-ins for this account"),
        ("login-ip", ratelimit.client_ip(request), "failed log-ins from your network"),
    ]


def login_refused(request: HttpRequest) -> HttpResponse | None:
    """The 429 page if this log-in POST is over a limit (nothing is checked then), else None."""
    for scope, ident, what in login_limits(request):
        if (limited := ratelimit.blocked(scope, ident)) is not None:
            form = AuthenticationForm(request, initial={"username": request.POST.get("username", "")})
            form.cleaned_data = {}  # unbound: the password is not checked; only the message is shown
            form.errors  # creates the (empty) error dict the message goes into  # noqa: B018
            form.add_error(None, limited.explain(what))
            response = render(request, "registration/login.html", {"form": form, "next": _safe_next(request) or ""})
            response.status_code = 429
            response["Retry-After"] = str(limited.retry_after)
            return response
    return None


def count_login(request: HttpRequest, succeeded: bool) -> None:
    """A failure counts against the account and the address; a success clears the account's count only."""
    if succeeded:
        ratelimit.reset("login-user", ratelimit.ident_of(request.POST.get("username", "")))
        return
    for scope, ident, _ in login_limits(request):
        ratelimit.hit(scope, ident)


class ThrottledLoginView(auth_views.LoginView):
    """Django's log-in, braked after repeated failures per account and per client address.

    The limit is checked before the password is (a guess past the limit is not
    even tried, so a right one reveals nothing); only failures count, and a
    successful log-in clears the account's count. The per-address count is not
    cleared by a success: one valid account must not reset a guessing run against others.
    The admin's log-in goes through the same brakes (``leaderboard.accounts.admin``).
    """

    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        return login_refused(request) or super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        count_login(self.request, succeeded=False)
        return super().form_invalid(form)

    def form_valid(self, form):
        count_login(self.request, succeeded=True)
        return super().form_valid(form)


class ThrottledPasswordResetView(auth_views.PasswordResetView):
    """Django's password reset, with at most a few mails per address and per client address an hour.

    Past the per-address limit nothing is sent and the page says the same as
    always ("if an account uses this address, we sent a link"), so the limit
    reveals no account. Past the per-client limit the page says so (429): that
    tells nothing about any address.
    """

    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def form_valid(self, form):
        limited = ratelimit.hit("reset-mail-ip", ratelimit.client_ip(self.request))
        if limited is not None:
            form.add_error(None, limited.explain("password-reset requests from your network"))
            response = self.form_invalid(form)
            response.status_code = 429
            response["Retry-After"] = str(limited.retry_after)
            return response
        if ratelimit.hit("reset-mail-address", ratelimit.ident_of(form.cleaned_data["email"])) is not None:
            return redirect(self.get_success_url())  # the same page as a sent mail
        return super().form_valid(form)


@require_GET
def verify_email(request: HttpRequest, token: str) -> HttpResponse:
    """The link from the verification mail: mark the address verified (works logged in or out)."""
    user = verification.user_for_token(token)
    if user is None:
        messages.error(
            request, "This verification link is invalid or has expired. Log in and send a new one from your profile."
        )
        return redirect("accounts:profile" if request.user.is_authenticated else "accounts:login")
    verification.mark_verified(user)
    messages.success(request, f"Thank you: {user.email} is verified. You can submit now.")
    return redirect("accounts:profile" if request.user.is_authenticated else "accounts:login")


@login_required
@require_POST
def resend_verification(request: HttpRequest) -> HttpResponse:
    """Send the verification link again (rate-limited per user: no mail flooding)."""
    user = request.user
    if user.email_verified:
        messages.info(request, "Your e-mail address is already verified.")
    elif (limited := ratelimit.hit("verify-mail-user", str(user.pk))) is not None:
        messages.error(request, limited.explain("verification mails"))
    else:
        verification.send_verification_email(user)
        messages.success(request, f"We sent a new verification link to {user.email}.")
    return redirect(_safe_next(request) or "accounts:profile")


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
