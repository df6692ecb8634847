"""The challenge list and a challenge's page in Chromium: the example bundle, imported and published."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.core.management import call_command

from leaderboard.challenges.models import Challenge
from tests.challenges.test_import_challenge import SLUG, write_bundle

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_a_visitor_finds_a_published_challenge_and_reads_its_timeline(page, transactional_db, tmp_path, alice):
    call_command("import_challenge", str(write_bundle(tmp_path)), "--organizer", "alice")
    Challenge.objects.filter(slug=SLUG).update(is_published=True)
    page.goto("/challenges/")
    page.get_by_role("link", name="MUDI held-out pairs 2027").click()
    page.wait_for_url(f"**/challenges/{SLUG}/")
    assert page.get_by_role("heading", name="Phases").is_visible()
    assert page.locator("#phase-development").is_visible() and page.locator("#phase-test").is_visible()
    assert "Ladder mode" in page.locator("#phase-test").inner_text()
    main_nav = page.get_by_role("navigation", name="Main")
    assert main_nav.get_by_role("link", name="Challenges").get_attribute("aria-current") == "page"
    if os.environ.get("CHALLENGES_SCREENSHOT_DIR"):
        page.screenshot(path=str(Path(os.environ["CHALLENGES_SCREENSHOT_DIR"]) / "challenge.png"), full_page=True)
    assert page.console_errors == []
