"""XSS in a real browser: hostile method names, descriptions, team names, usernames and file names.

Every payload is stored where a submitter can put it (usernames and team names through the
ORM as well, past the forms' own checks: the templates must hold by themselves), then the
board, submission, team, profile and compare pages are opened in Chromium with a dialog
handler. Expected: zero dialogs, and none of the payloads' elements or attributes in the DOM
(each payload marks its element with ``data-xss``, so an injected one is found by selector).
"""

from __future__ import annotations

import pytest

from tests.conftest import PASSWORD

pytestmark = [pytest.mark.storage, pytest.mark.browser]

# Each calls alert() if it runs, and marks any element it manages to inject.
PAYLOADS = [
    "<script data-xss>alert('script')</script>",
    '"><img data-xss src=x onerror="alert(\'img\')">',
    "' autofocus onfocus='alert(1)' data-xss='",
    "<svg data-xss onload=\"alert('svg')\"></svg>",
    "<a data-xss href=\"javascript:alert('link')\">link</a>",
    "[markdown link](javascript:alert('md'))",
    "[spaced](  javascript:alert('md2'))",
    "![img](x\" onerror=\"alert('mdimg'))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<iframe data-xss src=\"javascript:alert('iframe')\"></iframe>",
    "</title></textarea></script><script data-xss>alert('breakout')</script>",
    "<details data-xss open ontoggle=\"alert('toggle')\">x</details>",
    "<b data-xss onmouseover=alert('b')>bold</b>",
    "{{ 7|add:7 }}{% now 'Y' %}<math data-xss><mi xlink:href=\"javascript:alert('math')\">m</mi></math>",
]

# Attribute and URL checks run in the page: no inline handler, no script URL, no payload element.
DOM_PROBE = """() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    if (el.hasAttribute('data-xss')) found.push('data-xss on <' + el.tagName + '>');
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      const value = (attr.value || '').replace(/\\s/g, '').toLowerCase();
      if (name.startsWith('on')) found.push(name + ' on <' + el.tagName + '>');
      if ((name === 'href' || name === 'src' || name.endsWith(':href') || name === 'action' || name === 'formaction')
          && (value.startsWith('javascript:') || value.startsWith('data:text/html'))) {
        found.push(name + '=' + attr.value + ' on <' + el.tagName + '>');
      }
    }
  }
  return found;
}"""


@pytest.fixture
def hostile_site(transactional_db, alice):
    """A MUDI board whose entries carry the payloads; mallory (a payload in her username) owns most."""
    from leaderboard.accounts.models import Membership, Team, User
    from leaderboard.accounts.services import create_team, create_user
    from leaderboard.boards.recompute import recompute_phase
    from leaderboard.challenges.services import sync_standing_challenges
    from tests.boards.conftest import mudi_prediction_csv, mudi_truth_csv, scored, with_truth

    sync_standing_challenges()
    phase = with_truth("mudi", mudi_truth_csv())
    mallory = create_user("mallory", "mallory@example.org", PASSWORD, email_verified=True)
    # Past the sign-up form's validators: a username the templates must escape on their own.
    User.objects.filter(pk=mallory.pk).update(username=PAYLOADS[1][:150])
    mallory.refresh_from_db()
    lab = create_team(mallory, "Mallory Lab")
    Team.objects.filter(pk=lab.pk).update(name=PAYLOADS[0][:100])
    lab.refresh_from_db()
    Membership.objects.create(team=lab, user=alice)
    submissions = []
    for i, payload in enumerate(PAYLOADS):
        submission = scored(
            phase,
            lab if i % 2 == 0 else mallory.personal_team,
            payload[:100],
            file=mudi_prediction_csv(wrong=i % 5),
            user=mallory,
            minutes=i,
            description=f"{payload}\n\n**bold** and {PAYLOADS[(i + 1) % len(PAYLOADS)]}",
            paper_url="https://example.org/paper",
            rebuild=False,
        )
        name = (payload[:60] + ".csv").replace("/", "_")
        type(submission).objects.filter(pk=submission.pk).update(file_name=name)
        submissions.append(submission)
    recompute_phase(phase)
    return {"mallory": mallory, "lab": lab, "submissions": submissions}


def _sign_in(page, live_server, user) -> None:
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": live_server.url}])


def _visit(page, url: str) -> list[str]:
    page.goto(url)
    page.wait_for_load_state("load")
    # Hover what a visitor would (chart legends, the first rows): mouse handlers fire on these.
    for selector in (".js-plotly-plot .legendtext", "table tbody tr"):
        for element in page.locator(selector).all()[:6]:
            if element.is_visible():
                element.hover(timeout=2_000, force=True)
    page.wait_for_timeout(100)
    return page.evaluate(DOM_PROBE)


def test_the_probe_sees_a_payload_that_was_not_escaped(page):
    """The detector itself: the same payloads pasted raw into a page are found (and alert)."""
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.set_content("<main>" + "".join(f"<div>{p}</div>" for p in PAYLOADS if "data-xss" in p) + "</main>")
    page.wait_for_timeout(300)
    found = page.evaluate(DOM_PROBE)
    assert len(found) >= 8
    assert dialogs


def test_no_payload_runs_or_injects_markup_on_any_page(page, live_server, hostile_site):
    page.route("**/favicon.ico", lambda route: route.fulfill(status=204, body=b""))
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(f"{page.url}: {dialog.message}"), dialog.dismiss()))
    _sign_in(page, live_server, hostile_site["mallory"])
    subs = hostile_site["submissions"]
    urls = [
        "/tasks/mudi/",
        "/tasks/mudi/?direction=agnostic",
        "/benchmarks/",
        "/accounts/profile/",
        f"/teams/{hostile_site['lab'].slug}/",
        f"/teams/{hostile_site['mallory'].personal_team.slug}/",
        f"/compare/?ids={subs[0].pk},{subs[1].pk}",
        f"/compare/?ids={subs[2].pk},{subs[3].pk},{subs[4].pk}",
    ] + [f"/submissions/{s.pk}/" for s in subs]
    injected = {}
    for url in urls:
        found = _visit(page, url)
        if found:
            injected[url] = found
    assert dialogs == []
    assert injected == {}


def test_the_payloads_are_shown_as_text(page, live_server, hostile_site):
    """Escaped, not dropped: the visitor sees what was submitted (a sanitiser that ate it would hide abuse)."""
    page.route("**/favicon.ico", lambda route: route.fulfill(status=204, body=b""))
    _sign_in(page, live_server, hostile_site["mallory"])
    submission = hostile_site["submissions"][0]
    page.goto(f"/submissions/{submission.pk}/")
    text = page.locator("main").inner_text()
    assert "<script data-xss>alert('script')</script>" in text  # the method name, as text
    page.goto("/accounts/profile/")
    assert "<script data-xss>" in page.locator("main").inner_text()  # the team name
