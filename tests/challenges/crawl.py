"""Crawling the whole site for secrets, shared by the leak tests.

``routes`` reads every route of the URL conf (``get_resolver()``, not a hand list); ``every_url``
fills their parameters from a test's objects; ``needles`` collects every private and all-rows value
in every way the site writes a number; ``leaks`` finds them in a response body.
"""

from __future__ import annotations

import itertools
import re
from decimal import ROUND_HALF_UP, Decimal

from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

from leaderboard.submissions.models import ReplicateSet, Result, Submission
from scoring.replicates import pair_test

PARAM = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


def formats(value: float) -> set[str]:
    """Every way the site writes a number: metric_text, floatformat:4, :g, and repr (CSV, JSON, chart data)."""
    out = {f"{value:.4f}", f"{value:g}", repr(value)}
    out.add(str(Decimal(repr(value)).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)))
    return out


def routes(patterns=None, prefix: str = ""):
    """Every route of the URL conf as (route text, name); regex routes are skipped but the API's catch-all."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            yield from routes(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            if isinstance(entry.pattern, RoutePattern):
                yield prefix + str(entry.pattern), entry.name
            elif prefix.startswith("api/"):
                yield prefix + "no/such/endpoint", entry.name


def fillings(route: str, values: dict[str, list[str]]) -> list[str]:
    """The route with its parameters replaced by every combination of the test's objects."""
    names = [m.group("name") for m in PARAM.finditer(route)]
    choices = []
    for name in names:
        key = name
        if name == "slug" and route.startswith(("tasks/", "api/v1/tasks/")):
            key = "task"
        elif name == "slug":
            key = "team" if route.startswith("teams/") else "challenge"
        choices.append(values.get(key, values["other"]))
    out = []
    for combination in itertools.product(*choices):
        parts = iter(combination)
        out.append("/" + PARAM.sub(lambda m, parts=parts: next(parts), route))
    return out


def is_round(value: float) -> bool:
    """Counts (support, true positives) and short fractions (0.5, 0.75, 0.625) are written everywhere,
    chart colour scales and axis ticks included: finding one is no evidence either way."""
    return abs(value * 1000 - round(value * 1000)) < 1e-9


def needles(submissions) -> dict[str, str]:
    """{text: what it is} for every private and all-rows value no public value shares a spelling with."""
    ids = [s.pk for s in submissions.values()]
    public = set()
    for value in Result.objects.filter(submission_id__in=ids, part="public").values_list("value", flat=True):
        public |= formats(value)
    for value in Submission.objects.filter(pk__in=ids).values_list("primary_value", flat=True):
        public |= formats(value)
    # The public rows' statistics (stored replicates: intervals, and the compare page's differences).
    sets = list(ReplicateSet.objects.filter(submission_id__in=ids))
    for rs in sets:
        public |= {text for v in (rs.observed, rs.low, rs.high) if v is not None for text in formats(v)}
    for a, b in itertools.permutations(sets, 2):
        if a.metric == b.metric:
            try:
                outcome = pair_test(a.replicates(), b.replicates())
            except ValueError:
                continue
            public |= {text for v in (outcome.delta, outcome.low, outcome.high) if v is not None for text in formats(v)}
    found = {}
    hidden = Result.objects.filter(submission_id__in=ids, part__in=["private", "all"])
    for sid, part, key, seed, value in hidden.values_list("submission_id", "part", "key", "seed", "value"):
        if is_round(value):
            continue
        for text in formats(value) - public:
            found[text] = f"{part} {key} seed={seed} of {sid}"
    for s in Submission.objects.filter(pk__in=ids):
        assert not is_round(s.private_primary_value), "the test's predictions must give distinctive private values"
        private = formats(s.private_primary_value) - public
        assert f"{s.private_primary_value:.4f}" in private, "the test's predictions must give distinct private values"
        for text in private:
            found[text] = f"private primary of {s.pk}"
    return found


def body(response) -> str:
    if getattr(response, "streaming", False):
        content = b"".join(response.streaming_content)
    else:
        content = response.content
    return content.decode("utf-8", errors="replace")


def every_url(phase, submissions, users) -> list[str]:
    from leaderboard.accounts.models import Team

    ids = [str(s.pk) for s in submissions.values()]
    values = {
        "task": [phase.task_slug],
        "challenge": [phase.challenge.slug],
        "team": list(Team.objects.values_list("slug", flat=True)),
        "phase_slug": [phase.slug],
        "phase": [phase.slug],
        "submission_id": ids,
        "team_slug": list(Team.objects.values_list("slug", flat=True)),
        "family": ["mudi"],
        "dataset": ["mudi"],
        "kind": ["not-found", "validation"],
        "other": ["1"],
    }
    urls = []
    for route, _ in routes():
        for url in fillings(route, values):
            urls.append(url)
            if "board" in url or "leaderboard" in url or url.startswith("/tasks/"):
                urls += [url + "?private=1", url + "?direction=agnostic&private=1"]
    for a, b in itertools.combinations(ids, 2):
        urls += [f"/compare/?ids={a},{b}", f"/compare/?ids={a},{b}&direction=agnostic"]
    urls += [f"/api/v1/submissions?phase={phase.slug}", "/api/v1/submissions?status=scored"]
    return urls


def viewers(alice, charlie):
    """(who, client, API headers): anonymous, a participant, a member of another team."""
    from leaderboard.api.tokens import create_token

    anonymous = Client()
    participant = Client()
    participant.force_login(alice)
    other = Client()
    other.force_login(charlie)
    return [
        ("anonymous", anonymous, {}),
        ("participant", participant, {"HTTP_AUTHORIZATION": f"Bearer {create_token(alice, 'leak', 'read')[1]}"}),
        ("other team", other, {"HTTP_AUTHORIZATION": f"Bearer {create_token(charlie, 'leak', 'read')[1]}"}),
    ]


def leaks(text: str, found: dict[str, str]) -> list[str]:
    out = []
    for needle, what in found.items():
        at = text.find(needle)
        # A needle inside a longer number is not that number ("0.6933" in "10.69331").
        while at != -1:
            before = text[at - 1] if at else " "
            after = text[at + len(needle)] if at + len(needle) < len(text) else " "
            if not (before.isdigit() or before == ".") and not after.isdigit():
                out.append(f"{needle!r} ({what}) in ...{text[max(0, at - 80) : at + 40]!r}...")
                break
            at = text.find(needle, at + 1)
    return out
