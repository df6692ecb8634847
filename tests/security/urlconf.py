"""Every URL of the site, read from the URL conf, made concrete with the security world's objects.

``site_urls(world)`` walks ``get_resolver()`` (never a hand list), so a page another
lane adds shows up here the moment it is routed. Each pattern's arguments are filled
from ``ARGUMENTS`` (by namespace and argument name); an argument nobody filled fails
the suite with the URL's name, so a new page must be given its objects here.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.text import slugify


@dataclass(frozen=True)
class Route:
    name: str  # "namespace:name"; unnamed patterns: "namespace:<route>"
    route: str  # the pattern as written, prefixes joined
    url: str  # a concrete path to request


def _walk(resolver, prefix: str = "", namespaces: tuple[str, ...] = ()):
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            ns = namespaces + ((pattern.namespace,) if pattern.namespace else ())
            yield from _walk(pattern, prefix + str(pattern.pattern), ns)
        elif isinstance(pattern, URLPattern):
            route = prefix + str(pattern.pattern)
            label = pattern.name or f"<{route}>"
            yield ":".join(namespaces + (label,)), route


# Regular-expression routes have no converters to fill: their sample paths, by URL name.
REGEX_SAMPLES = {
    "api:<api/v1/^[\\s\\S]*$>": "/api/v1/no-such-endpoint",
    "admin:app_list": "/admin/accounts/",  # its regex lists the installed apps, so it changes
    "admin:<admin/(?P<url>.*)$>": "/admin/no-such-page/",
}


def arguments(world) -> list[tuple[str, str, str]]:
    """(URL-name glob, argument, value): the first matching row fills an argument."""
    w = world
    sub = str(w.private_submission.pk)
    return [
        ("teams:*", "slug", w.private_submission.team.slug),
        ("teams:revoke_invitation", "invitation_id", str(w.invitation_from_lab.pk)),
        ("teams:*", "member_id", str(w.bob.pk)),
        ("accounts:*", "invitation_id", str(w.invitation_to_alice.pk)),
        ("accounts:verify_email", "token", "not-a-real-token"),
        ("accounts:signup_confirm", "token", "not-a-real-token"),
        ("accounts:password_reset_confirm", "uidb64", "MQ"),
        ("accounts:password_reset_confirm", "token", "set-password"),
        ("tokens:*", "token_id", str(w.token_id)),
        ("organize:revoke-host", "username", w.bob.username),
        ("api:challenge*", "slug", w.challenge.slug),
        ("api:team-decision", "slug", w.challenge.slug),
        ("api:team-decision", "team", w.private_submission.team.slug),
        ("api:team-decision", "decision", "approve"),
        ("api:*", "challenge", w.challenge.slug),
        ("api:*", "phase", w.phase.slug),
        ("api:problem-type", "kind", "not-found"),
        ("api:*", "slug", "mudi"),
        ("boards:phase*", "slug", w.challenge.slug),
        ("submissions:phase-*", "slug", w.challenge.slug),
        ("submissions:my", "slug", w.challenge.slug),
        ("drugs:*", "drugbank_id", "DB00001"),
        ("docs:page", "slug", "metrics"),
        ("organize:remove-organizer", "user_id", str(w.users["organizer"].pk)),
        ("organize:participant-decide", "team_slug", w.private_submission.team.slug),
        ("methods:*", "team_slug", w.private_submission.team.slug),
        ("methods:suite", "slug", "all"),
        ("methods:*", "slug", slugify(" ".join(w.private_submission.method_name.split()).casefold())),
        ("boards:dataset", "family", "mudi"),
        ("boards:dataset", "dataset", "mudi"),
        ("boards:*", "slug", "mudi"),
        ("submissions:*", "slug", "mudi"),
        ("challenges:*", "slug", w.challenge.slug),
        ("organize:*", "slug", w.challenge.slug),
        ("*", "phase_slug", w.phase.slug),
        ("*", "submission_id", sub),
        ("admin:*", "object_id", str(w.private_submission.team.pk)),
        ("admin:*", "id", str(w.users["participant"].pk)),
        ("admin:*", "content_type_id", "1"),
    ]


_CONVERTER = re.compile(r"<(?:(?P<conv>[^>:]+):)?(?P<arg>[^>]+)>")


def site_urls(world) -> list[Route]:
    """Every routed pattern with a concrete URL; raises naming the URL whose argument is unknown."""
    table = arguments(world)
    routes = []
    for name, route in _walk(get_resolver()):
        if name in REGEX_SAMPLES:
            routes.append(Route(name, route, REGEX_SAMPLES[name]))
            continue
        if "(?P<" in route or "^" in route:
            raise LookupError(f"{name} ({route}) is a regular expression: give it a sample path in REGEX_SAMPLES")

        def fill(match: re.Match, name: str = name, route: str = route) -> str:
            arg = match["arg"]
            for glob, key, value in table:
                if key == arg and fnmatch.fnmatchcase(name, glob):
                    return value
            raise LookupError(
                f"{name} ({route}): no value for <{arg}>; add a row to tests/security/urlconf.py ARGUMENTS"
            )

        routes.append(Route(name, route, "/" + _CONVERTER.sub(fill, route)))
    return routes
