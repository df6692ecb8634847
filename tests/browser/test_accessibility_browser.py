"""axe-core on the main pages in a real browser: no serious or critical accessibility violation.

axe's script comes from the axe-playwright-python package (requirements-dev.txt), read from
its installed files and evaluated in the page: no CDN, no vendored copy in the repository.
"""

from __future__ import annotations

from importlib import resources

import pytest
from django.utils import timezone

from leaderboard.boards.pinned import format_as_of
from tests.boards.conftest import classification_metrics, pair_metrics, phase_for, scored
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.storage, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BLOCKING = {"serious", "critical"}


def axe_source() -> str:
    return resources.files("axe_playwright_python").joinpath("axe.min.js").read_text(encoding="utf-8")


def violations(page) -> list[dict]:
    page.evaluate(axe_source())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [v for v in result["violations"] if v.get("impact") in BLOCKING]


def describe(found: list[dict]) -> str:
    return "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']} -> {[n['target'] for n in v['nodes'][:3]]}" for v in found
    )


@pytest.fixture
def site(mudi_board, alice, alice_lab, charlie):
    """Boards of all three families, a scored submission and two to compare."""
    scored(phase_for("chemicalx-twosides"), alice_lab, "DeepSynergy", pair_metrics(0.8, spread=0.01))
    scored(phase_for("imdrug-hiv-random"), charlie.personal_team, "GIN", classification_metrics(0.7))
    return mudi_board


def pages(site) -> list[tuple[str, str]]:
    a, b = site["GraphDDI"], site["TextDDI"]
    return [
        ("home", "/"),
        ("benchmarks", "/benchmarks/"),
        ("board mudi", "/tasks/mudi/"),
        ("board chemicalx", "/tasks/chemicalx-twosides/"),
        ("board imdrug", "/tasks/imdrug-hiv-random/"),
        ("dataset", "/datasets/imdrug/hiv/"),
        ("submission", f"/submissions/{a.pk}/"),
        ("compare", f"/compare/?ids={a.pk},{b.pk}"),
        ("pinned board", f"/tasks/mudi/?as_of={format_as_of(timezone.now())}"),
        ("method", f"/methods/{a.team.slug}/graphddi/"),
        ("suite", "/suites/all/"),
        ("login", "/accounts/login/"),
    ]


@pytest.mark.parametrize("width", [390, 1366])
def test_the_main_pages_have_no_serious_or_critical_violations(page, site, no_favicon, width):
    page.set_viewport_size({"width": width, "height": 900})
    problems = {}
    for name, url in pages(site):
        page.goto(url)
        page.wait_for_load_state("load")
        found = violations(page)
        if found:
            problems[name] = describe(found)
    # Logged in: the submit page (with its form) too.
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", PASSWORD)
    page.click("form.form button[type=submit], form.form input[type=submit]")
    page.wait_for_load_state("load")
    for name, url in [("submit", "/tasks/mudi/submit/"), ("board logged in", "/tasks/mudi/")]:
        page.goto(url)
        found = violations(page)
        if found:
            problems[name] = describe(found)
    assert problems == {}, "\n\n".join(f"[{k}]\n{v}" for k, v in problems.items())
