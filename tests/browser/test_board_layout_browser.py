"""A wide board in a real browser at 390 px and 1366 px: what a visitor sees without scrolling."""

from __future__ import annotations

import pytest

from tests.conftest import viewport_screenshot

pytestmark = [pytest.mark.storage, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [390, 1366]


def in_viewport(page, selector: str) -> bool:
    """Whether the element's box lies inside the visible window horizontally."""
    box = page.locator(selector).first.bounding_box()
    width = page.viewport_size["width"]
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width


@pytest.mark.parametrize("width", WIDTHS)
def test_the_primary_metric_sits_next_to_the_method_and_both_stay_when_scrolled(page, mudi_board, no_favicon, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/tasks/mudi/")
    assert in_viewport(page, "#leaderboard tbody tr:first-child td.method")
    assert in_viewport(page, "#leaderboard tbody tr:first-child td.primary")
    # The MUDI table is wider than the window: the cue says so.
    assert page.locator("#scroll-hint").is_visible()
    assert "can-scroll" in page.locator("#board-scroll").get_attribute("class")
    page.locator("#leaderboard").scroll_into_view_if_needed()
    if width == 390:
        viewport_screenshot(page, "board-mudi-390")

    page.locator("#board-scroll .table-wrap").evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    page.wait_for_timeout(100)
    assert in_viewport(page, "#leaderboard tbody tr:first-child td.method")
    assert in_viewport(page, "#leaderboard tbody tr:first-child td.rank")
    method = page.locator("#leaderboard tbody tr:first-child td.method").bounding_box()
    last = page.locator("#leaderboard tbody tr:first-child td:last-child").bounding_box()
    assert last["x"] + last["width"] <= width  # the far columns came into view
    assert last["x"] >= method["x"] + method["width"] - 1  # ...beside the sticky Method, not under it
    if width == 1366:
        viewport_screenshot(page, "board-mudi-1366-scrolled")
    assert page.console_errors == []


def test_board_content_is_aligned_with_the_header_and_footer(page, mudi_board, no_favicon):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto("/tasks/mudi/")
    header = page.locator(".site-header .container").bounding_box()
    footer = page.locator(".site-footer .container").bounding_box()
    content = page.locator("main#content").bounding_box()
    table = page.locator("#board-scroll").bounding_box()
    assert header["x"] == footer["x"] == content["x"]
    assert header["width"] == content["width"]
    assert table["x"] + table["width"] <= content["x"] + content["width"]


def test_the_column_chooser_hides_groups_and_keeps_them_in_the_url(page, mudi_board, no_favicon):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto("/tasks/mudi/")
    assert page.get_by_role("columnheader", name="Synergism F1").count() == 1
    page.get_by_role("checkbox", name="Per-class F1").uncheck()
    page.get_by_role("checkbox", name="Declarations and links").uncheck()
    assert page.locator("#controls-pending").is_visible()
    page.locator("#board-controls button[type=submit]").click()
    page.wait_for_url("**/tasks/mudi/?*cols=metrics&cols=submission")
    assert page.get_by_role("columnheader", name="Synergism F1").count() == 0
    assert page.get_by_role("columnheader", name="Declarations").count() == 0
    # Sorting keeps the choice: the header links carry it.
    page.get_by_role("link", name="Method", exact=True).click()
    page.wait_for_url("**/tasks/mudi/?sort=method&cols=metrics&cols=submission")
    assert page.locator("th[aria-sort]").inner_text().startswith("Method")
    assert page.locator("th[aria-sort]").get_attribute("aria-sort") == "ascending"
    assert page.console_errors == []


def test_nothing_widens_the_page_on_a_phone(page, mudi_board, no_favicon):
    """Wide tables scroll inside their own box: the page itself never scrolls sideways at 390 px.

    (A visually hidden header text placed absolutely, and a long unbroken value in the
    submission's facts, once made the page 454 and 465 px wide.)
    """
    page.set_viewport_size({"width": 390, "height": 900})
    submission = next(iter(mudi_board.values()))
    for path in ("/tasks/mudi/", f"/submissions/{submission.pk}/"):
        page.goto(path)
        page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        widths = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert widths[0] <= widths[1], (path, widths)
    assert page.console_errors == []
