"""The profile's token section: create (the token is shown once), list, revoke."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from leaderboard.api import tokens
from leaderboard.api.models import ApiToken

EXPIRY_CHOICES = [("", "Never"), ("7", "In 7 days"), ("30", "In 30 days"), ("90", "In 90 days"), ("365", "In a year")]


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, label="Token name", help_text="e.g. the machine or script that uses it")
    scope = forms.ChoiceField(choices=ApiToken.Scope.choices, initial=ApiToken.Scope.SUBMIT)
    expires_in = forms.ChoiceField(choices=EXPIRY_CHOICES, required=False, label="Expires")

    def expires_at(self) -> dt.datetime | None:
        days = self.cleaned_data.get("expires_in")
        return timezone.now() + dt.timedelta(days=int(days)) if days else None


@login_required
@require_POST
def create(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give the token a name and a scope.")
        return redirect(reverse("accounts:profile") + "#tokens")
    token, raw = tokens.create_token(
        request.user, form.cleaned_data["name"].strip(), form.cleaned_data["scope"], form.expires_at()
    )
    # Rendered, not redirected: the raw token must never pass through a session or a cookie.
    response = render(request, "api/token_created.html", {"token": token, "raw": raw})
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token = tokens.get_token_for(request.user, token_id)
    tokens.revoke(token)
    messages.success(request, f"The token '{token.name}' is revoked; requests with it now get 401.")
    return redirect(reverse("accounts:profile") + "#tokens")
