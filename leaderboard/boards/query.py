"""The controls of a board view, read from the query string, and the rows they select.

Every control lives in the query string, so a view is a permalink and works
without JavaScript:

- ``direction=aware|agnostic`` (MUDI only): which view (ranking metric) to show;
- ``sort=<column>``, ``sort=-<column>`` to reverse: a metric key (best first,
  missing values last), or ``team``, ``method``, ``date`` (newest first);
- ``private=1`` (logged-in users): add the private rows of the user's teams;
- ``<declaration>=<choice>`` (repeatable) and ``<declaration>_only=1`` for
  multi-choice declarations ("graph-only": ``modalities=graph&modalities_only=1``),
  ``<declaration>=yes|no`` for yes/no ones, ``external=yes|no``, ``baseline=yes|no``,
  ``verified=yes|no`` (staff reproduced the entry; read live from the submission);
- ``cols=<group>`` (repeatable): which groups of columns the table shows
  (``COLUMN_GROUPS``; rank, method and the ranking metric always show; none given = all);
- ``published=0``: hide the published results shown beside the rows (on by default);
- ``page=N``.

Unknown or invalid values are ignored (the default applies), never an error.
The page, the CSV and the JSON export all go through ``select_rows``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.db.models import F, IntegerField, Q, QuerySet
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from leaderboard.accounts.models import Membership
from leaderboard.boards.models import Board, BoardRow
from leaderboard.boards.spec import TEXT_SORTS, VERIFIED_FILTER, ViewSpec, filters_for, view_spec, views_for

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
    view: str
    sort: str = ""  # "" = the board's ranking
    reverse: bool = False
    private: bool = False
    filters: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (param, values)
    only: tuple[str, ...] = ()  # multi-choice params filtered to exactly the chosen values
    page: int = 1
    # Published results (``leaderboard.literature``) beside the rows; ``published=0`` hides them.
    published: bool = True
    default_view: str = field(default="default", compare=False)
    # Column groups shown; () = every group. Only the HTML table reads it (rows and exports do not change).
    columns: tuple[str, ...] = field(default=(), compare=False)

    def shows(self, group: str) -> bool:
        return not self.columns or group in self.columns

    @property
    def is_filtered(self) -> bool:
        return bool(self.filters)

    def params(self, **changes) -> list[tuple[str, str]]:
        """The query string pairs of this view, with ``changes`` applied (page resets unless given)."""
        values = {
            "view": self.view,
            "sort": self.sort_param(self.sort, self.reverse),
            "private": self.private,
            "filters": self.filters,
            "only": self.only,
            "page": 1,
            "columns": self.columns,
            "published": self.published,
        }
        values.update(changes)
        pairs: list[tuple[str, str]] = []
        if values["view"] != self.default_view:
            pairs.append(("direction", values["view"]))
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
        if values["page"] and values["page"] != 1:
            pairs.append(("page", str(values["page"])))
        return pairs

    def query(self, **changes) -> str:
        """``?a=b&...`` (or "" for the default view)."""
        pairs = self.params(**changes)
        return "?" + urlencode(pairs) if pairs else ""

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
        return (self.view, self.sort, self.reverse, self.filters, self.only, self.published, self.page)


def parse_controls(task, params, *, logged_in: bool) -> Controls:
    """Read the controls from a QueryDict; anything unknown falls back to the default."""
    views = views_for(task)
    view = params.get("direction", "") if "direction" in params else views[0]
    if view not in views:
        view = views[0]
    spec = view_spec(task, view)
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
        if f.choices is not None:
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
        view=view,
        sort=sort,
        reverse=reverse,
        private=logged_in and params.get("private") == "1",
        filters=tuple(filters),
        only=tuple(only),
        page=page,
        published=params.get("published") != "0",
        default_view=views[0],
    )


def team_ids_for(user) -> list[int]:
    """The teams whose private rows ``user`` may see (their own; staff get no more, see docs)."""
    if not user.is_authenticated:
        return []
    return list(Membership.objects.filter(user=user).order_by("team_id").values_list("team_id", flat=True))


def _json_int(key: str, field_name: str) -> Cast:
    return Cast(KeyTextTransform(key, field_name), IntegerField())


def select_rows(board: Board, spec: ViewSpec, controls: Controls, team_ids: list[int]) -> QuerySet:
    """The board's rows for these controls, ordered (not paginated)."""
    rows = BoardRow.objects.filter(board=board)
    if controls.private and team_ids:
        rows = rows.filter(Q(is_public=True) | Q(team_id__in=team_ids))
    else:
        rows = rows.filter(is_public=True)
    for param, chosen in controls.filters:
        if param == VERIFIED_FILTER:
            rows = rows.filter(submission__is_verified=chosen[0] == "yes")
            continue
        for value in chosen:
            rows = rows.filter(tags__contains=f"|{param}={value}|")
        if param in controls.only:
            rows = rows.filter(tags__contains=f"|{param}:={','.join(chosen)}|")
    return rows.order_by(*ordering(spec, controls))


def ordering(spec: ViewSpec, controls: Controls) -> list:
    """ORDER BY terms. Private rows sit just above the public row whose place they would take."""
    sort, reverse = controls.sort, controls.reverse
    if sort in TEXT_SORTS:
        column = F(TEXT_SORTS[sort])
        # Dates read newest first by default; names A to Z.
        descending = (sort == "date") != reverse
        return [column.desc() if descending else column.asc(), "position", "is_public", "id"]
    if sort:
        rank, position = _json_int(sort, "ranks"), _json_int(sort, "positions")
    else:
        rank, position = F("rank"), F("position")
    if reverse:
        # Worst first, but rows without a value stay last.
        return [rank.desc(nulls_last=True), position.desc(), "-is_public", "id"]
    return [position.asc(), "is_public", "id"]


def row_count(board: Board, controls: Controls, rows: QuerySet) -> int:
    """The number of rows; the stored count when the view is the plain public one (no query)."""
    if not controls.private and not controls.filters:
        return board.n_rows
    return rows.count()
