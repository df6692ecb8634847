"""The controls of a board view, read from the query string, and the rows they select.

Every control lives in the query string, so a view is a permalink and works
without JavaScript:

- ``direction=aware|agnostic`` (MUDI only): which view (ranking metric) to show;
- ``sort=<column>``, ``sort=-<column>`` to reverse: a metric key (best first,
  missing values last), or ``team``, ``method``, ``date`` (newest first);
- ``private=1`` (logged-in users): add the private rows of the user's teams;
- ``<declaration>=<choice>`` (repeatable) and ``<declaration>_only=1`` for
  multi-choice declarations ("graph-only": ``modalities=graph&modalities_only=1``),
  ``<declaration>=yes|no`` for yes/no ones, ``baseline=yes|no``, ``verified=yes|no`` (staff
  reproduced the entry from its code), and the method fields' own filters
  (``scoring.submission_fields``: ``external=yes|no``, ``family=<model family>``);
- ``cols=<group>`` (repeatable): which groups of columns the table shows
  (``COLUMN_GROUPS``; rank, method and the ranking metric always show; none given = all);
- ``published=0``: hide the published results shown beside the rows (on by default);
- ``as_of=<ISO 8601 moment>``: the view as it stood then (``leaderboard.boards.pinned``; the
  views check it, since a bad moment is an error, not a default);
- ``page=N``.

Unknown or invalid values are ignored (the default applies), never an error.
The page, the CSV and the JSON export all go through ``select_rows``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.db import connection
from django.db.models import Field, Q, QuerySet

from leaderboard.accounts.models import Membership
from leaderboard.boards.models import Board, BoardRow
from leaderboard.boards.spec import TEXT_SORTS, DirectionSpec, direction_spec, directions_for, filters_for

PAGE_SIZE = 50
# Past any real board (5 million rows); a bigger ?page= would overflow the database's OFFSET.
MAX_PAGE = 100_000

# The column chooser's groups, in table order: (key, label). Rank, Method and the ranking metric always show.
COLUMN_GROUPS = (
    ("metrics", "Other metrics"),
    ("classes", "Per-class F1"),
    ("submission", "Team and date"),
    ("details", "Declarations and links"),
)


@dataclass(frozen=True)
class Controls:
    direction: str
    sort: str = ""  # "" = the board's ranking
    reverse: bool = False
    private: bool = False
    filters: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (param, values)
    only: tuple[str, ...] = ()  # multi-choice params filtered to exactly the chosen values
    page: int = 1
    # Published results (``leaderboard.literature``) beside the rows; ``published=0`` hides them.
    published: bool = True
    default_direction: str = field(default="default", compare=False)
    # Column groups shown; () = every group. Only the HTML table reads it (rows and exports do not change).
    columns: tuple[str, ...] = field(default=(), compare=False)
    # A pinned view's moment as its permalink writes it (``pinned.format_as_of``); "" = the board now.
    as_of: str = ""

    def shows(self, group: str) -> bool:
        return not self.columns or group in self.columns

    @property
    def is_filtered(self) -> bool:
        return bool(self.filters)

    def params(self, **changes) -> list[tuple[str, str]]:
        """The query string pairs of this view, with ``changes`` applied (page resets unless given)."""
        values: dict[str, Any] = {
            "direction": self.direction,
            "sort": self.sort_param(self.sort, self.reverse),
            "private": self.private,
            "filters": self.filters,
            "only": self.only,
            "page": 1,
            "columns": self.columns,
            "published": self.published,
            "as_of": self.as_of,
        }
        values.update(changes)
        pairs: list[tuple[str, str]] = []
        if values["direction"] != self.default_direction:
            pairs.append(("direction", values["direction"]))
        if values["sort"]:
            pairs.append(("sort", values["sort"]))
        if values["private"]:
            pairs.append(("private", "1"))
        for param, chosen in values["filters"]:
            pairs += [(param, v) for v in chosen]
        pairs += [(f"{param}_only", "1") for param in values["only"]]
        pairs += [("cols", group) for group in values["columns"]]
        if not values["published"]:
            pairs.append(("published", "0"))
        if values["as_of"]:
            pairs.append(("as_of", values["as_of"]))
        if values["page"] and values["page"] != 1:
            pairs.append(("page", str(values["page"])))
        return pairs

    def query(self, **changes) -> str:
        """``?a=b&...`` (or "" for the default view)."""
        pairs = self.params(**changes)
        # ":" left as is (it is legal in a query): a pinned view's as_of reads as written in a citation.
        return "?" + urlencode(pairs, safe=":") if pairs else ""

    @staticmethod
    def sort_param(sort: str, reverse: bool) -> str:
        """The ``sort`` value: "" for the ranking, "-rank" for it reversed, "[-]column" otherwise."""
        if not sort and not reverse:
            return ""
        return ("-" if reverse else "") + (sort or "rank")

    def sort_query(self, column: str) -> str:
        """The link of a column header: sort by it, or reverse the order if it is already the sort."""
        column = "" if column == "rank" else column
        reverse = not self.reverse if column == self.sort else False
        return self.query(sort=self.sort_param(column, reverse))

    def sorted_by(self, column: str) -> str:
        """ "asc"/"desc" marker for the header of ``column`` when it is the sort, else ""."""
        column = "" if column == "rank" else column
        if column != self.sort:
            return ""
        return "reversed" if self.reverse else "sorted"

    def cache_parts(self) -> tuple:
        return (self.direction, self.sort, self.reverse, self.filters, self.only, self.published, self.as_of, self.page)


def parse_controls(task, params, *, logged_in: bool) -> Controls:
    """Read the controls from a QueryDict; anything unknown falls back to the default."""
    directions = directions_for(task)
    direction = params.get("direction", "") if "direction" in params else directions[0]
    if direction not in directions:
        direction = directions[0]
    spec = direction_spec(task, direction)
    raw_sort = params.get("sort", "").strip()
    reverse = raw_sort.startswith("-")
    sort = raw_sort.lstrip("-")
    if sort in ("rank", spec.metric):
        sort = ""  # the board's own ranking
    if sort and sort not in TEXT_SORTS and spec.column(sort) is None:
        sort, reverse = "", False
    filters = []
    only = []
    for f in filters_for(task):
        if f.single:
            value = params.get(f.param, "")
            if value in (f.choices or ()):
                filters.append((f.param, (value,)))
        elif f.choices is not None:
            chosen = tuple(sorted({v for v in params.getlist(f.param) if v in f.choices}))
            if chosen:
                filters.append((f.param, chosen))
                if params.get(f"{f.param}_only") == "1":
                    only.append(f.param)
        else:
            value = params.get(f.param, "")
            if value in ("yes", "no"):
                filters.append((f.param, (value,)))
    try:
        page = min(MAX_PAGE, max(1, int(params.get("page", "1"))))
    except ValueError:  # not a number, or more digits than int() accepts
        page = 1
    wanted = set(params.getlist("cols"))
    columns = tuple(key for key, _ in COLUMN_GROUPS if key in wanted)
    if len(columns) == len(COLUMN_GROUPS):
        columns = ()
    return Controls(
        columns=columns,
        direction=direction,
        sort=sort,
        reverse=reverse,
        private=logged_in and params.get("private") == "1",
        filters=tuple(filters),
        only=tuple(only),
        page=page,
        published=params.get("published") != "0",
        default_direction=directions[0],
    )


def team_ids_for(user) -> list[int]:
    """The teams whose private rows ``user`` may see (their own; staff get no more, see docs)."""
    if not user.is_authenticated:
        return []
    return list(Membership.objects.filter(user=user).order_by("team_id").values_list("team_id", flat=True))


def select_rows(board: Board, spec: DirectionSpec, controls: Controls, team_ids: list[int]) -> QuerySet:
    """The board's rows for these controls (unordered: ranks and order come from ``ranked_rows``)."""
    rows = BoardRow.objects.filter(board=board)
    if controls.private and team_ids:
        rows = rows.filter(Q(is_public=True) | Q(team_id__in=team_ids))
    else:
        rows = rows.public()
    for param, chosen in controls.filters:
        for value in chosen:
            rows = rows.filter(tags__contains=f"|{param}={value}|")
        if param in controls.only:
            rows = rows.filter(tags__contains=f"|{param}:={','.join(chosen)}|")
    return rows


# --- ranks in the database ---------------------------------------------------------------------
#
# Rows store sort keys, not places (``leaderboard.boards.placement``): a public row's rank
# is DENSE_RANK() over its quality key and its position ROW_NUMBER() over (quality,
# tail), among public rows only, computed before the declaration filters so a filtered
# view shows the board's ranks. A private row (only its own team's members ask for it)
# gets the rank it would have among the public rows and its team's private rows, and
# 1 + the number of public rows above it, from two correlated counts. One query.

ROW_COLUMNS = (
    "id", "submission_id", "team_id", "team_name", "method_name", "submitted_at", "is_public", "is_baseline",
    "uses_external_data", "paper_url", "code_url", "declarations", "metadata", "value", "spread", "n_seeds",
    "tied_with_leader", "p_value", "low", "high", "reach", "metrics", "quality", "tail", "tags", "public_rank",
    "public_value",
)  # fmt: skip


def _row_fields() -> list[Field]:
    """The BoardRow fields of ROW_COLUMNS in order: each is a column of its own (``*_id`` by its attname)."""
    by_attname = {f.attname: f for f in BoardRow._meta.concrete_fields}
    return [by_attname[name] for name in ROW_COLUMNS]


def _sort_key_sql(alias: str, sort: str, vendor: str) -> tuple[str, list]:
    """SQL of the quality key a view is sorted by: the board's ranking, or one column's key."""
    if not sort or sort in TEXT_SORTS:
        return f"{alias}.quality", []
    if vendor == "postgresql":
        return f"({alias}.sort_keys ->> %s)", [sort]
    return f"json_extract({alias}.sort_keys, %s)", ['$."' + sort + '"']


def _contains_sql(vendor: str) -> str:
    return "strpos(x.tags, %s) > 0" if vendor == "postgresql" else "instr(x.tags, %s) > 0"


def ranked_sql(
    board: Board, controls: Controls, team_ids: list[int], vendor: str, prefix: int | None = None
) -> tuple[str, list]:
    """SELECT of the view's rows with ``rank``, ``position`` and ``sort_rank``, ordered (no LIMIT).

    ``prefix`` (the plain public view in the board's order only): rank just the first
    ``prefix`` rows. Their ranks and positions depend only on the rows before them, and
    an ORDER BY ... LIMIT inside lets every database read them off the rank index
    instead of sorting the whole board for one page.
    """
    table = BoardRow._meta.db_table
    column_sort = bool(controls.sort) and controls.sort not in TEXT_SORTS
    cols = ", ".join(f"r.{row_field.column}" for row_field in _row_fields())
    sk_r, sk_params = _sort_key_sql("r", controls.sort, vendor)
    public_sort_rank = (
        f"CASE WHEN substr({sk_r}, 1, 1) = '1' THEN NULL ELSE DENSE_RANK() OVER (ORDER BY {sk_r}) END"
        if column_sort
        else "NULL"
    )
    sql = (
        f"SELECT {cols}, CASE WHEN substr(r.quality, 1, 1) = '1' THEN NULL"
        " ELSE DENSE_RANK() OVER (ORDER BY r.quality) END AS rank,"
        " ROW_NUMBER() OVER (ORDER BY r.quality, r.tail) AS position,"
        f" {public_sort_rank} AS sort_rank, {sk_r} AS sk"
    )
    params: list = [*(sk_params * (3 if column_sort else 1)), board.pk]
    if prefix is not None:
        # "is_public = TRUE", never the bare column: SQLite uses boardrow_rank_idx only for an equality.
        sql += (
            f" FROM (SELECT * FROM {table} WHERE board_id = %s AND is_public = TRUE ORDER BY quality, tail LIMIT %s) r"
        )
        params.append(prefix)
    else:
        sql += f" FROM {table} r WHERE r.board_id = %s AND r.is_public = TRUE"
    if controls.private and team_ids:
        sk_q, _ = _sort_key_sql("q", controls.sort, vendor)

        def team_rank(key_r: str, key_q: str) -> str:
            return (
                f"CASE WHEN substr({key_r}, 1, 1) = '1' THEN NULL ELSE 1 + (SELECT COUNT(DISTINCT {key_q})"
                f" FROM {table} q WHERE q.board_id = r.board_id AND (q.is_public = TRUE OR q.team_id = r.team_id)"
                f" AND {key_q} < {key_r}) END"
            )

        holes = ", ".join(["%s"] * len(team_ids))
        sql += (
            f" UNION ALL SELECT {cols}, {team_rank('r.quality', 'q.quality')} AS rank,"
            f" 1 + (SELECT COUNT(*) FROM {table} p WHERE p.board_id = r.board_id AND p.is_public = TRUE"
            " AND (p.quality < r.quality OR (p.quality = r.quality AND p.tail < r.tail))) AS position,"
            f" {team_rank(sk_r, sk_q) if column_sort else 'NULL'} AS sort_rank, {sk_r} AS sk"
            f" FROM {table} r WHERE r.board_id = %s AND r.is_public = FALSE AND r.team_id IN ({holes})"
        )
        if column_sort:
            params += sk_params * 5
        else:
            params += sk_params
        params += [board.pk, *team_ids]
    where, where_params = [], []
    for param, chosen in controls.filters:
        for value in chosen:
            where.append(_contains_sql(vendor))
            where_params.append(f"|{param}={value}|")
        if param in controls.only:
            where.append(_contains_sql(vendor))
            where_params.append(f"|{param}:={','.join(chosen)}|")
    outer = f"SELECT * FROM ({sql}) x"
    if where:
        outer += " WHERE " + " AND ".join(where)
    return outer + " ORDER BY " + ", ".join(_order_sql(controls)), params + where_params


def _order_sql(controls: Controls) -> list[str]:
    sort, reverse = controls.sort, controls.reverse
    if sort in TEXT_SORTS:
        # Dates read newest first by default; names A to Z. Then the board's ranking.
        descending = (sort == "date") != reverse
        return [f"x.{TEXT_SORTS[sort]} {'DESC' if descending else 'ASC'}", "x.quality", "x.tail"]
    if reverse:
        # Worst first, but rows without a value stay last.
        return ["CASE WHEN substr(x.sk, 1, 1) = '1' THEN 1 ELSE 0 END", "x.sk DESC", "x.tail DESC"]
    return ["x.sk", "x.tail"]


def _converters(connection) -> list:
    """Per output column, Django's own converters of the model field (dates, UUIDs, JSON, booleans)."""
    out = []
    for row_field in _row_fields():
        col = row_field.get_col(BoardRow._meta.db_table)
        out.append((col, connection.ops.get_db_converters(col) + row_field.get_db_converters(connection)))
    return out


def _rows_from(cursor, connection, chunk: int) -> Iterator[dict]:
    names = [*(row_field.attname for row_field in _row_fields()), "rank", "position", "sort_rank"]
    converters = _converters(connection)
    n = len(ROW_COLUMNS)
    while True:
        batch = cursor.fetchmany(chunk)
        if not batch:
            return
        for record in batch:
            values = list(record[: n + 3])
            for i, (col, funcs) in enumerate(converters):
                for func in funcs:
                    values[i] = func(values[i], col, connection)
            yield dict(zip(names, values, strict=True))


def ranked_page(board: Board, controls: Controls, team_ids: list[int], offset: int, limit: int) -> list[dict]:
    """One page of ranked rows as dicts (one query)."""
    plain = not (controls.sort or controls.reverse or controls.filters or (controls.private and team_ids))
    # PostgreSQL 15 otherwise sorts the whole board under the window for one page (100+ ms
    # at 20,000 rows instead of 3): it does not carry the outer LIMIT into the window.
    prefix = offset + limit if plain else None
    sql, params = ranked_sql(board, controls, team_ids, connection.vendor, prefix)
    with connection.cursor() as cursor:
        cursor.execute(sql + " LIMIT %s OFFSET %s", [*params, limit, offset])
        return list(_rows_from(cursor, connection, limit or 1))


def ranked_rows(board: Board, controls: Controls, team_ids: list[int], chunk: int = 2000) -> Iterator[dict]:
    """Every ranked row of the view, streamed from a server-side cursor where the database has one."""
    sql, params = ranked_sql(board, controls, team_ids, connection.vendor)
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, params)
        yield from _rows_from(cursor, connection, chunk)


def row_count(board: Board, controls: Controls, rows: QuerySet) -> int:
    """The number of rows; the stored count when the view is the plain public one (no query)."""
    if not controls.private and not controls.filters:
        return board.n_rows
    return rows.count()
