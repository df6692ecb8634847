"""Writes that touch accounts and teams, each under one transaction."""

from __future__ import annotations

from django.db import transaction
from django.utils.text import slugify

from leaderboard.accounts.models import Membership, Team, User


def unique_team_slug(name: str) -> str:
    base = slugify(name)[:90] or "team"
    slug, n = base, 1
    while Team.objects.filter(slug=slug).exists():
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
    team = Team.objects.create(name=name, slug=unique_team_slug(name))
    Membership.objects.create(team=team, user=owner, role=Membership.Role.OWNER)
    return team
