"""The request type of views behind @login_required (or another check that the user signed in)."""

from __future__ import annotations

from django.http import HttpRequest

from leaderboard.accounts.models import User


class AuthenticatedRequest(HttpRequest):
    """A request whose user has signed in: ``request.user`` is a ``User``, never ``AnonymousUser``.

    Only an annotation: Django builds plain HttpRequests. Annotate a view with it only when a
    decorator (login_required, or a check of its own) turns anonymous visitors away first.
    """

    user: User
