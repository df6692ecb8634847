"""Charts in a real browser at 390 and 1366 px: long labels, mode bar, legends, big matrices, filters."""

from __future__ import annotations

import re

import pytest

from tests.boards.conftest import classification_metrics, phase_for, scored
from tests.conftest import viewport_screenshot

pytestmark = [pytest.mark.storage, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [390, 1366]
CLASSES = [f"type {i}" for i in range(1, 87)]
LONG_NAMES = ["Hierarchical Graph Transformer with Pretraining", "Molecular Fingerprint Gradient Boosting", "GIN"]


@pytest.fixture
def drugbank(transactional_db, alice_lab, charlie):
    from leaderboard.challenges.services import sync_standing_challenges
    from leaderboard.submissions.models import Submission

    sync_standing_challenges()
    phase = phase_for("imdrug-drugbank-random")
    subs = [
        scored(phase, team, name, classification_metrics(0.8 - i / 10, classes=CLASSES), minutes=i)
        for i, (team, name) in enumerate(zip([alice_lab, charlie.personal_team, alice_lab], LONG_NAMES, strict=True))
    ]
    matrix = [[(i + 1) * 5 if i == j else (1 if (i + j) % 7 == 0 else 0) for j in range(86)] for i in range(86)]
    report = {
        "confusion_matrix": {"matrix": matrix, "true_labels": CLASSES, "predicted_labels": CLASSES},
        "per_class": [
            {"class": c, "precision": 0.5, "recall": 0.6, "f1": 0.55, "support": (i + 1) * 5}
            for i, c in enumerate(CLASSES)
        ],
        "seeds": [
            {"seed": s, "n": 100, "balanced_accuracy": 0.5 + s / 50, "macro_f1": 0.017 + s / 1000} for s in range(3)
        ],
    }
    Submission.objects.filter(pk=subs[0].pk).update(report=report)
    return subs


def texts(page, selector: str) -> list[str]:
    """Text of SVG elements (inner_text is for HTML)."""
    return page.evaluate(f"Array.from(document.querySelectorAll({selector!r}), t => t.textContent)")


def box(page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


def inside(inner: dict, outer: dict, slack: float = 1.0) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


def overlaps(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_board_charts_keep_long_labels_titles_and_legends_inside_their_cards(page, drugbank, no_favicon, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/tasks/imdrug-drugbank-random/")
    page.wait_for_selector("#figure-class-f1 svg.main-svg")
    figure = box(page, "#figure-class-f1")
    # Heatmap row labels (method names) are drawn inside the card, not cut at its left edge.
    for tick in page.locator("#figure-class-f1 .ytick text").all():
        assert inside(tick.bounding_box(), figure), tick.text_content()
    title = box(page, "#figure-class-f1 .gtitle")
    assert inside(title, figure)
    page.wait_for_selector("#figure-seeds svg.main-svg")
    seeds = box(page, "#figure-seeds")
    legend = page.locator("#figure-seeds .legend")
    if legend.count():
        assert inside(legend.first.bounding_box(), seeds)
    if width == 390:
        assert page.locator(".modebar-btn").count() == 0  # no mode bar over the titles on a phone
    else:
        page.hover("#figure-class-f1 .chart-plot")
        modebar = page.locator("#figure-class-f1 .modebar")
        if modebar.count() and modebar.first.is_visible():
            assert not overlaps(modebar.first.bounding_box(), title)
    # The state-of-the-art chart is labelled in days, never in seconds.
    page.wait_for_selector("#figure-progression svg.main-svg")
    ticks = texts(page, "#figure-progression .xtick text")
    assert ticks and all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", t) for t in ticks), ticks
    assert page.console_errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_an_86_class_submission_report_stays_readable(page, drugbank, no_favicon, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/submissions/{drugbank[0].pk}/")
    page.wait_for_selector("#figure-confusion svg.main-svg")
    assert box(page, "#figure-confusion")["height"] < 1000
    assert "20 most frequent of 86" in page.locator("#figure-confusion figcaption").inner_text()
    page.wait_for_selector("#figure-per-class svg.main-svg")
    per_class = box(page, "#figure-per-class")
    for tick in page.locator("#figure-per-class .xtick text").all():
        assert inside(tick.bounding_box(), per_class), tick.text_content()
    page.wait_for_selector("#figure-seed-values svg.main-svg")
    panel_titles = texts(page, "#figure-seed-values .annotation-text")
    assert "Balanced accuracy" in " ".join(panel_titles) and "balanced_accuracy" not in " ".join(panel_titles)
    # One y-axis per metric: 0.017 is not drawn on the same axis as 0.5.
    assert page.locator("#figure-seed-values .yaxislayer-above").count() >= 1
    assert page.locator("#figure-seed-values g.y2tick").count() > 0
    if width == 390:
        page.locator("#figure-confusion").scroll_into_view_if_needed()
        viewport_screenshot(page, "submission-confusion-390")
    assert page.console_errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_the_charts_plot_the_rows_a_filter_leaves(page, mudi_board, no_favicon, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/tasks/mudi/?modalities=text")
    page.wait_for_selector("#figure-class-f1 svg.main-svg")
    in_table = [t.strip() for t in page.locator("#leaderboard tbody td.method a").all_inner_texts()]
    plotted = page.evaluate("Array.from(document.querySelector('#figure-class-f1 .chart-plot').data, t => t.name)")
    assert len(plotted) == len(in_table) < 5
    assert [name.split(" (")[0] for name in plotted] == in_table
    assert "Charts show the rows of the table above" in page.locator("#charts-scope").inner_text()
    assert page.console_errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_every_legend_and_title_stays_inside_its_card(page, mudi_board, no_favicon, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/tasks/mudi/")
    page.wait_for_selector("#figure-class-f1 svg.main-svg")
    page.wait_for_function("document.querySelectorAll('[data-chart]:not([data-rendered])').length === 0")
    figures = page.locator("figure.chart").all()
    assert len(figures) >= 3
    for figure in figures:
        card = figure.bounding_box()
        for part in figure.locator(".legend, .gtitle").all():
            assert inside(part.bounding_box(), card), figure.get_attribute("id")
        # Inside the drawing too: a title wrapped on a phone once began above it and lost its first line.
        drawing = figure.locator("svg.main-svg").first.bounding_box()
        assert inside(figure.locator(".gtitle").first.bounding_box(), drawing), figure.get_attribute("id")
    assert page.console_errors == []


def test_markup_in_a_method_name_is_shown_as_text_not_rendered(page, live_server, transactional_db, alice_lab, charlie):
    from leaderboard.challenges.services import sync_standing_challenges
    from tests.boards.conftest import mudi_metrics

    sync_standing_challenges()
    phase = phase_for("mudi")
    scored(phase, alice_lab, '<a href="//x.io">P</a>', mudi_metrics(0.7, 0.6))
    scored(phase, charlie.personal_team, "<b>Bold</b> & co", mudi_metrics(0.6, 0.9), minutes=1)
    page.goto("/tasks/mudi/")
    page.wait_for_selector(".js-plotly-plot .main-svg")
    svg_links = page.evaluate("document.querySelectorAll('.js-plotly-plot svg a').length")
    assert svg_links == 0
    shown = " ".join(texts(page, ".js-plotly-plot svg text"))
    assert '<a href="//x.io">P</a>' in shown and "<b>Bold</b> & co" in shown
    assert page.console_errors == []
