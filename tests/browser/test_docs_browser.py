"""The documentation pages in a real browser: they render, and every link on them resolves."""

from __future__ import annotations

from urllib.parse import urldefrag, urlsplit

import pytest

from tests.conftest import save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_every_docs_page_renders_and_every_link_on_it_resolves(page, live_server, no_favicon):
    page.goto("/docs/")
    pages = page.locator("ul.docs-index h2 a").evaluate_all("links => links.map(a => a.href)")
    assert len(pages) >= 10
    checked: dict[str, int] = {}
    for url in pages:
        page.goto(url)
        assert page.locator("article.docs-body h1").count() == 1
        assert page.locator("article.docs-body script").count() == 0
        hrefs = page.locator("a[href], img[src]").evaluate_all("els => els.map(e => e.href || e.src)")
        for href in hrefs:
            if urlsplit(href).netloc != urlsplit(live_server.url).netloc:
                continue  # an outside site: the tests never use the internet
            target, anchor = urldefrag(href)
            if target not in checked:
                checked[target] = page.request.get(target, max_redirects=0).status
            assert checked[target] < 400, f"{url} links {href}: HTTP {checked[target]}"
            if anchor and target == urldefrag(url)[0]:
                assert page.locator(f'[id="{anchor}"]').count() == 1, f"{url} links a missing #{anchor}"
        # Images the page shows really loaded.
        images = page.locator("article.docs-body img")
        broken = images.evaluate_all("imgs => imgs.filter(i => !i.naturalWidth).map(i => i.src)")
        assert broken == [], broken
    page.goto("/docs/metrics/#ranking")
    save_screenshot(page, "docs-metrics")


def test_the_header_leads_to_the_docs_and_a_heading_anchor_is_a_link(page, no_favicon):
    page.goto("/")
    page.locator("header").get_by_role("link", name="Docs").click()
    page.get_by_role("link", name="How submissions are scored").click()
    assert page.url.endswith("/docs/metrics/")
    page.locator("nav.docs-contents").get_by_role("link", name="Ranking", exact=True).click()
    assert page.url.endswith("/docs/metrics/#ranking")
