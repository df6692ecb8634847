"""Forms for sign-up, notification settings and teams. They validate and normalise; services write."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import PasswordChangeForm, SetPasswordForm, UserCreationForm

from leaderboard.accounts.models import Team, User


class ValidatorErrorsUnderThePassword:
    """Put the password validators' errors ("This password is too common.") under the password field.

    Django adds them to the confirmation field, which makes people retype the
    confirmation instead of choosing another password.
    """

    password_field = "password1"

    def validate_password_for_user(self, user, *args, **kwargs) -> None:
        super().validate_password_for_user(user, password_field_name=self.password_field)


class SignupForm(ValidatorErrorsUnderThePassword, UserCreationForm):
    """Username, email (unique, case-insensitive) and a password checked by Django's validators."""

    email = forms.EmailField(
        max_length=254, help_text="For password resets and, if you want them, results of your submissions."
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_email(self) -> str:
        email = User.objects.normalize_email(self.cleaned_data["email"].strip())
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this email address already exists.")
        return email


class NotificationsForm(forms.ModelForm):
    """The per-user email preferences shown on the profile page."""

    class Meta:
        model = User
        fields = ("email_results",)
        labels = {"email_results": "Email me when a submission is scored"}


class TeamCreateForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="Shown on the leaderboards next to your team's submissions.")

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if Team.objects.filter(name__iexact=name).exists():
            raise forms.ValidationError("A team with this name already exists.")
        return name


class InviteForm(forms.Form):
    username = forms.CharField(max_length=150, label="Invite by username")

    def clean_username(self) -> User:
        username = self.cleaned_data["username"].strip()
        user = User.objects.filter(username__iexact=username, is_active=True).first()
        if user is None:
            raise forms.ValidationError(f"There is no user named {username!r}.")
        return user


class NewPasswordForm(ValidatorErrorsUnderThePassword, SetPasswordForm):
    """Setting a password from a reset link."""

    password_field = "new_password1"


class ChangePasswordForm(ValidatorErrorsUnderThePassword, PasswordChangeForm):
    """Changing the password while logged in."""

    password_field = "new_password1"
