"""Charts are lazy: plotly.js and each chart load when the chart nears the window (issue 23, point 5)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.storage]


@pytest.fixture
def lazy_page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1366, "height": 700})
    pg = context.new_page()
    pg.route("**/favicon.ico", lambda route: route.fulfill(status=204, body=b""))
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.errors = errors
    yield pg
    context.close()


def test_a_board_draws_no_chart_until_one_is_scrolled_into_view(lazy_page, mudi_board):
    requests: list[str] = []
    lazy_page.on("request", lambda request: requests.append(request.url))
    lazy_page.goto("/tasks/mudi/")
    lazy_page.wait_for_load_state("networkidle")
    assert lazy_page.locator("#leaderboard tbody tr").count() >= 3
    assert lazy_page.locator("[data-chart][data-rendered]").count() == 0
    assert not any("plotly.min.js" in url for url in requests)

    lazy_page.locator("[data-chart]").first.scroll_into_view_if_needed()
    lazy_page.wait_for_selector("[data-chart][data-rendered]")
    assert any("plotly.min.js" in url for url in requests)
    total = lazy_page.locator("[data-chart]").count()
    lazy_page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    lazy_page.wait_for_function(f"document.querySelectorAll('[data-chart][data-rendered]').length >= {min(total, 2)}")
    assert lazy_page.errors == []


def test_charts_eager_draws_every_chart_at_load(lazy_page, mudi_board):
    lazy_page.goto("/tasks/mudi/?charts=eager")
    lazy_page.wait_for_function(
        "document.querySelectorAll('[data-chart]:not([data-rendered])').length === 0", timeout=30_000
    )
    assert lazy_page.locator("[data-chart][data-rendered]").count() >= 3
