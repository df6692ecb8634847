"""What a board shows for a task: its views, ranking metric, columns and filters.

Pure functions of a ``scoring.Task``; no database. The recompute, the pages and
the exports all read the same ``DirectionSpec`` so the three can never disagree on
which columns exist.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

import scoring
from leaderboard.kinds.registry import site_kind
from scoring import keys as result_keys
from scoring import submission_fields
from scoring.replicates import uses_bootstrap
from scoring.submission_fields import SubmissionField

DEFAULT_DIRECTION = "default"
# How a board marks entries indistinguishable from the leader.
Significance = Literal["bootstrap", "seeds"]
# Per-class F1 columns in the table up to this many classes; larger sets only in a chart.
MAX_CLASS_COLUMNS = 10
# Columns sortable by a non-metric field, and the SQL ordering they use.
TEXT_SORTS = {"team": "team_name", "method": "method_name", "date": "submitted_at"}


@dataclass(frozen=True)
class Column:
    key: str  # a scoring result key
    label: str
    higher_is_better: bool
    description: str


@dataclass(frozen=True)
class DirectionSpec:
    """One way of ranking a task's submissions."""

    task: scoring.registry.Task
    key: str  # "default", or one of the kind's settings (``Kind.settings``)
    label: str
    metric: str
    higher_is_better: bool
    tiebreak: tuple[tuple[str, bool], ...]
    significance: Significance  # "bootstrap" (single seed) or "seeds"
    columns: tuple[Column, ...]  # metric columns, the ranking metric first
    class_columns: tuple[Column, ...]  # per-class F1 shown in the table
    class_chart_keys: tuple[tuple[str, str], ...]  # (class name, key) of every class, for charts
    # Breakdown columns of the kind (``SiteKind.breakdown``); shown only where rows have them: a task
    # scored without a grouping has none of these keys.
    breakdown_columns: tuple[Column, ...] = ()
    breakdown_chart_keys: tuple[str, ...] = ()  # further breakdown keys kept for the charts
    # Values a row keeps for a section beside the table (``SiteKind.row_keys``), not columns.
    extra_keys: tuple[str, ...] = ()

    @property
    def spread(self) -> str | None:
        return self.task.spread

    def spread_key(self, key: str) -> str | None:
        return result_keys.spread_key(key, self.task.spread) if self.task.spread else None

    def seed_keys(self, key: str) -> list[tuple[int, str]]:
        """(seed, result key) of the per-seed values of ``key`` (empty for single-seed tasks)."""
        if len(self.task.seeds) < 2:
            return []
        return [(seed, result_keys.seed_key(seed, key)) for seed in self.task.seeds]

    @property
    def sortable(self) -> tuple[Column, ...]:
        return self.columns + self.class_columns + self.breakdown_columns

    def column(self, key: str) -> Column | None:
        for column in self.sortable:
            if column.key == key:
                return column
        return None

    def stored_keys(self) -> list[str]:
        """Every result key a board row keeps (columns, spreads, per-seed primary, class F1s)."""
        keys: list[str] = []
        for column in self.sortable:
            keys.append(column.key)
            spread = self.spread_key(column.key)
            if spread:
                keys.append(spread)
        keys += [key for _, key in self.class_chart_keys]
        keys += [key for _, key in self.seed_keys(self.metric)]
        for key in self.breakdown_chart_keys:
            keys += [key, self.spread_key(key) or key]
        keys += list(self.extra_keys)
        return list(dict.fromkeys(keys))

    def ranking_task(self) -> scoring.registry.Task:
        """The task with this view's metric as primary (what the paired bootstrap tests)."""
        if self.metric == self.task.primary:
            return self.task
        return replace(self.task, primary=self.metric, secondary=tuple(key for key, _ in self.tiebreak))


def directions_for(task: scoring.registry.Task) -> tuple[str, ...]:
    """The view keys of a task, default first: one per setting of its kind, else just the default."""
    return task.kind_def.settings or (DEFAULT_DIRECTION,)


def _column(task: scoring.registry.Task, key: str, label: str | None = None) -> Column:
    definition = task.metric(key)
    return Column(key, label or definition.name, definition.higher_is_better, definition.description)


def breakdown_keys(spec: DirectionSpec) -> tuple[str, ...]:
    """Every breakdown key of a view (columns first), to test whether rows have any."""
    return tuple(c.key for c in spec.breakdown_columns) + spec.breakdown_chart_keys


def direction_spec(task: scoring.registry.Task, direction: str | None = None) -> DirectionSpec:
    """The spec of ``view`` (None: the task's default view); ``KeyError`` for an unknown view."""
    directions = directions_for(task)
    direction = direction or directions[0]
    if direction not in directions:
        raise KeyError(f"task {task.slug} has no direction {direction!r}")
    site = site_kind(task)
    view = site.board_view(task, direction)
    class_keys = task.kind_def.class_f1_keys(task, direction)
    class_columns: tuple[Column, ...] = ()
    if len(class_keys) <= MAX_CLASS_COLUMNS:
        class_columns = tuple(Column(key, f"{name} F1", True, f"F1 of class {name}") for name, key in class_keys)
    breakdown = site.breakdown(task)
    return DirectionSpec(
        task=task,
        key=direction,
        label=view.label,
        metric=view.metric,
        higher_is_better=task.higher_is_better(view.metric),
        tiebreak=view.tiebreak,
        significance=significance_for(task),
        columns=tuple(_column(task, key, view.labels.get(key)) for key in view.columns),
        class_columns=class_columns,
        class_chart_keys=class_keys,
        breakdown_columns=tuple(_column(task, key) for key in breakdown.columns),
        breakdown_chart_keys=breakdown.chart_keys,
        extra_keys=site.row_keys(task, direction),
    )


def significance_for(task: scoring.registry.Task) -> Significance:
    """'seeds' when results come with a spread over several seeds, else 'bootstrap'."""
    return "bootstrap" if uses_bootstrap(task) else "seeds"


# --- declaration filters ------------------------------------------------------------------


@dataclass(frozen=True)
class Filter:
    """One declaration filter control: ``param`` in the query string, its allowed values."""

    param: str
    label: str
    choices: tuple[str, ...] | None  # multi-choice declaration; None for yes/no
    help: str
    # One value per entry (the model family): a select of ``choices`` named by ``labels``, not checkboxes.
    single: bool = False
    labels: tuple[str, ...] = ()


def field_filters(fields: Iterable[SubmissionField] = submission_fields.FIELDS) -> list[Filter]:
    """The filters of the declared method fields that boards filter on (``SubmissionField.board_filter``)."""
    filters = []
    for f in fields:
        if f.board_filter is None:
            continue
        board = f.board_filter
        if f.kind == "flag":
            filters.append(Filter(board.param, board.label, None, board.help))
        else:  # one value per entry: a select of the choices by name
            labels = tuple(c.label for c in f.choices)
            filters.append(Filter(board.param, board.label, f.values, board.help, single=True, labels=labels))
    return filters


def filters_for(task: scoring.registry.Task) -> tuple[Filter, ...]:
    """The task's declarations, the declared method fields' filters, then the platform's "baseline" and "verified"."""
    filters = [Filter(d.key, d.label, d.choices, d.help) for d in task.declarations]
    filters += field_filters()
    filters.append(Filter("baseline", "Baseline", None, "Reference methods entered by the organizers."))
    filters.append(Filter("verified", "Verified", None, "Reproduced by the site's staff from the linked code."))
    return tuple(filters)


def _yes_no(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = str(value).strip().lower()
    if text in ("yes", "true", "1", "on"):
        return "yes"
    if text in ("no", "false", "0", "off"):
        return "no"
    return "unknown"


def field_tags(columns: dict[str, Any], fields: Iterable[SubmissionField] = submission_fields.FIELDS) -> list[str]:
    """The tags of the filtered method fields from a submission's columns: ``param=yes|no`` or ``param=<value>``."""
    tags = []
    for f in fields:
        if f.board_filter is None:
            continue
        value = submission_fields.shown_value(f, columns.get(f.column_name))
        if f.kind == "flag":
            tags.append(f"{f.board_filter.param}={submission_fields.YES if value else submission_fields.NO}")
        else:
            tags.append(f"{f.board_filter.param}={value or 'unknown'}")
    return tags


def declaration_tags(
    task: scoring.registry.Task,
    declarations: dict,
    *,
    is_baseline: bool,
    is_verified: bool = False,
    **columns: Any,
) -> str:
    """``|key=value|`` tags for substring filtering.

    Multi-choice declarations give one tag per chosen value plus ``key:=a,b``
    (the exact sorted set, for "only these" filters); yes/no ones give
    ``key=yes``, ``key=no`` or ``key=unknown`` when the submitter did not say.
    ``columns`` are the submission's method-field columns (``field_tags``).
    """
    tags = []
    for d in task.declarations:
        value = declarations.get(d.key)
        if d.choices is not None:
            chosen = value if isinstance(value, (list, tuple)) else ([value] if value else [])
            chosen = sorted({str(c).strip().lower() for c in chosen if str(c).strip()})
            tags += [f"{d.key}={c}" for c in chosen]
            tags.append(f"{d.key}:={','.join(chosen)}")
        else:
            tags.append(f"{d.key}={_yes_no(value) if value is not None else 'unknown'}")
    tags += field_tags(columns)
    tags.append(f"baseline={'yes' if is_baseline else 'no'}")
    tags.append(f"verified={'yes' if is_verified else 'no'}")
    return "|" + "|".join(tags) + "|"


def is_verified(tags: str) -> bool:
    """Whether a row's tags carry the staff's verified badge."""
    return "|verified=yes|" in (tags or "")


def declaration_badges(task: scoring.registry.Task, declarations: dict) -> list[str]:
    """Short texts for the badges in a row: "graph", "text", "context features: no"."""
    badges = []
    for d in task.declarations:
        value = declarations.get(d.key)
        if d.choices is not None:
            chosen = value if isinstance(value, (list, tuple)) else ([value] if value else [])
            badges += [str(c) for c in chosen]
        elif value is not None:
            badges.append(f"{d.label}: {_yes_no(value)}")
    return badges
