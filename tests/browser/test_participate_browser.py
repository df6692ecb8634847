"""A participant in Chromium: reads the timeline in their own time zone, registers a team, submits to the open phase."""

from __future__ import annotations

import re

import pytest

from leaderboard.challenges.models import Registration
from leaderboard.submissions.models import Submission
from tests.challenges.participants import organized_challenge
from tests.conftest import PASSWORD
from tests.submissions.helpers import mudi_prediction_csv

pytestmark = [pytest.mark.storage, pytest.mark.browser]


@pytest.fixture
def berlin_page(browser, live_server):
    """A page whose browser lives in Europe/Berlin (UTC+01:00 in winter, +02:00 in summer)."""
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 390, "height": 900}, timezone_id="Europe/Berlin"
    )
    pg = context.new_page()
    pg.console_errors = []
    pg.on("console", lambda msg: msg.type == "error" and pg.console_errors.append(msg.text))
    pg.on("pageerror", lambda exc: pg.console_errors.append(str(exc)))
    pg.set_default_timeout(15_000)
    yield pg
    context.close()


def log_in(pg, username: str) -> None:
    pg.goto("/accounts/login/")
    pg.fill("input[name=username]", username)
    pg.fill("input[name=password]", PASSWORD)
    pg.locator("main").get_by_role("button", name=re.compile("Log in", re.I)).click()
    pg.wait_for_load_state()


def test_the_timeline_shows_each_date_in_the_viewers_own_offset(berlin_page, transactional_db, olga):
    organized_challenge()
    berlin_page.goto("/challenges/mudi-2027/")
    dev = berlin_page.locator("#phase-dev")
    local = dev.locator(".local-time").first
    assert re.fullmatch(r" ?\(\d{4}-\d\d-\d\d \d\d:\d\d UTC\+0[12]:00 your time\)", local.inner_text())
    assert re.search(r"Ends in 3 days\.", dev.locator(".relative").inner_text())
    assert "and in your own time (UTC+0" in berlin_page.locator("#phases").inner_text()
    assert berlin_page.console_errors == []


def test_a_participant_registers_accepting_the_terms_and_submits(berlin_page, transactional_db, alice, tmp_path):
    challenge = organized_challenge(terms="Do not probe the public split.")
    log_in(berlin_page, "alice")
    berlin_page.goto("/challenges/mudi-2027/")
    berlin_page.get_by_role("link", name="Register").click()
    berlin_page.wait_for_url("**/challenges/mudi-2027/register/")
    berlin_page.get_by_label("I accept the terms above for my team").check()
    berlin_page.get_by_role("button", name="Register").click()
    berlin_page.wait_for_url("**/challenges/mudi-2027/")
    assert "is registered: you can submit" in berlin_page.locator(".messages").inner_text()
    assert Registration.objects.get(challenge=challenge).accepted_terms_at is not None

    berlin_page.locator("#phase-dev").get_by_role("link", name="Submit").click()
    berlin_page.wait_for_url("**/challenges/mudi-2027/dev/submit/")
    path = tmp_path / "predictions.csv"
    path.write_bytes(mudi_prediction_csv())
    berlin_page.set_input_files("input[name=file]", str(path))
    berlin_page.fill("input[name=method_name]", "GraphDDI")
    berlin_page.get_by_label("graph").check()
    berlin_page.locator("#submission-form").get_by_role("button", name="Submit").click()
    berlin_page.wait_for_url(re.compile(r".*/submissions/[0-9a-f-]+/$"))
    submission = Submission.objects.get()
    assert (submission.team, submission.phase.slug) == (alice.personal_team, "dev")
    assert berlin_page.console_errors == []
