"""``Authorization: Bearer ddi_...`` and the scope a view needs."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, permissions

from leaderboard.api import tokens
from leaderboard.api.models import ApiToken
from leaderboard.api.problems import ApiProblem, TokenProblem


class BearerTokenAuthentication(authentication.BaseAuthentication):
    """No header: anonymous. A bad, revoked or expired token: 401 saying which."""

    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        keyword, _, raw = header.partition(" ")
        raw = raw.strip()
        if keyword.lower() != self.keyword.lower() or not raw:
            raise TokenProblem("invalid-token", "Invalid token", "Send the token as 'Authorization: Bearer ddi_...'.")
        try:
            token = ApiToken.objects.select_related("user").get(token_hash=tokens.hash_token(raw))
        except ApiToken.DoesNotExist:
            raise TokenProblem("invalid-token", "Invalid token", "This token does not exist.") from None
        if token.is_revoked:
            raise TokenProblem("token-revoked", "Token revoked", f"The token '{token.name}' was revoked.")
        if token.is_expired:
            raise TokenProblem(
                "token-expired",
                "Token expired",
                f"The token '{token.name}' expired at {token.expires_at:%Y-%m-%d %H:%M} UTC.",
            )
        if not token.user.is_active:
            raise TokenProblem("invalid-token", "Invalid token", "The token's account is disabled.")
        tokens.touch(token)
        return token.user, token

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="api"'


def requires(scope: str, *, anonymous: bool = False) -> type[permissions.BasePermission]:
    """A permission class: a token granting ``scope`` (or no token at all when ``anonymous``)."""

    class ScopeRequired(permissions.BasePermission):
        anonymous_allowed = anonymous  # the schema documents the token as optional then

        def has_permission(self, request, view) -> bool:
            token = request.auth
            if token is None:
                if anonymous:
                    return True
                raise ApiProblem(
                    401,
                    "token-required",
                    "Authentication required",
                    f"This needs a token with the '{scope}' scope: 'Authorization: Bearer ddi_...'.",
                    headers={"WWW-Authenticate": 'Bearer realm="api"'},
                )
            if not tokens.grants(token.scope, scope):
                raise ApiProblem(
                    403,
                    "insufficient-scope",
                    "Insufficient scope",
                    f"This needs a token with the '{scope}' scope; this token has '{token.scope}'.",
                    required_scope=scope,
                    token_scope=token.scope,
                )
            return True

    ScopeRequired.__name__ = f"Requires{scope.title()}{'OrAnonymous' if anonymous else ''}"
    return ScopeRequired


class BearerTokenScheme(OpenApiAuthenticationExtension):
    """How the schema describes our tokens (drf-spectacular finds it by target class)."""

    target_class = "leaderboard.api.authentication.BearerTokenAuthentication"
    name = "bearerToken"
    priority = 1

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "A ddi_... token from your profile page."}
