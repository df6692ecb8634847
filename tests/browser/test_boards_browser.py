"""The leaderboard in a real browser: charts render, the direction toggle re-ranks, compare shows its p-value."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import REPO, save_screenshot

pytestmark = [pytest.mark.storage, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def methods_in_order(page) -> list[str]:
    return [text.strip() for text in page.locator("#leaderboard tbody td.method a").all_inner_texts()]


def test_the_leaderboard_renders_its_charts_and_the_direction_toggle_reranks(page, mudi_board, no_favicon):
    page.goto("/tasks/mudi/")
    page.wait_for_selector("[data-chart] svg.main-svg")
    assert page.locator("[data-chart][data-rendered]").count() >= 3
    aware = methods_in_order(page)
    assert aware[0] == "GraphDDI"
    assert page.locator("#significance-rule").inner_text().startswith("Pairs are compared by a paired bootstrap")
    path = save_screenshot(page, "leaderboard-mudi")
    (REPO / "docs" / "screenshots").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, REPO / "docs" / "screenshots" / "leaderboard.png")

    page.get_by_role("radio", name="Direction-agnostic").check()
    assert page.url.endswith("/tasks/mudi/")  # a change alone does not reload (arrowing radios must not)
    page.locator("#board-controls button[type=submit]").click()
    page.wait_for_url("**/tasks/mudi/?direction=agnostic")
    page.wait_for_selector("[data-chart] svg.main-svg")
    agnostic = methods_in_order(page)
    assert agnostic[0] == "OrientationFree"
    assert agnostic != aware
    assert page.console_errors == []


def test_the_compare_page_shows_the_p_value_of_the_paired_bootstrap(page, mudi_board, no_favicon):
    page.goto("/tasks/mudi/")
    page.get_by_label("compare GraphDDI").check()
    page.get_by_label("compare TextDDI").check()
    page.locator("#compare-button").click()
    page.wait_for_url("**/compare/?ids=*")
    assert page.locator(".p-value").first.inner_text().startswith("p ")
    assert page.locator(".n-tested").first.inner_text() == "1000"
    page.wait_for_selector("[data-chart] svg.main-svg")
    save_screenshot(page, "compare-mudi")
    assert page.console_errors == []


def test_a_submission_page_renders_its_charts(page, mudi_board, no_favicon):
    page.goto(f"/submissions/{mudi_board['GraphDDI'].pk}/")
    page.wait_for_selector("[data-chart] svg.main-svg")
    assert page.locator("#figure-confusion-aware").count() == 1
    save_screenshot(page, "submission-mudi")
    assert page.console_errors == []
