"""CSRF on every POST: each URL that takes a POST refuses one without the token.

The URLs that take a POST are discovered, not listed: every URL of the URL conf is
POSTed as a signed-in user (a rolled-back savepoint each), and those that do not answer
405 are the ones under test. Each is then POSTed by a client that enforces CSRF checks
as a browser would, with the session cookie and without the token: 403, the CSRF page.
The API is exempt by design (token authentication, no cookies): there a session cookie
alone must not be enough, so a cross-site form cannot use a signed-in visitor's session.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client

from tests.security.urlconf import site_urls

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def _post(client: Client, url: str, **extra):
    with transaction.atomic():
        response = client.post(url, **extra)
        transaction.set_rollback(True)
    return response


def _signed_in(user, *, enforce: bool) -> Client:
    client = Client(enforce_csrf_checks=enforce)
    client.force_login(user)
    return client


@pytest.fixture
def postable(world, settings):
    """The URLs that take a POST from a signed-in participant or staff member (the API apart)."""
    found = {}
    for role in ("participant", "staff"):
        user = world.users[role]
        for route in site_urls(world):
            if route.name.startswith("api:") or route.url in found:
                continue
            settings.RATE_LIMIT_KEY_PREFIX = f"discover:{role}:{route.url}:"
            response = _post(_signed_in(user, enforce=False), route.url)
            if response.status_code != 405:
                found[route.url] = (route.name, user)
    return found


def test_every_post_without_the_csrf_token_is_refused(postable, settings):
    names = {name for name, _ in postable.values()}
    # The discovery found the forms everyone knows (and the test covers all it found).
    for name in ("accounts:logout", "submissions:submit", "teams:create", "tokens:create", "submissions:visibility"):
        assert name in names, name
    assert len(names) >= 20
    accepted = []
    for url, (name, user) in sorted(postable.items()):
        settings.RATE_LIMIT_KEY_PREFIX = f"csrf:{url}:"
        client = _signed_in(user, enforce=True)
        client.get("/")  # the CSRF cookie a browser would hold; the form's token is what is missing
        response = _post(client, url, data={"method_name": "x"})
        if response.status_code != 403 or b"CSRF verification failed" not in response.content:
            accepted.append(f"{name} {url}: {response.status_code}")
    assert not accepted, "POSTs accepted without a CSRF token:\n" + "\n".join(accepted)


def test_a_post_with_the_token_gets_past_the_check(world, settings):
    """The 403 above is the missing token's: the same POST with it is answered by the view."""
    client = _signed_in(world.users["participant"], enforce=True)
    client.get("/")
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    response = _post(client, "/accounts/profile/notifications/", data={"csrfmiddlewaretoken": token})
    assert response.status_code == 302


API_POSTS = [
    "/api/v1/tasks/mudi/submissions",
    "/api/v1/challenges/secure-cup/phases/dev/submissions",
    "/api/v1/no-such-endpoint",
]


@pytest.mark.parametrize("url", API_POSTS)
def test_the_api_refuses_a_post_with_only_a_session_cookie(world, url, sent):
    from tests.submissions.helpers import as_post_file, mudi_prediction_csv

    client = _signed_in(world.users["participant"], enforce=True)
    client.get("/")
    response = _post(client, url, data={"file": as_post_file(mudi_prediction_csv()), "method_name": "CrossSite"})
    assert response.status_code in (401, 404)
    assert response["Content-Type"].startswith("application/problem+json")
    assert sent == []


def test_the_api_refuses_a_patch_with_only_a_session_cookie(world):
    client = _signed_in(world.users["participant"], enforce=True)
    url = f"/api/v1/submissions/{world.private_submission.pk}"
    with transaction.atomic():
        response = client.patch(url, data='{"is_public": true}', content_type="application/json")
        transaction.set_rollback(True)
    assert response.status_code in (401, 404)
    world.private_submission.refresh_from_db()
    assert world.private_submission.is_public is False


def test_the_session_cookie_is_not_sent_cross_site():
    assert settings.SESSION_COOKIE_SAMESITE in ("Lax", "Strict")
    assert settings.CSRF_COOKIE_SAMESITE in ("Lax", "Strict")
