"""Published results beside a board: unranked rows placed where their ranking metric would rank.

A published entry (``leaderboard.literature``) is shown on a view only when it
reports the view's ranking metric, and only in the board's own order (a column
sort shows none: its place would mean nothing). It never gets a rank, is never
the leader and is never in a chart. Its place is the number of rows of the
same view (filters and private rows included) whose value is at least as good,
so it sits after the entries it ties with.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.db.models import Count, Q, QuerySet

from leaderboard.boards import cache
from leaderboard.boards.query import Controls
from leaderboard.boards.spec import DirectionSpec
from leaderboard.formatting import metric_text
from leaderboard.literature.models import entries_for, version
from scoring.literature import PublishedEntry


def shown(controls: Controls) -> bool:
    """Whether this view shows published rows at all (the control is on and the order is the board's own)."""
    return controls.published and not controls.sort and not controls.reverse


def entries(spec: DirectionSpec) -> list[PublishedEntry]:
    """The task's published entries that report this view's ranking metric, best first (cached)."""

    def build() -> list[PublishedEntry]:
        found = [e for e in entries_for(spec.task.slug) if spec.metric in e.metrics]
        return sorted(found, key=lambda e: e.metrics[spec.metric], reverse=spec.higher_is_better)

    return cache.get_or_compute(cache.key("published", spec.task.slug, spec.metric, version()), build)


def _at_least_as_good(spec: DirectionSpec, value: float) -> Q:
    return Q(value__gte=value) if spec.higher_is_better else Q(value__lte=value)


def places(spec: DirectionSpec, found: list[PublishedEntry], rows: QuerySet) -> list[int]:
    """For each entry, how many of ``rows`` come before it (one query for all of them)."""
    if not found:
        return []
    counts = rows.order_by().aggregate(
        **{f"e{i}": Count("id", filter=_at_least_as_good(spec, e.metrics[spec.metric])) for i, e in enumerate(found)}
    )
    return [counts[f"e{i}"] for i in range(len(found))]


def unit_note(entry: PublishedEntry) -> str:
    return "printed in percent, shown here as fractions" if entry.unit == "percent" else ""


def row_for(spec: DirectionSpec, entry: PublishedEntry) -> dict:
    """A published entry shaped like a presented board row (no rank, no submission)."""
    metrics = entry.metrics
    return {
        "published": True,
        "method_name": entry.method,
        "paper": entry.paper,
        "table": entry.table,
        "citation_url": entry.url,
        "source_text": entry.source,
        "unit_note": unit_note(entry),
        "flags": entry.flags,
        "primary": metric_text(metrics.get(spec.metric)),
        "cells": [metric_text(metrics.get(c.key)) for c in spec.columns[1:]],
        "class_cells": [metric_text(metrics.get(c.key)) for c in spec.class_columns],
        "breakdown_cells": [metric_text(metrics.get(c.key)) for c in spec.breakdown_columns],
    }


def source_label(entry: PublishedEntry) -> str:
    """The ``source`` cell of an export: "reported in <paper>, Table N"."""
    return f"reported in {entry.paper}" + (f", {entry.table}" if entry.table else "")


def merge_page(
    spec: DirectionSpec,
    controls: Controls,
    page: list[dict],
    rows: QuerySet,
    page_size: int,
    total: int,
    last_page: bool,
) -> list[dict]:
    """The page's rows with the published entries whose place falls on this page inserted."""
    if not shown(controls):
        return page
    return insert_on_page(spec, page, rows, (controls.page - 1) * page_size, page_size, last_page, row_for)


def insert_on_page(spec, page: list, rows: QuerySet, start: int, page_size: int, last_page: bool, make) -> list:
    """``page`` (rows ``start`` to ``start + page_size`` of ``rows``) with ``make(spec, entry)`` inserted for each
    published entry whose place falls on it; the site's page and the API's page place them alike."""
    found = entries(spec)
    merged = list(page)
    # Insert from the last place back so earlier indexes stay right; ties keep best-first order.
    placed = [
        (place, i, e)
        for i, (e, place) in enumerate(zip(found, places(spec, found, rows), strict=True))
        if start <= place < start + page_size or (last_page and place >= start + len(page))
    ]
    for place, _, e in sorted(placed, key=lambda t: (t[0], t[1]), reverse=True):
        merged.insert(min(place - start, len(merged)), make(spec, e))
    return merged


def merge_stream(spec: DirectionSpec, rows: Iterable[dict], found: list[PublishedEntry]) -> Iterator[dict]:
    """Rows in board order with ``{"published_entry": e}`` before the first row that ``e`` beats.

    ``found`` is best first; an entry goes after the rows at least as good as it, and
    entries no row is worse than come last (after rows without a value).
    """
    pending = list(found)
    sign = 1 if spec.higher_is_better else -1
    for row in rows:
        value = row.get("value")
        while pending and (value is None or sign * value < sign * pending[0].metrics[spec.metric]):
            yield {"published_entry": pending.pop(0)}
        yield row
    for entry in pending:
        yield {"published_entry": entry}
