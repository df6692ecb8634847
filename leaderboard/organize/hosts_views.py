"""/staff/hosts/: staff see who may create challenges, grant the host role by username and revoke it.

Staff only; everyone else gets 404, like the manage pages. The writes are ``organize.hosts``'.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from leaderboard.organize import hosts


class GrantForm(forms.Form):
    username = forms.CharField(max_length=150, label="Username", help_text="The account that will create challenges.")


def _require_staff(user) -> None:
    if not user.is_staff:
        raise Http404("No such page.")


@login_required
@require_http_methods(["GET", "POST"])
def host_list(request: HttpRequest) -> HttpResponse:
    _require_staff(request.user)
    form = GrantForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = hosts.grant_host(form.cleaned_data["username"], by=request.user)
        except hosts.HostError as error:
            form.add_error("username", str(error))
        else:
            messages.success(request, f"{user.username} can host challenges now.")
            return redirect("organize:hosts")
    status = 400 if request.method == "POST" else 200
    return render(request, "organize/hosts.html", {"form": form, "hosts": hosts.hosts()}, status=status)


@login_required
@require_POST
def revoke(request: HttpRequest, username: str) -> HttpResponse:
    _require_staff(request.user)
    try:
        user = hosts.revoke_host(username, by=request.user)
    except hosts.HostError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"{user.username} can no longer create challenges; the ones they organize stay.")
    return redirect("organize:hosts")
