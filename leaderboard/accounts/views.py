"""Account pages: sign-up, profile, notification settings, answering invitations."""

from __future__ import annotations

import logging

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
from leaderboard.accounts import signup as signup_steps
from leaderboard.accounts.access import get_invitation_for
from leaderboard.accounts.authenticated import AuthenticatedRequest
from leaderboard.accounts.forms import NotificationsForm, SignupForm
from leaderboard.accounts.models import Invitation, Membership
from leaderboard.middleware import client_ip

# Log-ins, refusals and resets with the client's address, for the operator (and fail2ban-like tools).
security_log = logging.getLogger("leaderboard.security")


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure()):
        return target
    return None


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """The sign-up form; a valid one mails a link that finishes it (``leaderboard.accounts.signup``).

    The answer is the same whether or not the address already has an account.
    """
    if request.user.is_authenticated:
        return redirect("accounts:profile")
    form = SignupForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        # Counted only for valid forms: a typo in the password confirmation does not use up an attempt.
        limited = ratelimit.hit("signup-ip", client_ip(request))
        if limited is None:
            email = form.cleaned_data["email"]
            signup_steps.request_signup(
                form.cleaned_data["username"], email, form.cleaned_data["password1"], _safe_next(request) or ""
            )
            security_log.info("sign-up requested client=%s", client_ip(request))
            messages.info(request, f"We sent a message to {email}. Open the link in it to finish signing up.")
            return redirect("accounts:signup_sent")
        form.add_error(None, limited.explain("sign-ups from your network"))
        status = 429
    return render(request, "accounts/signup.html", {"form": form, "next": _safe_next(request) or ""}, status=status)


@require_GET
def signup_sent(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/signup_sent.html", {"days": signup_steps.MAX_AGE.days})


@require_http_methods(["GET", "POST"])
def signup_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The mailed link: a button (GET) that creates the account and logs its owner in (POST).

    A button rather than the GET itself, so a mail scanner that opens links finishes nobody's sign-up.
    """
    pending = signup_steps.pending_for(token)
    if pending is None:
        messages.error(request, "This sign-up link is invalid, used or expired (links work for 3 days): sign up again.")
        return redirect("accounts:signup")
    if request.method == "GET":
        return render(request, "accounts/signup_confirm.html", {"pending": pending})
    try:
        user = signup_steps.finish_signup(pending)
    except signup_steps.SignupError as error:
        messages.error(request, str(error))
        return redirect("accounts:signup")
    login(request, user)  # the one backend of AUTHENTICATION_BACKENDS
    security_log.info("sign-up finished user=%r client=%s", user.username, client_ip(request))
    messages.success(request, f"Welcome, {user.username}! Your address is verified and your personal team is ready.")
    target = pending.next_url
    if not (target and url_has_allowed_host_and_scheme(target, {request.get_host()})):
        target = settings.LOGIN_REDIRECT_URL
    return redirect(target)


def _refused_login(request: HttpRequest, message: str, retry_after: int) -> HttpResponse:
    form = AuthenticationForm(request, initial={"username": request.POST.get("username", "")})
    form.cleaned_data = {}  # unbound: the password is not checked; only the message is shown
    form.errors  # creates the (empty) error dict the message goes into  # noqa: B018
    form.add_error(None, message)
    response = render(request, "registration/login.html", {"form": form, "next": _safe_next(request) or ""})
    response.status_code = 429
    response["Retry-After"] = str(retry_after)
    return response


def _account_at_address(request: HttpRequest) -> str:
    """The progressive delay's identifier: this username (any case) from this client address."""
    return f"{ratelimit.ident_of(request.POST.get('username', ''))}:{client_ip(request)}"


def _username(request: HttpRequest) -> str:
    return request.POST.get("username", "")[:150]


def login_refused(request: HttpRequest) -> HttpResponse | None:
    """The 429 page if this log-in POST comes too soon or from a braked address (nothing is checked then)."""
    if (delayed := ratelimit.wait_for("login-account-ip", _account_at_address(request))) is not None:
        security_log.info(
            "login refused: delay running user=%r client=%s retry_after=%ds",
            _username(request), client_ip(request), delayed.retry_after,
        )  # fmt: skip
        return _refused_login(request, delayed.explain("failed log-ins for this account from your address"),
                              delayed.retry_after)  # fmt: skip
    if (limited := ratelimit.blocked("login-ip", client_ip(request))) is not None:
        security_log.info("login refused: address over its limit client=%s", client_ip(request))
        return _refused_login(request, limited.explain("failed log-ins from your network"), limited.retry_after)
    return None


def count_login(request: HttpRequest, succeeded: bool) -> None:
    """A failure delays this account's next try from this address and counts against the address.

    A success clears the account's delay at this address only. The per-address
    count is not cleared: one valid account must not reset a guessing run against others.
    """
    account = _account_at_address(request)
    if succeeded:
        ratelimit.forget("login-account-ip", account)
        return
    delayed = ratelimit.failed("login-account-ip", account)
    over = ratelimit.hit("login-ip", client_ip(request))
    security_log.warning(
        "login failed user=%r client=%s next_try_in=%ds%s",
        _username(request), client_ip(request), delayed.retry_after if delayed else 0,
        " address_limit_reached" if over else "",
    )  # fmt: skip


class ThrottledLoginView(auth_views.LoginView):
    """Django's log-in, braked after repeated failures, never for the account as a whole.

    Failures of one account from one client address earn a progressive delay
    (``ratelimit.DEFAULT_DELAYS``); failures from one address, whatever the
    accounts, a fixed limit. Both are checked before the password is (a guess
    that comes too soon is not even tried, so a right one reveals nothing).
    Nobody's failures elsewhere delay the owner, and a password reset is never
    braked by them. The admin's log-in goes through the same brakes
    (``leaderboard.accounts.admin``). Every failure and refusal is logged to
    ``leaderboard.security`` with the client's address.
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


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's "choose a new password" from the mailed link; the account's log-in delay here ends with it."""

    def form_valid(self, form):
        username = form.user.get_username()
        ratelimit.forget("login-account-ip", f"{ratelimit.ident_of(username)}:{client_ip(self.request)}")
        security_log.info("password reset user=%r client=%s", username, client_ip(self.request))
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
        limited = ratelimit.hit("reset-mail-ip", client_ip(self.request))
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
def resend_verification(request: AuthenticatedRequest) -> HttpResponse:
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
def profile(request: AuthenticatedRequest) -> HttpResponse:
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
def update_notifications(request: AuthenticatedRequest) -> HttpResponse:
    """Save the email preferences (an unchecked box arrives as a missing field: off)."""
    form = NotificationsForm(request.POST, instance=request.user)
    if form.is_valid():
        form.save()
        state = "on" if form.instance.email_results else "off"
        messages.success(request, f"Emails about scored submissions are {state}.")
    return redirect("accounts:profile")


@login_required
@require_POST
def accept_invitation(request: AuthenticatedRequest, invitation_id: int) -> HttpResponse:
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
def decline_invitation(request: AuthenticatedRequest, invitation_id: int) -> HttpResponse:
    invitation = get_invitation_for(request.user, invitation_id)
    try:
        services.decline_invitation(invitation)
    except services.TeamError as exc:
        messages.error(request, str(exc))
    else:
        messages.info(request, f"You declined the invitation to {invitation.team.name}.")
    return redirect("accounts:profile")
