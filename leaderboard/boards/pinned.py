"""Pinned board views: a board as it stood at a moment (``?as_of=``), and a digest of its rows.

Whenever the worker writes a board (a rebuild, an update after one submission, new
significance marks, the reveal), ``record`` compares the board's public rows with
the rows of ``BoardRowHistory`` still open: a row whose content changed closes its
period and opens a new one, an unchanged row is not written. A pinned view then
reads the rows valid at that moment from the history alone and ranks them exactly
as ``leaderboard.boards.query`` ranks the live rows (dense rank over the quality
key, position over (quality, tail), filters on the tags, sorts on the sort keys),
so it equals the board the database held then; no request reads prediction files.

Nothing later is applied to a pinned view: a row hidden, re-scored or replaced since
keeps its place and number, and carries a note saying what changed and when
(``moderation_notes``). The digest is sha256 over the view's rows in order (rank,
position and each row's content fingerprint), so it changes exactly when a row of
the view does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Max, Q, Subquery
from django.utils import timezone

from leaderboard.boards import cache, published, query
from leaderboard.boards.models import Board, BoardRow, BoardRowHistory
from leaderboard.boards.present import present_row
from leaderboard.boards.query import ROW_COLUMNS, Controls
from leaderboard.boards.spec import TEXT_SORTS, DirectionSpec
from leaderboard.formatting import metric_text
from leaderboard.submissions.models import Submission

# What a pinned row keeps: every column the board query reads but the row's own id
# (a rebuild re-creates rows under new ids; that is no change), and the sort keys.
HISTORY_COLUMNS = (*(c for c in ROW_COLUMNS if c != "id"), "sort_keys")


class AsOfError(ValueError):
    """An ``as_of`` that names no moment we can pin (the message says why)."""


def parse_as_of(raw: str, now: dt.datetime | None = None) -> dt.datetime:
    """An ``as_of`` value as an aware UTC datetime: ISO 8601 date or date and time (UTC if no offset).

    A date alone means the end of that day (UTC). Raises ``AsOfError`` for anything
    else, and for a moment still to come (a view of the future is not fixed yet).
    """
    text = raw.strip()
    if not text:
        raise AsOfError("as_of is empty: give an ISO 8601 date or time, e.g. as_of=2026-12-01T12:00:00Z.")
    try:
        if len(text) == 10:
            moment = dt.datetime.combine(dt.date.fromisoformat(text), dt.time.max, tzinfo=dt.UTC)
        else:
            moment = dt.datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        raise AsOfError(
            f"as_of={raw[:40]!r} is not an ISO 8601 date or time: write e.g. 2026-12-01 or 2026-12-01T12:00:00Z."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    moment = moment.astimezone(dt.UTC)
    if moment > (now or timezone.now()):
        raise AsOfError(f"as_of={format_as_of(moment)} is in the future: a view can be pinned to a past moment only.")
    return moment


def format_as_of(moment: dt.datetime) -> str:
    """The ``as_of`` of a permalink: UTC, microseconds only when there are any, 'Z' for the zone."""
    moment = moment.astimezone(dt.UTC)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += f".{moment.microsecond:06d}"
    return text + "Z"


# --- recording ------------------------------------------------------------------------------------


def _state(values: dict) -> dict:
    """A row's columns as JSON-ready values (UUIDs and dates as text), the form the history stores."""
    return json.loads(json.dumps(values, cls=DjangoJSONEncoder))


def fingerprint(state: dict) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def record(boards: Iterable[Board], now: dt.datetime | None = None, only: set[str] | None = None) -> None:
    """Bring the history of each board's public rows up to date (inside the transaction that wrote them).

    ``only``: the submissions whose rows may have changed (the update after one submission,
    when the leader stayed: its team-and-method rows and nothing else), so the work is
    proportional to the change; None compares every row. A fixed number of queries per
    board: the rows standing, the open history, and at most one update and one insert.
    """
    now = now or timezone.now()
    for board in boards:
        rows = BoardRow.objects.public().filter(board=board)
        standing_rows = BoardRowHistory.objects.filter(board=board, valid_to__isnull=True)
        if only is not None:
            rows = rows.filter(submission_id__in=sorted(only))
            standing_rows = standing_rows.filter(submission_id__in=sorted(only))
        current: dict[str, tuple[str, dict]] = {}
        for values in rows.values(*HISTORY_COLUMNS):
            state = _state(values)
            current[fingerprint(state)] = (state["submission_id"], state)
        standing = dict(standing_rows.values_list("fingerprint", "id"))
        gone = [pk for fp, pk in standing.items() if fp not in current]
        if gone:
            BoardRowHistory.objects.filter(pk__in=gone).update(valid_to=now)
        new = [
            BoardRowHistory(board=board, submission_id=sid, row=state, fingerprint=fp, valid_from=now)
            for fp, (sid, state) in current.items()
            if fp not in standing
        ]
        if new:
            BoardRowHistory.objects.bulk_create(new, batch_size=500)


# --- reading --------------------------------------------------------------------------------------


def _row(state: dict, fp: str) -> dict:
    """A history row in the shape ``query.ranked_rows`` yields (UUIDs and dates back to their types)."""
    row = dict(state)
    row["submission_id"] = uuid.UUID(row["submission_id"])
    row["submitted_at"] = dt.datetime.fromisoformat(row["submitted_at"])
    row["fingerprint"] = fp
    return row


def _valid_at(board: Board, as_of: dt.datetime):
    return BoardRowHistory.objects.filter(board=board, valid_from__lte=as_of).filter(
        Q(valid_to__isnull=True) | Q(valid_to__gt=as_of)
    )


def _is_ranked_key(key: str) -> bool:
    return not key.startswith("1")


def _dense_ranks(rows: list[dict], key) -> dict[int, int | None]:
    """{index: dense rank by ``key``} of rows already ordered by it; None for unranked keys."""
    ranks: dict[int, int | None] = {}
    rank, last = 0, None
    for i, row in enumerate(rows):
        k = key(row)
        if not _is_ranked_key(k):
            ranks[i] = None
            continue
        if k != last:
            rank, last = rank + 1, k
        ranks[i] = rank
    return ranks


def _sort_key(row: dict, sort: str) -> str:
    if not sort or sort in TEXT_SORTS:
        return row["quality"]
    return (row.get("sort_keys") or {}).get(sort, "1")


def rank_rows(rows: list[dict], controls: Controls) -> list[dict]:
    """Public rows with ``rank``, ``position`` and ``sort_rank`` as the board query gives them, in the view's order."""
    rows = sorted(rows, key=lambda r: (r["quality"], r["tail"]))
    ranks = _dense_ranks(rows, lambda r: r["quality"])
    for i, row in enumerate(rows):
        row["rank"], row["position"], row["sort_rank"] = ranks[i], i + 1, None
    column_sort = bool(controls.sort) and controls.sort not in TEXT_SORTS
    if column_sort:
        by_key = sorted(rows, key=lambda r: _sort_key(r, controls.sort))
        for i, rank in _dense_ranks(by_key, lambda r: _sort_key(r, controls.sort)).items():
            by_key[i]["sort_rank"] = rank
    for param, chosen in controls.filters:
        for value in chosen:
            rows = [r for r in rows if f"|{param}={value}|" in (r["tags"] or "")]
        if param in controls.only:
            rows = [r for r in rows if f"|{param}:={','.join(chosen)}|" in (r["tags"] or "")]
    return _ordered(rows, controls)


def _ordered(rows: list[dict], controls: Controls) -> list[dict]:
    """The view's order (``query._order_sql``): text sorts, column sorts, reversed with missing values last."""
    sort, reverse = controls.sort, controls.reverse
    rows = sorted(rows, key=lambda r: (r["quality"], r["tail"]))
    if sort in TEXT_SORTS:
        descending = (sort == "date") != reverse
        return sorted(rows, key=lambda r: r[TEXT_SORTS[sort]], reverse=descending)  # stable: then the ranking
    keyed = sorted(rows, key=lambda r: (_sort_key(r, sort), r["tail"]), reverse=reverse)
    if reverse:
        keyed.sort(key=lambda r: not _is_ranked_key(_sort_key(r, sort)))  # stable: missing values last
    return keyed


def pinned_rows(board: Board, controls: Controls, as_of: dt.datetime) -> list[dict]:
    """Every row of the view as it stood at ``as_of``, ranked and ordered (one query)."""
    found = [_row(state, fp) for state, fp in _valid_at(board, as_of).values_list("row", "fingerprint")]
    return rank_rows(found, controls)


def digest(rows: Iterable[dict]) -> str:
    """sha256 of a view's rows in order: each row's rank, position and content fingerprint, one line each."""
    lines = (f"{r['rank']}|{r['position']}|{r['fingerprint']}" for r in rows)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def last_change(board: Board, before: dt.datetime | None = None) -> dt.datetime | None:
    """The last moment at or before ``before`` (default: now) when a row of the board changed; None if none did."""
    before = before or timezone.now()
    found = BoardRowHistory.objects.filter(board=board).aggregate(
        opened=Max("valid_from", filter=Q(valid_from__lte=before)),
        closed=Max("valid_to", filter=Q(valid_to__lte=before)),
    )
    return max((m for m in found.values() if m is not None), default=None)


def _standing_rows(board: Board) -> tuple[list[dict], dt.datetime | None]:
    """The rows standing now and the moment of the board's last change, in one query (two with no row standing)."""
    last_closed = (
        BoardRowHistory.objects.filter(board=board, valid_to__isnull=False).order_by("-valid_to").values("valid_to")[:1]
    )
    found = list(
        BoardRowHistory.objects.filter(board=board, valid_to__isnull=True)
        .annotate(last_closed=Subquery(last_closed))
        .values_list("row", "fingerprint", "valid_from", "last_closed")
    )
    if not found:
        return [], last_change(board)
    moments = [m for _, _, opened, closed in found for m in (opened, closed) if m is not None]
    return [_row(state, fp) for state, fp, _, _ in found], max(moments)


@dataclass(frozen=True)
class Pin:
    """What the Cite panel says of a view: its permalink moment and the digest of its rows then."""

    as_of: dt.datetime
    digest: str
    n_rows: int


def current_pin(board: Board, controls: Controls) -> Pin | None:
    """The pin of the view as it stands now (the last change of the board), cached per board version."""
    parts = controls.cache_parts()[:-1]  # every page of the view has the same pin

    def build() -> Pin | bool:
        rows, moment = _standing_rows(board)
        if moment is None:
            return False  # cached as "no history yet" (None would not be cached)
        rows = rank_rows(rows, controls)
        return Pin(as_of=moment, digest=digest(rows), n_rows=len(rows))

    found = cache.get_or_compute(cache.key("pin", board.pk, board.version, parts), build)
    return found if isinstance(found, Pin) else None


# --- later changes, shown as notes ----------------------------------------------------------------


def moderation_notes(board: Board, rows: list[dict], as_of: dt.datetime) -> dict[str, str]:
    """{submission id: what happened to the row since ``as_of``} for the pinned rows that no longer stand as shown.

    The pinned view is never changed by it: a row hidden by a moderator since, made
    private, re-scored or replaced by another submission of its method keeps its place,
    and the note says so with the date of the change.
    """
    ids = [str(r["submission_id"]) for r in rows]
    if not ids:
        return {}
    by_fp = {r["fingerprint"]: str(r["submission_id"]) for r in rows}
    closed = {
        fp: when
        for fp, when in BoardRowHistory.objects.filter(board=board, fingerprint__in=list(by_fp), valid_to__gt=as_of)
        .values_list("fingerprint", "valid_to")
        .iterator()
        if when is not None
    }
    if not closed:
        return {}
    standing = {
        str(sid): state
        for sid, state in BoardRowHistory.objects.filter(
            board=board, submission_id__in=[by_fp[fp] for fp in closed], valid_to__isnull=True
        ).values_list("submission_id", "row")
    }
    subs = {
        str(s["id"]): s
        for s in Submission.objects.filter(pk__in=[by_fp[fp] for fp in closed]).values(
            "id", "is_hidden", "is_public", "status"
        )
    }
    pinned_value = {str(r["submission_id"]): r["value"] for r in rows}
    notes = {}
    for fp, when in closed.items():
        sid = by_fp[fp]
        day = when.astimezone(dt.UTC).strftime("%Y-%m-%d")
        sub = subs.get(sid)
        now_row = standing.get(sid)
        if sub is None:
            what = "deleted"
        elif sub["is_hidden"]:
            what = "hidden by a moderator"
        elif now_row is not None and now_row["value"] != pinned_value[sid]:
            what = f"re-scored (now {metric_text(now_row['value'])})"
        elif now_row is not None:
            continue  # its marks moved with the board: that is what pinning a view is for, not a change to note
        elif not sub["is_public"]:
            what = "made private by its team"
        elif sub["status"] != Submission.Status.SCORED:
            what = "being re-scored"
        else:
            what = "replaced on the board by another submission of its method, or its team was disqualified"
        notes[sid] = f"Since {day}: {what}."
    return notes


# --- the page of a pinned view --------------------------------------------------------------------


def pinned_page(
    board: Board | None, spec: DirectionSpec, controls: Controls, as_of: dt.datetime, with_published: bool
) -> tuple[list[dict], int, Pin]:
    """One page of a pinned view, presented like the live page, its row count and its pin.

    Published results are placed as on the live page: after the rows at least as good,
    on the page of the next row (the last page for those no row is worse than).
    """
    rows = pinned_rows(board, controls, as_of) if board is not None else []
    pin = Pin(as_of=as_of, digest=digest(rows), n_rows=len(rows))
    size = query.PAGE_SIZE
    n_pages = max(1, math.ceil(len(rows) / size))
    index = min(controls.page, n_pages) - 1
    stream: Iterable[dict] = rows
    if with_published and published.shown(controls):
        stream = published.merge_stream(spec, rows, published.entries(spec))
    page: list[dict] = []
    seen = 0
    for item in stream:
        if "published_entry" in item:
            if min(seen // size, n_pages - 1) == index:
                page.append(published.row_for(spec, item["published_entry"]))
            continue
        if seen // size == index:
            page.append(present_row(spec, item, controls.sort))
        seen += 1
    if board is not None:
        notes = moderation_notes(board, [r for r in page if "fingerprint" in r], as_of)
        for row in page:
            if "fingerprint" in row:
                row["pin_note"] = notes.get(str(row["submission_id"]), "")
    return page, len(rows), pin
