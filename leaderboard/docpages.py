"""The documentation pages of the site: docs/*.md rendered as HTML, one source for repository and site.

The Markdown files stay the only copy: the site renders them (tables, fenced code,
heading anchors), sanitises the HTML with nh3 and rewrites relative links so that
``metrics.md#ranking`` opens ``/docs/metrics/#ranking`` and ``screenshots/x.png``
loads from the static files (docs/ is a static folder under the ``docs/`` prefix).
Heading anchors follow the rule GitHub uses for these headings (lower case, words
joined by hyphens, punctuation dropped), so a link written for the repository
lands on the same heading on the site.
"""

from __future__ import annotations

import html as html_lib
import posixpath
import xml.etree.ElementTree as etree
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

import markdown as markdown_lib
import nh3
from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

# The pages in reading order: what a researcher needs first, then what an operator needs.
PAGE_ORDER = (
    "metrics",
    "scoring",
    "submissions",
    "leaderboards",
    "challenges",
    "api",
    "configuration",
    "kinds",
    "deploy",
    "operations",
    "performance",
)

ALLOWED_TAGS = {
    "a", "abbr", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "img", "li", "ol", "p", "pre", "span", "strong", "sub", "sup", "table", "tbody", "td",
    "th", "thead", "tr", "ul",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "*": {"id", "class"},
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "td": {"align", "style"},
    "th": {"align", "style"},
}


def docs_dir() -> Path:
    return Path(settings.BASE_DIR) / "docs"


@dataclass(frozen=True)
class Heading:
    level: int
    anchor: str
    title: str


@dataclass(frozen=True)
class DocPage:
    slug: str
    title: str
    summary: str  # the first paragraph, as plain text
    html: str  # sanitised
    headings: tuple[Heading, ...]  # levels 2 and 3, for the page's contents

    def get_absolute_url(self) -> str:
        return reverse("docs:page", args=[self.slug])


def page_slugs() -> list[str]:
    """Every docs/*.md page, in reading order (pages PAGE_ORDER does not name come last, by name)."""
    found = sorted(path.stem for path in docs_dir().glob("*.md"))
    return [slug for slug in PAGE_ORDER if slug in found] + [slug for slug in found if slug not in PAGE_ORDER]


def page(slug: str) -> DocPage | None:
    """The rendered page docs/<slug>.md, or None if there is none."""
    if slug not in page_slugs():
        return None
    path = docs_dir() / f"{slug}.md"
    return _render(path, path.stat().st_mtime_ns)


def all_pages() -> list[DocPage]:
    return [p for p in (page(slug) for slug in page_slugs()) if p is not None]


def metric_url(anchor: str) -> str:
    """The URL of a definition on the metrics page, e.g. metric_url("ranking")."""
    return reverse("docs:page", args=["metrics"]) + f"#{anchor}"


def github_anchor(value: str, separator: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, each space a hyphen."""
    kept = "".join(ch for ch in value.strip().lower() if ch.isalnum() or ch in " -_")
    return kept.replace(" ", separator)


def _target(href: str) -> str:
    """Where a link of a docs page points on the site; absolute URLs and anchors are left alone."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
        return href
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    path = posixpath.normpath(parts.path)
    if path.startswith("../"):
        return href  # outside docs/: nothing on the site serves it
    if path.endswith(".md") and "/" not in path:
        return reverse("docs:page", args=[path[: -len(".md")]]) + fragment
    return static(f"docs/{path}") + fragment


class _SiteLinks(Treeprocessor):
    def run(self, root: etree.Element) -> None:
        for element in root.iter():
            for attribute in ("href", "src"):
                value = element.get(attribute)
                if value is not None:
                    element.set(attribute, _target(value))


class _SiteLinksExtension(Extension):
    def extendMarkdown(self, md: markdown_lib.Markdown) -> None:  # noqa: N802 (Markdown's API)
        md.treeprocessors.register(_SiteLinks(md), "site_links", 1)


def _flatten(tokens: list[dict]) -> list[Heading]:
    out: list[Heading] = []
    for token in tokens:
        if token["level"] in (2, 3):
            out.append(Heading(token["level"], token["id"], token["name"]))
        out.extend(_flatten(token["children"]))
    return out


@lru_cache(maxsize=64)
def _render(path: Path, mtime_ns: int) -> DocPage:
    # mtime_ns is part of the cache key only: an edited file is rendered again.
    md = markdown_lib.Markdown(
        extensions=["tables", "fenced_code", "toc", _SiteLinksExtension()],
        extension_configs={
            "toc": {"slugify": github_anchor, "permalink": "#", "permalink_title": "Link to this section"},
        },
    )
    text = path.read_text(encoding="utf-8")
    html = nh3.clean(
        md.convert(text),
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        link_rel=None,
        url_schemes={"http", "https", "mailto"},
    )
    tokens = md.toc_tokens  # type: ignore[attr-defined]
    title = tokens[0]["name"] if tokens and tokens[0]["level"] == 1 else path.stem
    paragraphs = [block for block in text.split("\n\n") if block.strip() and not block.lstrip().startswith("#")]
    summary = " ".join(paragraphs[0].split()) if paragraphs else ""
    return DocPage(path.stem, title, _plain(summary), html, tuple(_flatten(tokens)))


def _plain(text: str) -> str:
    """A paragraph of Markdown as plain text (links keep their words, code its characters)."""
    return html_lib.unescape(nh3.clean(markdown_lib.markdown(text), tags=set()))
