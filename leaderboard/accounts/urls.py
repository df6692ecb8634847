"""/accounts/...: sign-up, log in and out, password change and reset, profile, invitations.

Django's auth views are wired with explicit templates and success URLs because
this URLconf is namespaced (``accounts:``) and their defaults reverse global names.
"""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from leaderboard.accounts import views
from leaderboard.accounts.forms import ChangePasswordForm, NewPasswordForm

app_name = "accounts"
urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("signup/sent/", views.signup_sent, name="signup_sent"),
    path("signup/confirm/<str:token>/", views.signup_confirm, name="signup_confirm"),
    path("verify/resend/", views.resend_verification, name="resend_verification"),
    path("verify/<str:token>/", views.verify_email, name="verify_email"),
    # Failed log-ins are braked per account and client address, and per address (leaderboard.accounts.ratelimit).
    path("login/", views.ThrottledLoginView.as_view(), name="login"),
    # Django's LogoutView accepts POST only: a link or prefetch cannot log anyone out.
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("profile/", views.profile, name="profile"),
    path("profile/notifications/", views.update_notifications, name="notifications"),
    path("invitations/<int:invitation_id>/accept/", views.accept_invitation, name="accept_invitation"),
    path("invitations/<int:invitation_id>/decline/", views.decline_invitation, name="decline_invitation"),
    path(
        "password/change/",
        auth_views.PasswordChangeView.as_view(
            form_class=ChangePasswordForm, success_url=reverse_lazy("accounts:password_change_done")
        ),
        name="password_change",
    ),
    path("password/change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path(
        "password/reset/",
        views.ThrottledPasswordResetView.as_view(success_url=reverse_lazy("accounts:password_reset_done")),
        name="password_reset",
    ),
    path("password/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(
            form_class=NewPasswordForm, success_url=reverse_lazy("accounts:password_reset_complete")
        ),
        name="password_reset_confirm",
    ),
    path("password/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
]
