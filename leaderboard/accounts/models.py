"""People and the teams they submit as.

The team, not the user, owns submissions, quotas and leaderboard rows. Every
user has a personal team created with the account, so a researcher working
alone never has to think about teams.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q
from django.urls import reverse

from leaderboard.accounts.names import skeleton


class User(AbstractUser):
    email = models.EmailField(unique=True)
    # Send an email when a submission finishes scoring (on by default).
    email_results = models.BooleanField(default=True)
    # Submitting needs a confirmed address (a signed link by mail): one person, one mailbox, one quota.
    email_verified = models.BooleanField(default=False)
    # ``names.skeleton(username)``: sign-up and renames refuse a name whose skeleton another user or team has.
    name_key = models.CharField(max_length=600, blank=True, db_index=True, editable=False)

    def save(self, *args, **kwargs) -> None:
        _set_name_key(self, self.username, kwargs)
        super().save(*args, **kwargs)

    @property
    def personal_team(self) -> Team:
        return self.teams.get(personal=True, memberships__role=Membership.Role.OWNER)


class PendingSignup(models.Model):
    """A sign-up waiting for its address to be confirmed: no account, and no taken name, until then.

    So the sign-up form answers the same whether or not the address already has
    an account (the mail says which); the link carries a random token of which
    only the sha256 is kept. Rows older than ``signup.MAX_AGE`` are deleted.
    """

    username = models.CharField(max_length=150)
    email = models.EmailField()
    password = models.CharField(max_length=128)  # a hash, as User.password
    token_hash = models.CharField(max_length=64, unique=True)
    next_url = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)  # the expiry sweep's filter

    def __str__(self) -> str:
        return f"{self.username} <{self.email}>"


class TeamQuerySet(models.QuerySet):
    def for_user(self, user: User) -> TeamQuerySet:
        return self.filter(memberships__user=user)


class Team(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    # A personal team has exactly one member, its owner, and cannot be left.
    personal = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(User, through="Membership", related_name="teams")
    # ``names.skeleton(name)``, for the look-alike check of new names (not unique: older rows may share one).
    name_key = models.CharField(max_length=600, blank=True, db_index=True, editable=False)

    objects = TeamQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        _set_name_key(self, self.name, kwargs)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("teams:detail", args=[self.slug])


def _set_name_key(row: User | Team, name: str, save_kwargs: dict) -> None:
    """Keep ``row.name_key`` the skeleton of its name (and saved with it under ``update_fields``)."""
    row.name_key = skeleton(name)
    fields = save_kwargs.get("update_fields")
    if fields is not None and ("username" in fields or "name" in fields):
        save_kwargs["update_fields"] = {*fields, "name_key"}


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        MEMBER = "member", "Member"

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="membership_unique_team_user")]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"


class Invitation(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        REVOKED = "revoked", "Revoked"

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invitations")
    invited_user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="invitations")
    invited_by = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    responded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # At most one open invitation per person and team.
            models.UniqueConstraint(
                fields=["team", "invited_user"],
                condition=Q(status="pending"),
                name="invitation_one_pending_per_user",
            )
        ]

    def __str__(self) -> str:
        return f"{self.invited_user} to {self.team} ({self.status})"
