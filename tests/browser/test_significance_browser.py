"""The board's significance matrix and the compare page's pairwise tests in a real browser at 390 and 1366 px."""

from __future__ import annotations

import pytest

from tests.conftest import viewport_screenshot

pytestmark = [pytest.mark.storage, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [390, 1366]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_heatmap_draws_every_pair_inside_its_card(no_favicon, mudi_board, width):
    from leaderboard.boards import matrix
    from leaderboard.challenges.models import Phase

    matrix.update_matrices(Phase.objects.standing().get(task_slug="mudi").pk)
    page = no_favicon
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/tasks/mudi/")
    section = page.locator("#significance-matrix")
    section.scroll_into_view_if_needed()
    page.wait_for_selector("#significance-matrix .chart-plot .main-svg")
    # Five entries: 20 off-diagonal cells carry a text (the p of the pair).
    cells = page.evaluate(
        "Array.from(document.querySelectorAll('#significance-matrix .chart-plot text.heatmap-label, "
        "#significance-matrix .chart-plot g.text-group text'), t => t.textContent)"
    )
    assert len([c for c in cells if c]) >= 20 or page.locator("#significance-matrix .heatmaplayer").count() == 1
    card, plot = section.bounding_box(), page.locator("#significance-matrix .chart-plot").bounding_box()
    assert plot["x"] >= card["x"] - 1 and plot["x"] + plot["width"] <= card["x"] + card["width"] + 1
    page.locator("#significance-matrix details.matrix-pairs summary").click()
    assert page.locator("#significance-pairs tbody tr").count() == 10
    viewport_screenshot(page, f"significance-matrix-{width}")
    assert page.console_errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_the_compare_page_states_the_rule(no_favicon, mudi_board, width):
    ids = [mudi_board[m].pk for m in ("OrientationFree", "GraphDDI", "TextDDI")]
    page = no_favicon
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/compare/?ids=" + ",".join(str(i) for i in ids))
    section = page.locator("#significance")
    assert "Bonferroni for the 45 pairs of the top-10 matrix" in section.inner_text()
    assert page.locator("#significance .difference-interval").count() == 3
    section.scroll_into_view_if_needed()
    viewport_screenshot(page, f"compare-rule-{width}")
    assert page.console_errors == []
