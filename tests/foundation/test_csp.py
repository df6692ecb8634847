"""No inline scripts anywhere: a Content-Security-Policy header forbids them, and no template has one."""

import re
from pathlib import Path

import pytest

from leaderboard.middleware import CONTENT_SECURITY_POLICY

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
# A <script type="application/json"> is a data block the browser never runs, so CSP allows it.
INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.IGNORECASE)


def _directives(policy: str) -> dict[str, list[str]]:
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


def test_the_policy_allows_scripts_only_from_our_own_files():
    directives = _directives(CONTENT_SECURITY_POLICY)
    assert directives["script-src"] == ["'self'"]
    assert directives["default-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]


@pytest.mark.storage
@pytest.mark.parametrize("url", ["/", "/accounts/login/", "/accounts/signup/", "/healthz", "/no-such-page/"])
def test_every_response_carries_the_policy(client, db, url):
    response = client.get(url)
    assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY


def test_pages_have_no_inline_script(client, alice):
    client.force_login(alice)
    for url in ["/", "/accounts/profile/", "/teams/alice/", "/teams/new/", "/accounts/password/change/"]:
        body = client.get(url).content.decode()
        assert not INLINE_SCRIPT.findall(body), f"{url} has an inline script"


EVENT_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)
JS_URL = re.compile(r"""(href|src|action)\s*=\s*["']\s*javascript:""", re.IGNORECASE)


def test_no_template_has_an_inline_script_an_event_handler_or_a_javascript_url():
    offenders = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = path.read_text()
        for pattern in (INLINE_SCRIPT, EVENT_HANDLER, JS_URL):
            for match in pattern.finditer(text):
                offenders.append(f"{path.relative_to(TEMPLATES)}: {match.group(0)[:80]}")
    assert offenders == []
