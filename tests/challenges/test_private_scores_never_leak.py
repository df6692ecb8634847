"""Private scores never leak before the reveal: every URL of the URL conf, as every non-organizer, is searched.

Submissions to a split phase are scored by the worker's code with the real MUDI
scorer. Then every route of the URL conf (read with ``get_resolver()``, not a hand
list) is requested with its parameters filled from the objects of this test, as an
anonymous visitor, a participant (whose own submissions these are), and a member of
another team, through the site and through the API with a token; every response
body (HTML, CSV, JSON, status.json, the API) and every e-mail sent is searched for
every private and all-rows value in every way the site writes a number (four
decimals, Django's floatformat, ``:g``, and the shortest round trip of CSV and
JSON). After the reveal the private values must appear on the private board.
"""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client

from leaderboard.submissions.models import Submission
from tests.challenges.crawl import body, every_url, leaks, needles, viewers
from tests.challenges.split_phase import PRIVATE_ROWS, PUBLIC_ROWS, make_split_phase, submit_scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def scene(olga, alice, alice_lab, bob, charlie):
    """A split phase with Alice Lab's public and private submissions and Charlie's, scored for real."""
    phase = make_split_phase(olga)
    return phase, {
        "lab-public": (alice_lab, alice, {PUBLIC_ROWS[0], PRIVATE_ROWS[1], PRIVATE_ROWS[2]}, "LabNet", True),
        "lab-private": (alice_lab, bob, {PRIVATE_ROWS[0]}, "LabSecret", False),
        "charlie": (charlie.personal_team, charlie, {PUBLIC_ROWS[1], PRIVATE_ROWS[3], PRIVATE_ROWS[4]}, "Solo", True),
    }


def submit_all(phase, plan, capture):
    submissions = {}
    for key, (team, user, wrong, method, is_public) in plan.items():
        # The commit callbacks run as in production: the board update and the result e-mail.
        with capture(execute=True):
            submissions[key] = submit_scored(phase, team, user, wrong, method=method, is_public=is_public)
    return submissions


def test_no_private_value_appears_anywhere_before_the_reveal_and_all_appear_after(
    scene, alice, charlie, result_emails_sent_at_once, django_capture_on_commit_callbacks
):
    phase, plan = scene
    submissions = submit_all(phase, plan, django_capture_on_commit_callbacks)
    found = needles(submissions)
    assert found, "no distinctive private value to search for"
    assert len(mail.outbox) == 3  # the result e-mails were sent, and are searched below

    problems = []
    requested = 0
    for who, client, api in viewers(alice, charlie):
        for url in every_url(phase, submissions, None):
            headers = api if url.startswith("/api/") else {}
            response = client.get(url, **headers)
            requested += 1
            assert response.status_code < 500, f"{who} GET {url}: {response.status_code}"
            problems += [f"{who} GET {url}: {leak}" for leak in leaks(body(response), found)]
    for message in mail.outbox:
        problems += [f"e-mail {message.subject!r}: {leak}" for leak in leaks(message.subject + message.body, found)]
    assert requested > 300
    assert not problems, "\n".join(problems[:20])

    # The reveal publishes them: each final entry's private value is on the private board, page and CSV.
    from leaderboard.boards.reveal import reveal_phase

    reveal_phase(phase)
    anonymous = Client()
    page = body(anonymous.get(f"/challenges/{phase.challenge.slug}/{phase.slug}/board/private/"))
    csv_text = body(anonymous.get(f"/challenges/{phase.challenge.slug}/{phase.slug}/board/private/leaderboard.csv"))
    for key in ("lab-public", "charlie"):
        s = Submission.objects.get(pk=submissions[key].pk)
        assert s.final_by == "auto"
        assert f"{s.private_primary_value:.4f}" in page
        assert repr(s.private_primary_value) in csv_text
    # And each submission page shows its private and all-rows tables.
    s = Submission.objects.get(pk=submissions["charlie"].pk)
    detail = body(anonymous.get(f"/submissions/{s.pk}/"))
    assert "Metrics on the private test rows" in detail and "Metrics on all test rows" in detail
    assert f"{s.private_primary_value:.4f}" in detail
