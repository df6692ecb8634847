"""In a real browser: sign in, submit a file, watch it become scored without reloading, read the metrics."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import PASSWORD, save_screenshot
from tests.submissions.helpers import mudi_prediction_csv, mudi_truth_csv, standing_phase_with_truth

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.slow]


def test_a_researcher_submits_and_watches_the_status_turn_scored(page, live_server, worker_factory, alice):
    standing_phase_with_truth("mudi", mudi_truth_csv())
    # A short delay in the worker so the page is seen queued or running first.
    worker_factory(LEADERBOARD_TEST_SCORING_DELAY="2")

    page.goto("/accounts/login/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", PASSWORD)
    page.click("form.form button[type=submit], form.form input[type=submit]")
    page.wait_for_url(re.compile(r"/accounts/profile/"))

    page.goto("/tasks/mudi/submit/")
    assert page.locator("#format").is_visible()
    page.set_input_files(
        "#id_file", files=[{"name": "predictions.csv", "mimeType": "text/csv", "buffer": mudi_prediction_csv()}]
    )
    page.fill("#id_method_name", "Browser GNN")
    page.check("input[name=declare_modalities][value=graph]")
    page.click("#submission-form button[type=submit]")
    page.wait_for_url(re.compile(r"/submissions/[0-9a-f-]{36}/$"))

    label = page.locator("#status-label")
    assert label.inner_text() in ("Queued", "Running")
    page.evaluate("window.__samePage = true")  # lost if the page reloads
    save_screenshot(page, "submission-waiting")

    expect(label).to_have_text("Scored", timeout=60_000)  # the page's script polls status.json
    assert page.evaluate("window.__samePage === true")
    assert page.locator("#results").is_visible()
    primary = page.locator("#metrics-body tr.primary")
    assert "Macro F1 (direction-aware)" in primary.inner_text()
    assert re.search(r"0\.\d{4}", primary.inner_text())
    assert page.locator("#metrics-body tr").count() >= 10
    save_screenshot(page, "submission-scored")
    assert page.console_errors == []

    page.reload()
    assert page.locator("#status-label").inner_text() == "Scored"
    assert "Macro F1 (direction-aware)" in page.locator("#metrics-table").inner_text()
