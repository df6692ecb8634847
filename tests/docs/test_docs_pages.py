"""The documentation pages: docs/*.md rendered at /docs/ and /docs/<page>/, safely, with site links."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from leaderboard import docpages

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def test_the_index_lists_every_markdown_page_of_docs(client):
    response = client.get("/docs/")
    assert response.status_code == 200
    for path in (REPO / "docs").glob("*.md"):
        assert f'href="/docs/{path.stem}/"' in response.content.decode()


def test_a_page_renders_its_markdown_with_anchors_on_headings(client):
    response = client.get("/docs/metrics/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<h1 id="how-submissions-are-scored">' in html
    # The same anchor the README links on GitHub.
    assert 'id="by-drug-frequency-buckets-and-per-drug-errors"' in html
    assert 'id="balanced-f1-the-authors-definition"' in html
    assert "<table>" in html


def test_links_between_pages_point_at_site_pages_and_files_at_static_files(client):
    html = client.get("/docs/performance/").content.decode()
    assert 'href="/docs/leaderboards/#speed"' in html
    assert 'src="/static/docs/performance.png"' in html
    assert 'href="leaderboards.md' not in html


def test_every_relative_link_of_every_page_resolves_on_the_site(client):
    for slug in docpages.page_slugs():
        html = client.get(f"/docs/{slug}/").content.decode()
        article = html[html.index("<article") :]
        for target, anchor in re.findall(r'href="(/docs/[^"#]*)#?([^"]*)"', article):
            linked = client.get(target)
            assert linked.status_code == 200, f"{slug}: {target}"
            assert not anchor or f'id="{anchor}"' in linked.content.decode(), f"{slug}: {target}#{anchor}"
        for asset in re.findall(r'(?:href|src)="/static/([^"#]*)', article):
            assert finders.find(asset), f"{slug}: {asset}"
        for anchor in re.findall(r'href="#([^"]+)"', html):
            assert f'id="{anchor}"' in html, f"{slug}: #{anchor}"


def test_an_unknown_page_is_not_found(client):
    assert client.get("/docs/nope/").status_code == 404
    assert client.get("/docs/README/").status_code == 404


def test_raw_html_in_markdown_is_sanitised(settings, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "evil.md").write_text(
        '# Evil\n\n<script>alert(1)</script>\n\n[click](javascript:alert(1)) <img src=x onerror="alert(1)">\n'
    )
    settings.BASE_DIR = tmp_path
    doc = docpages.page("evil")
    assert doc is not None
    assert "<script" not in doc.html
    assert "javascript:" not in doc.html
    assert "onerror" not in doc.html


def test_header_and_footer_link_the_documentation(client):
    html = client.get("/").content.decode()
    assert html.count('href="/docs/"') >= 2
    assert 'href="/docs/metrics/"' in html


def test_the_api_reference_links_its_guide_on_the_site(client):
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    assert "(/docs/api/)" in schema["info"]["description"]
    assert "docs/api.md" not in schema["info"]["description"]
