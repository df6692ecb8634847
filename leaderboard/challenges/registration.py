"""Registering a team for an organized challenge, and withdrawing it: the rules in one place.

The team that registers is the team that submits (``submissions.quotas.check_may_submit``
asks ``submission_refusal`` here). Every refusal is a ``RegistrationRefused`` whose
message is shown as is. Decisions:

- Any member of a team may register it; they accept the terms for the whole team.
- ``domains`` mode: the registering member's *verified* address must be at an allowed
  domain or one of its subdomains (``cs.uni-example.edu`` passes for ``uni-example.edu``:
  universities hand out departmental addresses), matched on whole labels, so
  ``evil-uni-example.edu`` does not pass.
- A person is in at most one registered team per challenge: every member of the team is
  checked, not only the one registering. A rejected registration does not count (the
  team was turned away; its members may try with another team); a pending, approved or
  disqualified one does (a disqualified team's members cannot come back as a new team).
- Registration closes when the challenge has finished (its last phase has ended).
- A team withdraws only before its first submission to the challenge, and only while
  pending or approved (withdrawing must not erase a rejection or a disqualification).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from leaderboard.accounts.models import Membership, Team, User
from leaderboard.challenges.models import Challenge, Phase, Registration

# Registrations that hold a person: they block the same person in another team of the challenge.
HOLDING = (Registration.Status.PENDING, Registration.Status.APPROVED, Registration.Status.DISQUALIFIED)


class RegistrationRefused(Exception):
    """A rule forbids this registration (or withdrawal); the message says which, for the page as is."""


def email_domain(address: str) -> str:
    return address.rpartition("@")[2].strip().lower()


def domain_allowed(address: str, allowed: list[str]) -> bool:
    """Whether ``address`` is at one of the ``allowed`` domains or a subdomain of one (whole labels)."""
    domain = email_domain(address)
    return any(domain == d or domain.endswith("." + d) for d in (a.strip().lower().lstrip("@") for a in allowed) if d)


def registration_of_team(challenge: Challenge, team: Team) -> Registration | None:
    return Registration.objects.filter(challenge=challenge, team=team).first()


def registration_of_user(challenge: Challenge, user: User | AnonymousUser) -> Registration | None:
    """The registration of one of ``user``'s teams for the challenge (a holding one first), or None."""
    if not user.is_authenticated:
        return None
    rows = list(
        Registration.objects.filter(challenge=challenge, team__memberships__user=user).select_related("team", "user")
    )
    rows.sort(key=lambda r: (r.status not in HOLDING, r.created_at))
    return rows[0] if rows else None


def check_may_register(challenge: Challenge, team: Team, user: User, *, accept_terms: bool) -> None:
    """Raise ``RegistrationRefused`` with the reason if ``user`` may not register ``team`` now."""
    if challenge.kind != Challenge.Kind.ORGANIZED:
        raise RegistrationRefused("Standing benchmarks take no registration: submit to a task directly.")
    if not user.email_verified:
        raise RegistrationRefused(
            "Verify your e-mail address before registering: open the link we mailed you "
            "(your profile page can send it again)."
        )
    if not team.memberships.filter(user=user).exists():
        raise RegistrationRefused("You can only register a team you are a member of.")
    if challenge.organizers.filter(pk__in=team.memberships.values("user_id")).exists():
        raise RegistrationRefused(
            f"The team {team.name} includes an organizer of this challenge; organizers hold the hidden labels "
            "and cannot take part."
        )
    if challenge.state() == "finished":
        raise RegistrationRefused("Registration is closed: this challenge has finished.")
    existing = registration_of_team(challenge, team)
    if existing is not None:
        raise RegistrationRefused(
            f"The team {team.name} is already registered for this challenge ({existing.get_status_display().lower()})."
        )
    size = team.memberships.count()
    if challenge.max_team_size and size > challenge.max_team_size:
        raise RegistrationRefused(
            f"The team {team.name} has {size} members; this challenge allows at most {challenge.max_team_size} "
            "per team. Register a smaller team."
        )
    members = team.memberships.values_list("user_id", flat=True)
    clash = (
        Registration.objects.filter(challenge=challenge, status__in=HOLDING, team__memberships__user_id__in=members)
        .exclude(team=team)
        .select_related("team")
        .first()
    )
    if clash is not None:
        usernames = sorted(
            Membership.objects.filter(team=clash.team, user_id__in=members).values_list("user__username", flat=True)
        )
        verb = "is" if len(usernames) == 1 else "are"
        who = "You are" if user.username in usernames else f"{', '.join(usernames)} {verb}"
        raise RegistrationRefused(
            f"{who} already in the team {clash.team.name}, which is registered for this challenge: "
            "a person takes part through one team only."
        )
    if challenge.terms and not accept_terms:
        raise RegistrationRefused("Accept the challenge's terms to register.")
    if challenge.registration_mode == Challenge.Registration.DOMAINS and not domain_allowed(
        user.email, challenge.allowed_domains
    ):
        raise RegistrationRefused(
            f"This challenge is open to addresses at {', '.join(challenge.allowed_domains)} (and their subdomains) "
            f"only; yours is at {email_domain(user.email)}. Change your address on your profile, verify it, "
            "and register again."
        )


def register(
    challenge: Challenge, team: Team, user: User, *, accept_terms: bool, wants_announcements: bool = True
) -> Registration:
    """Register ``team`` for ``challenge``: approved at once, or pending in approval mode.

    Raises ``RegistrationRefused`` with the reason; nothing is stored then.
    """
    check_may_register(challenge, team, user, accept_terms=accept_terms)
    pending = challenge.registration_mode == Challenge.Registration.APPROVAL
    try:
        with transaction.atomic():
            return Registration.objects.create(
                challenge=challenge,
                team=team,
                user=user,
                status=Registration.Status.PENDING if pending else Registration.Status.APPROVED,
                accepted_terms_at=timezone.now() if challenge.terms else None,
                wants_announcements=wants_announcements,
            )
    except IntegrityError:  # a teammate registered the same team a moment earlier
        raise RegistrationRefused(f"The team {team.name} is already registered for this challenge.") from None


def has_submitted(registration: Registration) -> bool:
    """Whether the registered team has any submission to a phase of the challenge."""
    # The reverse relation (Team.submissions): challenges sits below submissions and imports none of it.
    return registration.team.submissions.filter(phase__challenge=registration.challenge).exists()


def withdraw(registration: Registration, user: User) -> None:
    """Remove the team's registration: only a member, only before its first submission, only pending or approved."""
    if not registration.team.memberships.filter(user=user).exists():
        raise RegistrationRefused("Only a member of the team can withdraw its registration.")
    if registration.status not in (Registration.Status.PENDING, Registration.Status.APPROVED):
        raise RegistrationRefused(
            f"A {registration.get_status_display().lower()} registration cannot be withdrawn; contact the organizers."
        )
    if has_submitted(registration):
        raise RegistrationRefused(
            f"The team {registration.team.name} has already submitted to this challenge, so its registration stays."
        )
    registration.delete()


def submission_refusal(phase: Phase, team: Team) -> str | None:
    """Why ``team`` may not submit to the organized ``phase`` (a sentence), or None if its registration allows it.

    Standing phases take no registration (None). The team must hold an approved registration
    and still be within the challenge's team size.
    """
    challenge = phase.challenge
    if challenge.kind != Challenge.Kind.ORGANIZED:
        return None
    registration = registration_of_team(challenge, team)
    if registration is None:
        return (
            f"The team {team.name} is not registered for {challenge.title}: register it on the challenge's page "
            "first (the team that registers is the one that submits)."
        )
    if registration.status == Registration.Status.PENDING:
        return f"The registration of {team.name} for {challenge.title} is waiting for the organizers' approval."
    if registration.status in (Registration.Status.REJECTED, Registration.Status.DISQUALIFIED):
        verb = registration.get_status_display().lower()
        reason = f" The reason given: {registration.reason}" if registration.reason else ""
        return f"The team {team.name} was {verb} from {challenge.title}, so it cannot submit.{reason}"
    size = team.memberships.count()
    if challenge.max_team_size and size > challenge.max_team_size:
        return (
            f"The team {team.name} now has {size} members; {challenge.title} allows at most "
            f"{challenge.max_team_size} per team. Remove members to submit again."
        )
    return None


def registrable_teams(user: User):
    """The user's teams, personal first (the register form's choices)."""
    return Team.objects.for_user(user).order_by("-personal", "name")
