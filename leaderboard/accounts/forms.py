"""Forms for sign-up, notification settings and teams. They validate and normalise; services write."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import (
    PasswordChangeForm,
    SetPasswordForm,
    SetPasswordMixin,
    UserChangeForm,
    UserCreationForm,
)

from leaderboard.accounts import names
from leaderboard.accounts.models import Team, User


def lookalike(
    name: str, *, user_id: int | None = None, team_id: int | None = None, for_username: bool = False
) -> str | None:
    """An existing username or team name that looks like ``name`` (``names.skeleton``), other than the row's own.

    Usernames and team names are checked together: a user's personal team is
    named after them, so either can impersonate the other.
    """
    key = names.skeleton(name)
    users = User.objects.filter(name_key=key)
    teams = Team.objects.filter(name_key=key)
    if user_id is not None:
        # The user's own personal team carries their name.
        users = users.exclude(pk=user_id)
        teams = teams.exclude(personal=True, memberships__user_id=user_id)
    if team_id is not None:
        teams = teams.exclude(pk=team_id)
    if for_username:
        # A username equal to a team's name is not a look-alike: the new personal team gets "name (2)".
        teams = teams.exclude(name=name)
    return users.values_list("username", flat=True).first() or teams.values_list("name", flat=True).first()


def refuse_lookalike(
    name: str, *, user_id: int | None = None, team_id: int | None = None, for_username: bool = False
) -> str:
    """``name`` if no other user or team has a look-alike name, else a ValidationError saying which."""
    if not name:  # already refused by an earlier check of the field
        return name
    existing = lookalike(name, user_id=user_id, team_id=team_id, for_username=for_username)
    if existing is not None:
        raise forms.ValidationError(names.lookalike_message(name, existing))
    return name


class ValidatorErrorsUnderThePassword(SetPasswordMixin):
    """Put the password validators' errors ("This password is too common.") under the password field.

    Django adds them to the confirmation field, which makes people retype the
    confirmation instead of choosing another password.
    """

    password_field = "password1"

    def validate_password_for_user(self, user, *args, **kwargs) -> None:
        super().validate_password_for_user(user, password_field_name=self.password_field)


class SignupForm(ValidatorErrorsUnderThePassword, UserCreationForm):
    """Username, email and a password checked by Django's validators; nothing is saved (``signup``)."""

    email = forms.EmailField(
        max_length=254, help_text="For password resets and, if you want them, results of your submissions."
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_username(self) -> str:
        # The username is also the personal team's name on the boards: no look-alike of another user or team.
        return refuse_lookalike(super().clean_username(), for_username=True)

    def clean_email(self) -> str:
        return User.objects.normalize_email(self.cleaned_data["email"].strip())

    def validate_unique(self) -> None:
        # Whether the address already has an account is not said here (that would reveal it): the mail says it.
        # _get_validation_exclusions and _update_errors are what ModelForm.validate_unique itself
        # calls; django-stubs leaves these private helpers out.
        exclude = self._get_validation_exclusions() | {"email"}  # type: ignore[attr-defined]
        try:
            self.instance.validate_unique(exclude=exclude)
        except forms.ValidationError as error:
            self._update_errors(error)  # type: ignore[attr-defined]


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
        return refuse_lookalike(name)


class AdminUserCreationForm(UserCreationForm):
    """The admin's "add user": the same look-alike rule as sign-up."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def clean_username(self) -> str:
        return refuse_lookalike(super().clean_username(), for_username=True)


class AdminUserChangeForm(UserChangeForm):
    """The admin's user page: a renamed user may not take a look-alike of another name (unchanged names pass)."""

    class Meta(UserChangeForm.Meta):
        model = User
        fields = "__all__"

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        if "username" in self.changed_data:
            refuse_lookalike(username, user_id=self.instance.pk, for_username=True)
        return username


class AdminTeamForm(forms.ModelForm):
    """The admin's team page: a renamed team may not take a look-alike of another name (unchanged names pass)."""

    class Meta:
        model = Team
        fields = ("name", "slug", "personal")

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if "name" in self.changed_data:
            refuse_lookalike(name, team_id=self.instance.pk)
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
