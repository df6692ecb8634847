"""The breakdown charts in a real browser at 390 and 1366 px: head/middle/tail bars, per-context views."""

from __future__ import annotations

import pytest

from tests.boards.conftest import scored, with_truth
from tests.boards.test_breakdowns import drugcomb_prediction, drugcomb_truth, uspto_prediction, uspto_truth

pytestmark = [pytest.mark.storage, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [390, 1366]


def inside(inner: dict, outer: dict, slack: float = 1.0) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


@pytest.fixture
def standing_phases(transactional_db):
    from leaderboard.challenges.services import sync_standing_challenges

    sync_standing_challenges()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_head_middle_tail_chart_draws_three_groups_inside_its_card(
    page, standing_phases, alice_lab, charlie, no_favicon, width
):
    phase = with_truth("imdrug-uspto50k-random", uspto_truth())
    scored(phase, alice_lab, "HeadOnly", file=uspto_prediction({0, 1}))
    scored(phase, charlie.personal_team, "Everything", file=uspto_prediction(set(range(6))), minutes=1)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/tasks/imdrug-uspto50k-random/")
    page.wait_for_selector("#figure-longtail svg.main-svg")
    card = page.locator("#figure-longtail").bounding_box()
    ticks = page.locator("#figure-longtail .xtick text")
    assert [t.text_content() for t in ticks.all()] == ["head", "middle", "tail"]
    for tick in ticks.all():
        assert inside(tick.bounding_box(), card)
    assert page.locator("#figure-longtail g.point").count() == 6  # two methods x three groups
    assert page.console_errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_the_per_context_views_draw_on_board_submission_and_compare_pages(
    page, standing_phases, alice_lab, charlie, no_favicon, width
):
    phase = with_truth("chemicalx-drugcomb", drugcomb_truth())
    a = scored(phase, alice_lab, "GoodOnA549", file=drugcomb_prediction({"A549"}))
    b = scored(phase, charlie.personal_team, "GoodEverywhere", file=drugcomb_prediction({"A549", "MCF7"}), minutes=1)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/tasks/chemicalx-drugcomb/")
    page.wait_for_selector("#figure-context-distribution svg.main-svg")
    page.goto(f"/submissions/{a.pk}/")
    page.wait_for_selector("#figure-context-extremes svg.main-svg")
    card = page.locator("#figure-context-extremes").bounding_box()
    for tick in page.locator("#figure-context-extremes .ytick text").all():
        assert inside(tick.bounding_box(), card), tick.text_content()
    page.goto(f"/compare/?ids={a.pk},{b.pk}")
    page.wait_for_selector("#figure-context-paired svg.main-svg")
    assert "wins 0 of 2 contexts" in page.locator("#context-wins").inner_text()
    assert page.console_errors == []
