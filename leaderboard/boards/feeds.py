"""Following a board: an Atom feed of new leaders and new published results, and an SVG badge per entry.

Both are read from stored data only: the feed from the board's state of the art
over time (``Board.progression``, written by the worker) and the published
results' import dates; the badge from the entry's board row (its rank computed
as the page computes it). Nothing is ranked or scored per request.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from xml.sax.saxutils import escape

from django.db.models import Min
from django.utils.feedgenerator import Atom1Feed

from leaderboard.boards import published
from leaderboard.boards.models import Board
from leaderboard.boards.spec import DirectionSpec
from leaderboard.formatting import metric_text
from leaderboard.links import absolute_reverse, absolute_url
from leaderboard.literature.models import PublishedResult

# Feed entries kept (the newest); a reader that polls more often than this many leaders change misses nothing.
FEED_ENTRIES = 50


def board_feed(board: Board | None, spec: DirectionSpec, title: str, board_url: str, feed_url: str) -> str:
    """The Atom document of a board view: one entry per new leader and per published result, newest first."""
    task = spec.task
    metric = task.metric(spec.metric).name
    link = absolute_url(board_url)
    feed = Atom1Feed(
        title=f"{title}: new leaders and published results",
        link=link,
        description=f"New leaders by {metric} and new published results on the {title} board.",
        feed_url=absolute_url(feed_url),
        feed_guid=link,
        language="en",
    )
    items: list[dict[str, Any]] = []
    for step in board.progression if board is not None else []:
        when = dt.datetime.fromisoformat(step["date"])
        url = absolute_reverse("submissions:detail", step["submission"])
        items.append(
            {
                "title": f"New leader: {step['method']} ({step['team']}), {metric} {metric_text(step['value'])}",
                "link": url,
                "description": f"{step['method']} by {step['team']} leads the {title} board with {metric} "
                f"{metric_text(step['value'])}.",
                "unique_id": f"{link}#leader-{step['submission']}",
                "updateddate": when,
                "pubdate": when,
                "categories": ["leader"],
            }
        )
    loaded = dict(
        PublishedResult.objects.for_task(task.slug)
        .values("method")
        .annotate(first=Min("loaded_at"))
        .values_list("method", "first")
    )
    for entry in published.entries(spec):
        first = loaded.get(entry.method)
        if first is None:
            continue
        value = metric_text(entry.metrics.get(spec.metric))
        items.append(
            {
                "title": f"Published result: {entry.method}, {metric} {value} ({published.source_label(entry)})",
                "link": entry.url or link,
                "description": f"{entry.method}, {published.source_label(entry)}: {metric} {value}, shown unranked "
                "beside the board's entries.",
                "unique_id": f"{link}#published-{entry.method}-{entry.paper}".replace(" ", "-"),
                "updateddate": first,
                "pubdate": first,
                "categories": ["published"],
            }
        )
    items.sort(key=lambda item: item["updateddate"], reverse=True)
    for item in items[:FEED_ENTRIES]:
        feed.add_item(**item)
    return feed.writeString("utf-8")


# --- badges ------------------------------------------------------------------------------------------

LABEL = "DDI Leaderboard"
# Roughly Verdana 11px: enough to size the two boxes without a font file on the server.
CHAR_WIDTH = 6.6
PADDING = 10


def _width(text: str) -> int:
    return int(len(text) * CHAR_WIDTH + 2 * PADDING)


def badge_svg(message: str, colour: str = "#2f6f4f") -> str:
    """A two-part badge ("DDI Leaderboard" | message) as a standalone SVG document."""
    left, right = _width(LABEL), _width(message)
    total = left + right
    label, text = escape(LABEL), escape(message)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" '
        f'aria-label="{label}: {text}">'
        f"<title>{label}: {text}</title>"
        f'<rect width="{left}" height="20" fill="#555"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{colour}"/>'
        '<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">'
        f'<text x="{left / 2:.1f}" y="14">{label}</text>'
        f'<text x="{left + right / 2:.1f}" y="14">{text}</text>'
        "</g></svg>"
    )


def entry_badge(standing: dict | None, value: float | None, short_name: str, as_of: dt.datetime | None) -> str:
    """The badge of one entry: "#2 on MUDI, Macro F1 0.7860, as of 2026-12-01", or grey when not ranked."""
    if standing is None or standing["rank"] is None or not standing["is_public"] or as_of is None:
        return badge_svg(f"not ranked on {short_name}", colour="#777")
    day = as_of.astimezone(dt.UTC).strftime("%Y-%m-%d")
    return badge_svg(
        f"#{standing['rank']} on {short_name}, {standing['metric_name']} {metric_text(value)}, as of {day}"
    )
