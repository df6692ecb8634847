"""Template helpers for submission pages."""

from __future__ import annotations

import markdown as markdown_lib
import nh3
from django import template
from django.utils.safestring import mark_safe

from leaderboard.formatting import metric_text

register = template.Library()

ALLOWED_TAGS = {
    "p",
    "br",
    "em",
    "strong",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "h3",
    "h4",
    "h5",
    "hr",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "sup",
    "sub",
}


@register.filter
def markdown(text: str) -> str:
    """Markdown rendered to HTML and sanitised (no scripts, no styles, links get rel=noopener)."""
    html = markdown_lib.markdown(text or "", extensions=["tables", "fenced_code"])
    clean = nh3.clean(html, tags=ALLOWED_TAGS, attributes={"a": {"href", "title"}}, link_rel="noopener nofollow")
    return mark_safe(clean)  # noqa: S308 (sanitised by nh3 just above)


@register.filter
def metric_value(value: float | None) -> str:
    """Four decimals, or an em dash for a missing value."""
    return metric_text(value)
