"""The register page of an organized challenge: join with a team, accept the terms, withdraw."""

from __future__ import annotations

from typing import cast

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from leaderboard.accounts.authenticated import AuthenticatedRequest
from leaderboard.accounts.models import Team, User
from leaderboard.challenges import registration as service
from leaderboard.challenges.access import get_challenge_for
from leaderboard.challenges.models import Challenge, Registration


class TeamChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj) -> str:
        return "Just me (my personal team)" if obj.personal else f"{obj.name} ({obj.memberships.count()} members)"


class RegistrationForm(forms.Form):
    use_required_attribute = False

    team = TeamChoiceField(queryset=Team.objects.none(), empty_label=None, label="Register the team")
    accept_terms = forms.BooleanField(required=False, label="I accept the terms above for my team")
    wants_announcements = forms.BooleanField(
        required=False, initial=True, label="E-mail me the organizers' announcements"
    )

    def __init__(self, *args, challenge: Challenge, user: User, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        teams = service.registrable_teams(user)
        field = cast(TeamChoiceField, self.fields["team"])
        field.queryset = teams
        if not challenge.terms:
            del self.fields["accept_terms"]


def _context(challenge: Challenge, user: User, form: RegistrationForm | None, registration) -> dict:
    return {
        "challenge": challenge,
        "form": form,
        "registration": registration,
        "can_withdraw": registration is not None
        and registration.status in (Registration.Status.PENDING, Registration.Status.APPROVED)
        and not service.has_submitted(registration),
        "is_finished": challenge.state() == "finished",
    }


@login_required
def register(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    access = get_challenge_for(request.user, slug)
    challenge = access.challenge
    user = request.user
    registration = service.registration_of_user(challenge, user)
    # A rejected registration holds nobody (registration.HOLDING): its members may try with another team.
    if registration is not None and registration.status != Registration.Status.REJECTED:
        return render(request, "challenges/register.html", _context(challenge, user, None, registration))
    form = RegistrationForm(request.POST or None, challenge=challenge, user=user)
    if request.method == "POST" and form.is_valid():
        try:
            created = service.register(
                challenge,
                form.cleaned_data["team"],
                user,
                accept_terms=form.cleaned_data.get("accept_terms", False),
                wants_announcements=form.cleaned_data["wants_announcements"],
            )
        except service.RegistrationRefused as refused:
            form.add_error(None, str(refused))
        else:
            if created.status == Registration.Status.PENDING:
                messages.info(request, f"{created.team.name} is registered and waiting for the organizers' approval.")
            else:
                messages.success(request, f"{created.team.name} is registered: you can submit to the open phases.")
            return redirect(challenge)
    status = 400 if request.method == "POST" else 200
    return render(request, "challenges/register.html", _context(challenge, user, form, registration), status=status)


@require_POST
@login_required
def withdraw(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    access = get_challenge_for(request.user, slug)
    user = request.user
    registration = service.registration_of_user(access.challenge, user)
    if registration is None:
        messages.info(request, "None of your teams is registered for this challenge.")
        return redirect(access.challenge)
    try:
        service.withdraw(registration, user)
    except service.RegistrationRefused as refused:
        messages.error(request, str(refused))
        return redirect("challenges:register", access.challenge.slug)
    messages.success(request, f"The registration of {registration.team.name} is withdrawn.")
    return redirect(access.challenge)
