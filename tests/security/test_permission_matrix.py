"""The permission matrix: every URL of the URL conf, GET and POST, as six roles, against written rules.

The URLs come from ``get_resolver()`` (tests/security/urlconf.py), not a hand list. The
expectations are RULES by URL name (globs like ``organize:*``), first match wins, plus a
short EXCEPTIONS table; a URL no rule covers fails ``test_every_url_is_classified`` with
its name, so a new page must be classified here before it ships.

Each request runs inside a rolled-back savepoint, so a POST that would leave a team or
revoke a token changes nothing for the next one. API URLs are requested with the role's
bearer token (the API ignores session cookies: see test_csrf.py). Private objects of
others answer 404, never 403; a 403 is only for someone who may see the object but not
do this with it (a participant asking to re-run her own submission).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client

from tests.security.conftest import ROLES
from tests.security.urlconf import site_urls

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

# Outcomes. An int is that status exactly.
OK = 200
LOGIN = "302 to the login page"
ADMIN_LOGIN = "302 to the admin login page"
REDIRECT = "302 elsewhere"
DONE = "acted (2xx, 3xx, or a 4xx about the input)"  # allowed in: not 401/403/404/405, not 5xx, not to login
NO_ERROR = "any answer below 500"

# Per role, in ROLES order: anonymous, participant, other_team, other_organizer, organizer, staff.
PUBLIC = (OK,) * 6
NOT_POSTABLE = (405,) * 6
SIGNED_IN = (LOGIN,) + (OK,) * 5
SIGNED_IN_ACTION = (LOGIN,) + (DONE,) * 5
POST_ONLY_SIGNED_IN = (LOGIN,) + (405,) * 5
ANONYMOUS_ONLY = (OK,) + (REDIRECT,) * 5
OWNER_ONLY_PAGE = (LOGIN, OK, 404, 404, 404, 404)
OWNER_ONLY_ACTION = (LOGIN, DONE, 404, 404, 404, 404)
# Alice's private submission on oscar's challenge: the team, the organizer and staff see it.
PRIVATE_SUBMISSION = (404, OK, 404, 404, OK, OK)
ORGANIZER_PAGE = (LOGIN, 404, 404, 404, OK, OK)
ORGANIZER_ACTION = (LOGIN, 404, 404, 404, DONE, DONE)
ORGANIZER_GET_ONLY = (LOGIN,) + (405,) * 5  # the method is checked first: the same answer for every challenge
STAFF_PAGE = (LOGIN, 404, 404, 404, 404, OK)  # the staff page of hosts: nobody else learns it exists
STAFF_ACTION = (LOGIN, 404, 404, 404, 404, DONE)
HOST_PAGE = (LOGIN, 403, 403, OK, OK, OK)  # the hosting permission (not a private object: 403)
HOST_ACTION = (LOGIN, 403, 403, DONE, DONE, DONE)
ADMIN = (ADMIN_LOGIN,) * 5 + (NO_ERROR,)
# The API with each role's token: reads are public, writes need a token (all roles have one).
API_READ = PUBLIC
API_WRITE_ONLY = (401,) + (405,) * 5
API_TOKEN_WRITE = (401,) + (DONE,) * 5
API_TOKEN_READ = (401,) + (OK,) * 5
API_NOT_POSTABLE = (401,) + (405,) * 5
API_ORGANIZER_READ = (401, 404, 404, 404, OK, OK)
API_ORGANIZER_WRITE = (401, 404, 404, 404, DONE, DONE)


@dataclass(frozen=True)
class Rule:
    pattern: str  # globs over the URL's name ("namespace:name"), separated by "|"
    get: tuple
    post: tuple | None  # None: not POSTed
    why: str = ""
    put: tuple | None = None  # the few URLs that take a PUT


METHODS = ("get", "post", "put")


RULES = [
    # --- organizer pages (organize and moderate lanes): the challenge's organizers and staff only.
    Rule("organize:new|organize:import", HOST_PAGE, HOST_ACTION, "creating a challenge needs the host permission"),
    Rule("organize:hosts", STAFF_PAGE, STAFF_ACTION, "staff grant the host role"),
    Rule("organize:revoke-host", POST_ONLY_SIGNED_IN, STAFF_ACTION, "staff revoke the host role"),
    Rule(
        "organize:add-organizer|organize:remove-organizer|organize:upload-truth|organize:truth-groups"
        "|organize:moderation-rerun"
        "|organize:moderation-act|organize:participant-decide|organize:reveal|organize:postpone",
        POST_ONLY_SIGNED_IN,
        ORGANIZER_ACTION,
        "an organizer's action; others learn nothing (404)",
    ),
    Rule(
        "organize:export|organize:phases|organize:download-truth|organize:moderation-submissions"
        "|organize:moderation-submission|organize:participants|organize:export-scores|organize:download-all",
        ORGANIZER_PAGE,
        ORGANIZER_GET_ONLY,
        "an organizer's page or download (the truth file included)",
    ),
    Rule("organize:*", ORGANIZER_PAGE, ORGANIZER_ACTION, "managing a challenge is for its organizers"),
    # --- admin: staff only (model permissions decide the rest).
    Rule("admin:*", ADMIN, None, "Django's admin; GET is enough to show it is staff-only"),
    # --- the API, with bearer tokens (each role's token has the widest scope).
    Rule("api:*-submit", API_NOT_POSTABLE, API_TOKEN_WRITE, "uploads need a token"),
    Rule("api:phase-truth", API_NOT_POSTABLE, API_NOT_POSTABLE, "truth is PUT by organizers", put=API_ORGANIZER_WRITE),
    Rule("api:challenge-export|api:challenge-download", API_ORGANIZER_READ, API_NOT_POSTABLE, "for organizers"),
    Rule(
        "api:challenge-rerun|api:team-decision|api:submission-moderation",
        API_NOT_POSTABLE,
        API_ORGANIZER_WRITE,
        "moderation, for organizers",
    ),
    # Final selection (the team only; the empty body is a 422) and the reveal (organizers). Engine lane.
    Rule("api:submission-final", API_NOT_POSTABLE, (401, DONE, 404, 404, 403, 403), "the team only"),
    Rule("api:phase-reveal", API_NOT_POSTABLE, API_ORGANIZER_WRITE, "organizers reveal"),
    Rule("api:submissions", API_TOKEN_READ, API_NOT_POSTABLE, "a token's own submissions"),
    # Client lane (issue 22): the pre-flight answers each role's own refusal (not registered, quota), the
    # registration its status, the uploaded file only the team, staff and organizers, as the page's file.
    Rule("api:*-preflight", (401,) + (NO_ERROR,) * 5, API_NOT_POSTABLE, "a token's own answer, never a 5xx"),
    Rule("api:challenge-registration", API_TOKEN_READ, API_TOKEN_WRITE, "register or see your registration"),
    Rule("api:submission-file", (401, OK, 404, 404, OK, OK), API_NOT_POSTABLE, "the team's file, with a token"),
    Rule("api:submission", PRIVATE_SUBMISSION, NOT_POSTABLE, "private objects of others are 404; PATCH edits"),
    Rule("api:problem-type", PUBLIC, PUBLIC, "a problem type's documentation, any method"),
    Rule("api:<*>", (404,) * 6, (404,) * 6, "an unknown API path is a 404 problem", put=(404,) * 6),
    Rule("api:*", API_READ, NOT_POSTABLE),
    # --- accounts and tokens.
    Rule("accounts:signup|accounts:login", ANONYMOUS_ONLY, ANONYMOUS_ONLY),
    Rule("accounts:signup_sent", PUBLIC, NOT_POSTABLE, "'we sent a message': the address is in a message, not the URL"),
    Rule("accounts:signup_confirm", (REDIRECT,) * 6, (REDIRECT,) * 6, "a bad link: back to sign-up, saying so"),
    Rule("accounts:logout", (405,) * 6, (REDIRECT,) * 6, "POST only, so a link cannot log anyone out"),
    Rule("accounts:verify_email", (LOGIN,) + (REDIRECT,) * 5, NOT_POSTABLE, "a bad token: log in, or the profile"),
    Rule("accounts:profile|accounts:password_change", SIGNED_IN, SIGNED_IN),
    Rule("accounts:password_change_done", SIGNED_IN, POST_ONLY_SIGNED_IN),
    Rule("accounts:password_reset|accounts:password_reset_confirm", PUBLIC, PUBLIC, "an invalid link says so"),
    Rule("accounts:password_reset_*", PUBLIC, NOT_POSTABLE),
    Rule("accounts:*_invitation", POST_ONLY_SIGNED_IN, OWNER_ONLY_ACTION, "only the invited user answers"),
    Rule("accounts:*", POST_ONLY_SIGNED_IN, SIGNED_IN_ACTION, "one's own settings"),
    Rule("tokens:create", POST_ONLY_SIGNED_IN, SIGNED_IN_ACTION),
    Rule("tokens:revoke", POST_ONLY_SIGNED_IN, OWNER_ONLY_ACTION),
    # --- teams: members only; the team's private objects are 404 to everyone else, staff included.
    Rule("teams:create", SIGNED_IN, SIGNED_IN_ACTION),
    Rule("teams:detail", OWNER_ONLY_PAGE, OWNER_ONLY_PAGE),
    Rule("teams:leave_confirm", OWNER_ONLY_PAGE, POST_ONLY_SIGNED_IN),
    Rule("teams:*", POST_ONLY_SIGNED_IN, OWNER_ONLY_ACTION),
    # --- submissions.
    Rule("submissions:submit|submissions:phase-submit", SIGNED_IN, SIGNED_IN_ACTION, "an empty POST: a form error"),
    Rule("submissions:my", SIGNED_IN, SIGNED_IN, "one's own teams' submissions to a phase (POST: the final toggles)"),
    Rule("submissions:detail", PRIVATE_SUBMISSION, PRIVATE_SUBMISSION),
    Rule("submissions:rerun", NOT_POSTABLE, (404, 403, 404, 404, REDIRECT, REDIRECT), "organizers only"),
    Rule("submissions:visibility|submissions:final", NOT_POSTABLE, (404, REDIRECT, 404, 404, 403, 403), "the team"),
    Rule("submissions:inputs|submissions:example|submissions:phase-example", PUBLIC, NOT_POSTABLE),
    Rule("submissions:*", PRIVATE_SUBMISSION, NOT_POSTABLE, "status.json, report, file of a private submission"),
    # --- boards and challenges: public pages of published objects.
    Rule("boards:phase_private*", (404,) * 6, NOT_POSTABLE, "the private board does not exist before the reveal"),
    Rule("boards:dataset", (REDIRECT,) * 6, NOT_POSTABLE, "a one-task dataset redirects to its board"),
    Rule("boards:compare", (400,) * 6, NOT_POSTABLE, "no ids: a 400 saying what to pick"),
    Rule("boards:badge", (404,) * 6, NOT_POSTABLE, "the world's submission is private: it has no badge"),
    Rule("boards:*", PUBLIC, NOT_POSTABLE),
    # --- method pages and suites: public reads of the boards; a method's links are its team's to edit.
    Rule("methods:detail", (404,) * 6, NOT_POSTABLE, "the world's only method is private: it has no page"),
    Rule("methods:edit", (LOGIN,) + (404,) * 5, (LOGIN,) + (404,) * 5, "members, of a method with public results"),
    Rule("methods:*", PUBLIC, NOT_POSTABLE),
    Rule("challenges:register", SIGNED_IN, SIGNED_IN_ACTION, "the terms, then register"),
    Rule("challenges:withdraw", (405,) * 6, (LOGIN,) + (REDIRECT,) * 5),
    Rule("challenges:*", PUBLIC, NOT_POSTABLE),
    Rule("drugs:*", PUBLIC, NOT_POSTABLE),
    Rule("docs:*", PUBLIC, NOT_POSTABLE),
    Rule("home|healthz", PUBLIC, NOT_POSTABLE),
]

# (URL name, method) -> expectations: where one URL of a rule's family behaves differently.
EXCEPTIONS = {
    ("admin:login", "get"): (OK,) * 5 + (REDIRECT,),
    ("admin:logout", "get"): (REDIRECT,) * 5 + (405,),
}


def rule_for(name: str) -> Rule | None:
    return next(
        (rule for rule in RULES if any(fnmatch.fnmatchcase(name, glob) for glob in rule.pattern.split("|"))), None
    )


def expected(name: str, method: str) -> tuple | None:
    if (name, method) in EXCEPTIONS:
        return EXCEPTIONS[(name, method)]
    rule = rule_for(name)
    return None if rule is None else getattr(rule, method)


def matches(outcome, response) -> bool:
    status = response.status_code
    location = response.get("Location", "")
    if isinstance(outcome, int):
        return status == outcome
    if outcome == LOGIN:
        return status == 302 and location.startswith("/accounts/login/")
    if outcome == ADMIN_LOGIN:
        return status == 302 and location.startswith("/admin/login/")
    if outcome == REDIRECT:
        return status == 302 and not location.startswith(("/accounts/login/", "/admin/login/"))
    if outcome == DONE:
        if status in (401, 403, 404, 405) or status >= 500:
            return False
        return not (status == 302 and location.startswith("/accounts/login/"))
    if outcome == NO_ERROR:
        return status < 500
    raise ValueError(outcome)


class RoleClient:
    """A test client signed in as one role, whose session survives a POST that logs out or rotates it."""

    def __init__(self, world, role: str) -> None:
        self.client = Client()
        self.role = role
        self.session = ""
        if role != "anonymous":
            self.client.force_login(world.users[role])
            self.token = world.raw_tokens[role]
            self.session = self.client.cookies[settings.SESSION_COOKIE_NAME].value

    def request(self, method: str, url: str, api: bool = False):
        extra = {}
        client = self.client
        if api:
            client = Client()  # the API ignores cookies; it gets the token
            if self.role != "anonymous":
                extra["HTTP_AUTHORIZATION"] = f"Bearer {self.token}"
        with transaction.atomic():
            response = getattr(client, method)(url, **extra)
            transaction.set_rollback(True)
        if self.session:  # a logout or login answer replaced it; the rollback kept the session row
            self.client.cookies[settings.SESSION_COOKIE_NAME] = self.session
        return response


@pytest.fixture
def routes(world):
    return site_urls(world)


def test_every_url_is_classified(routes):
    unclassified = [f"{r.name} ({r.route})" for r in routes if rule_for(r.name) is None]
    assert not unclassified, (
        "URLs no rule of tests/security/test_permission_matrix.py covers (add a rule or exception): "
        + ", ".join(unclassified)
    )


def test_the_matrix_reaches_the_whole_site(routes):
    names = {r.name for r in routes}
    # The families every role is probed on; a URL conf that lost one of them is a broken walk.
    for family in ("accounts:", "teams:", "submissions:", "boards:", "challenges:", "api:", "admin:", "tokens:"):
        assert any(n.startswith(family) for n in names), family
    assert len(routes) > 100


@pytest.mark.parametrize("role", ROLES)
def test_each_role_gets_what_the_rules_say_on_every_url(world, routes, role, settings):
    client = RoleClient(world, role)
    index = ROLES.index(role)
    wrong = []
    for route in routes:
        for method in METHODS:
            outcomes = expected(route.name, method)
            if outcomes is None:
                continue  # test_every_url_is_classified names it
            settings.RATE_LIMIT_KEY_PREFIX = f"{role}:{method}:{route.url}:"
            response = client.request(method, route.url, api=route.name.startswith("api:"))
            if not matches(outcomes[index], response):
                location = response.get("Location", "")
                wrong.append(
                    f"{method.upper()} {route.url} ({route.name}) as {role}: got {response.status_code}"
                    f"{' to ' + location if location else ''}, expected {outcomes[index]}"
                )
    assert not wrong, f"{len(wrong)} answers differ from the rules:\n" + "\n".join(wrong)


# Private objects reached through other arguments than the matrix's: an unpublished challenge,
# another team's private submission, another challenge's management.
VARIANTS = [
    ("/challenges/draft-cup/", (404, 404, 404, 404, OK, OK), "an unpublished challenge is its organizers' only"),
    ("/api/v1/challenges/draft-cup", (404,) * 6, "the API knows published challenges only"),
    ("/api/v1/challenges/draft-cup/phases/dev", (404,) * 6, "nor their phases"),
    ("/api/v1/challenges/draft-cup/phases/dev/leaderboard", (404,) * 6, "nor their boards"),
    ("/challenges/otto-cup/", PUBLIC, "a published challenge is public"),
]


@pytest.mark.parametrize("url, outcomes, why", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_private_objects_of_others_are_not_found(world, url, outcomes, why):
    for index, role in enumerate(ROLES):
        response = RoleClient(world, role).request("get", url, api=url.startswith("/api/"))
        assert matches(outcomes[index], response), f"{url} as {role}: {response.status_code} ({why})"


def test_another_teams_private_submission_is_not_found_by_any_of_its_urls(world):
    sub = world.charlie_submission.pk
    for suffix in ("", "status.json", "report", "file"):
        for role in ("anonymous", "participant", "other_organizer", "organizer"):
            response = RoleClient(world, role).request("get", f"/submissions/{sub}/{suffix}")
            assert response.status_code == 404, (suffix, role, response.status_code)
    response = RoleClient(world, "participant").request("get", f"/api/v1/submissions/{sub}", api=True)
    assert response.status_code == 404


def test_the_api_lists_no_unpublished_challenge(world):
    for role in ROLES:
        response = RoleClient(world, role).request("get", "/api/v1/challenges", api=True)
        slugs = {c["slug"] for c in response.json()}
        assert "secure-cup" in slugs and "draft-cup" not in slugs, role


def test_nobody_submits_to_an_unpublished_challenge_through_the_api(world, sent):
    from tests.submissions.helpers import as_post_file, mudi_prediction_csv

    client = Client()
    response = client.post(
        "/api/v1/challenges/draft-cup/phases/dev/submissions",
        {"file": as_post_file(mudi_prediction_csv()), "method_name": "Probe"},
        HTTP_AUTHORIZATION=f"Bearer {world.raw_tokens['participant']}",
    )
    assert response.status_code == 404
    assert sent == []
