"""The MUDI board's "F1 by drug frequency" table: the page's top entries, bucket by bucket.

The values are stored results (``{setting}/drug_freq/{bucket}/macro_f1``, written
by the worker from ``scoring.metrics.mudi_drugs``) that each board row keeps in
its ``metrics`` (``DirectionSpec.extra_keys``): no query, nothing computed here. They are
aggregates over many pairs, like the per-class F1s, so every MUDI board shows
them; which drugs an entry gets wrong is on the submission page, and only where
the labels are public.
"""

from __future__ import annotations

from leaderboard.boards.spec import DirectionSpec
from leaderboard.formatting import metric_text
from scoring.keys import DRUG_BUCKETS, mudi_bucket_key

# The table compares this many entries from the top of the page.
TOP_ENTRIES = 10


def bucket_table(spec: DirectionSpec, rows: list) -> dict | None:
    """``{"buckets": [...], "rows": [...], "setting"}`` for a MUDI view; None for other tasks or no values."""
    if spec.task.kind != "mudi":
        return None
    entries = [row for row in rows if isinstance(row, dict) and "submission_id" in row][:TOP_ENTRIES]
    if not entries:
        return None
    values = {str(row["submission_id"]): row.get("metrics") or {} for row in entries}
    if not any(mudi_bucket_key(spec.key, b.slug, "pairs") in v for v in values.values() for b in DRUG_BUCKETS):
        return None  # every shown entry was scored (or its row built) before the breakdown existed
    pairs: dict[str, int] = {}
    for stored in values.values():
        for b in DRUG_BUCKETS:
            n = stored.get(mudi_bucket_key(spec.key, b.slug, "pairs"))
            if n is not None:
                pairs.setdefault(b.slug, int(n))
    buckets = [
        {"slug": b.slug, "label": b.label, "short": b.short, "pairs": pairs[b.slug]}
        for b in DRUG_BUCKETS
        if b.slug in pairs
    ]
    table = []
    for row in entries:
        stored = values.get(str(row["submission_id"]), {})
        table.append(
            {
                "rank": row.get("shown_rank"),
                "method": row["method_name"],
                "url": row.get("url", ""),
                "cells": [
                    (
                        metric_text(stored.get(mudi_bucket_key(spec.key, str(b["slug"]), "macro_f1"))),
                        metric_text(stored.get(mudi_bucket_key(spec.key, str(b["slug"]), "micro_f1"))),
                    )
                    for b in buckets
                ],
            }
        )
    return {"buckets": buckets, "rows": table, "setting": spec.label.lower()}
