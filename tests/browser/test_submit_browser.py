"""In a real browser: sign in, submit a file, watch it become scored without reloading, read the metrics."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import PASSWORD, save_screenshot, viewport_screenshot
from tests.submissions.helpers import mudi_prediction_csv, mudi_truth_csv, standing_phase_with_truth

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.slow, pytest.mark.storage]


@pytest.mark.storage
@pytest.mark.parametrize("width", [390, 1366])
def test_a_researcher_submits_and_watches_the_status_turn_scored(page, live_server, worker_factory, alice, width):
    page.set_viewport_size({"width": width, "height": 900})
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
    # The complete page without a reload: rank with a link to the row, date, primary marker, charts.
    expect(page.locator("#standing")).to_contain_text("Rank 1 of 1 on the board", timeout=30_000)
    assert re.search(r"/tasks/mudi/#row-[0-9a-f-]{36}$", page.locator("#standing-link").get_attribute("href"))
    assert "Scored on 20" in page.locator("#status-detail").inner_text()
    assert primary.locator(".tag").inner_text() == "primary"
    page.wait_for_selector("#figure-confusion-aware [data-chart] svg.main-svg")
    assert page.evaluate("window.__samePage === true")
    assert "Scored" in page.locator("#status-announce").inner_text()
    save_screenshot(page, f"submission-scored-{width}")
    assert page.console_errors == []

    page.reload()
    assert page.locator("#status-label").inner_text() == "Scored"
    assert "Macro F1 (direction-aware)" in page.locator("#metrics-table").inner_text()


def log_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.form button[type=submit], form.form input[type=submit]")
    page.wait_for_url(re.compile(r"/accounts/profile/"))


@pytest.mark.parametrize("width", [390, 1366])
def test_a_form_error_keeps_the_chosen_file_and_sums_up_the_errors_at_the_top(page, live_server, alice, width):
    page.set_viewport_size({"width": width, "height": 900})
    standing_phase_with_truth("mudi", mudi_truth_csv())
    log_in(page, "alice")
    page.goto("/tasks/mudi/submit/")
    # The format and the downloads come before the form.
    format_top = page.locator("#format").bounding_box()["y"]
    assert format_top < page.locator("#submission-form").bounding_box()["y"]
    assert page.get_by_role("link", name=re.compile("Example prediction file")).is_visible()

    page.set_input_files(
        "#id_file", files=[{"name": "mudi_noisy30.csv", "mimeType": "text/csv", "buffer": mudi_prediction_csv()}]
    )
    page.fill("#id_method_name", "Browser GNN")
    page.click("#submission-form button[type=submit]")  # no modality ticked: a server-side error, no bubble

    summary = page.locator("#error-summary")
    expect(summary).to_be_visible()
    assert page.evaluate("document.activeElement.id") == "error-summary"
    assert summary.bounding_box()["y"] < page.locator("#field-file").bounding_box()["y"]
    kept = page.locator("#kept-file")
    assert re.match(
        r"mudi_noisy30\.csv \([0-9.]+\s(bytes|KB|MB)\) is kept; choose another to replace it", kept.inner_text()
    )
    summary.get_by_role("link", name=re.compile("Modalities used")).click()
    assert page.evaluate("document.activeElement.name") == "declare_modalities"
    if width == 390:
        page.locator("#error-summary").scroll_into_view_if_needed()
        viewport_screenshot(page, "submit-form-error-390")

    page.check("input[name=declare_modalities][value=graph]")
    page.click("#submission-form button[type=submit]")  # no file chosen again: the kept one is used
    page.wait_for_url(re.compile(r"/submissions/[0-9a-f-]{36}/$"))
    assert "mudi_noisy30.csv" in page.locator("#about").inner_text()
    # The form error itself is a 400 response, which the browser logs; nothing else may be.
    assert [e for e in page.console_errors if "status of 400" not in e] == []
