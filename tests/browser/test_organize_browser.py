"""An organizer in Chromium: create a challenge, add two phases, upload truth (a bad file first), publish."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from leaderboard.challenges.models import Challenge
from tests.browser.test_accessibility_browser import describe, violations
from tests.conftest import PASSWORD
from tests.submissions.helpers import invalid_mudi_csv, mudi_truth_csv

pytestmark = [pytest.mark.storage, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def host(transactional_db):
    from django.contrib.auth.models import Permission

    from leaderboard.accounts.services import create_user

    hana = create_user("hana", "hana@example.org", PASSWORD, email_verified=True)
    hana.user_permissions.add(Permission.objects.get(codename="host_challenges"))
    return hana


def log_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.form button[type=submit], form.form input[type=submit]")
    page.wait_for_url(re.compile(r"/accounts/profile/"))


def utc(days: float) -> str:
    return (timezone.now() + dt.timedelta(days=days)).astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")


def add_phase(page, title: str, slug: str, starts: str, ends: str, *, fraction: str = "") -> None:
    page.get_by_role("link", name="Phases", exact=True).click()
    page.get_by_role("link", name="Add a phase").click()
    page.fill("input[name=title]", title)
    page.fill("input[name=slug]", slug)
    page.select_option("select[name=task_slug]", "mudi")
    page.fill("input[name=starts_at]", starts)
    page.fill("input[name=ends_at]", ends)
    if fraction:
        page.get_by_label("A public fraction, chosen by a hash").check()
        page.fill("input[name=split_fraction]", fraction)
        page.fill("input[name=split_seed]", "7")
    page.get_by_role("button", name="Create the phase").click()
    page.wait_for_url(f"**/manage/phases/{slug}/")


def upload_truth(page, path) -> None:
    page.set_input_files("#truth-form input[type=file]", str(path))
    page.locator("#truth-form button[type=submit]").click()
    page.wait_for_load_state()


def test_a_host_creates_a_challenge_with_two_phases_uploads_truth_and_publishes(page, host, tmp_path):
    good, bad = tmp_path / "truth.csv", tmp_path / "bad-truth.csv"
    good.write_bytes(mudi_truth_csv())
    bad.write_bytes(invalid_mudi_csv())
    log_in(page, "hana")
    page.get_by_role("link", name="create a challenge").click()
    page.fill("input[name=title]", "DDI 2027")
    page.fill("input[name=slug]", "ddi-2027")
    page.fill("textarea[name=overview]", "Predict **interactions** between drug pairs.")
    page.get_by_role("button", name="Create the challenge").click()
    page.wait_for_url("**/challenges/ddi-2027/manage/")

    add_phase(page, "Development", "development", utc(-1), utc(10))
    upload_truth(page, bad)
    assert page.locator("#problems").is_visible()
    assert "Nothing was stored" in page.locator("#field-file").inner_text()
    upload_truth(page, good)
    assert "Stored the truth (12 rows" in page.locator("ul.messages").inner_text()
    add_phase(page, "Test", "test", utc(10), utc(20), fraction="0.3")
    upload_truth(page, good)
    assert "current" in page.locator("table.truth-versions").inner_text()

    page.get_by_role("link", name="Overview").click()
    page.get_by_label("Published").check()
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_url("**/challenges/ddi-2027/manage/")
    challenge = Challenge.objects.get(slug="ddi-2027")
    assert challenge.is_published and [p.slug for p in challenge.phases.all()] == ["development", "test"]
    assert [p.has_truth for p in challenge.phases.all()] == [True, True]
    audit = page.locator("#audit").inner_text()
    assert "challenge.publish" in audit and "truth.upload" in audit and "phase.create" in audit

    page.get_by_role("link", name="Public page").click()
    assert page.locator("#phase-development").is_visible() and page.locator("#phase-test").is_visible()
    # The refused truth's page answered 400 (as the submit form does); nothing else went wrong.
    assert [e for e in page.console_errors if "status of 400" not in e] == []


@pytest.mark.parametrize("width", [390, 1366])
def test_the_organizer_pages_have_no_serious_accessibility_violation(page, host, tmp_path, width):
    from leaderboard.organize import services
    from tests.organize.conftest import truth_upload

    page.set_viewport_size({"width": width, "height": 900})
    challenge = services.create_challenge(
        {"title": "DDI 2027", "slug": "ddi-2027", "registration_mode": "open", "allowed_domains": []}, host
    )
    phase, _ = services.save_phase(
        challenge, None, {"title": "Development", "slug": "development", "task_slug": "mudi"}, host
    )
    services.replace_truth(phase, truth_upload(), host)
    log_in(page, "hana")
    for url in ("/challenges/new/", "/challenges/import/", "/challenges/ddi-2027/manage/",
                "/challenges/ddi-2027/manage/phases/", "/challenges/ddi-2027/manage/phases/new/",
                "/challenges/ddi-2027/manage/phases/development/"):  # fmt: skip
        page.goto(url)
        found = violations(page)
        assert not found, f"{url}:\n{describe(found)}"
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, url
    assert page.console_errors == []
