"""The site's half of a benchmark kind: one ``SiteKind`` per scoring ``Kind``, found by ``site_kind(task)``.

``scoring.kinds`` says how a kind's files are read, checked and scored; its
``SiteKind`` says what the site does for it beyond the generic pages: board
views of its own, breakdown columns, extra charts and page sections, the
baselines and the demo truth ``load_benchmarks --demo`` loads. Each kind with
such extras has one module beside this one (``leaderboard/kinds/mudi.py``, ...)
that builds a ``SiteKind`` for its scoring ``Kind`` and calls ``register``. A
kind without a module (a new scoring kind, a test's toy) gets the defaults: one
board ranked by the task's metrics, the generic charts, a synthetic demo truth
in the task's own layout and no baselines. So a new scoring kind works on the
site with no site change, and its module, when it wants one, is the only file
that names it.

Where it sits: this module imports nothing of the site (scoring only), so the
challenges, submissions and boards apps all look a kind up here; the kind
modules sit above boards, whose charts and queries they build on, and are
imported by ``KindsConfig.ready`` (a test checks both directions).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from django.apps import apps

import scoring
from scoring.kinds import Kind, kind_of

if TYPE_CHECKING:
    from scoring.definitions import Task

# Rows per seed (or in all) of the default synthetic demo truth.
SYNTHETIC_ROWS = 500


@dataclass(frozen=True)
class BoardView:
    """One way a board ranks a task: the ranking metric, the view's label, its columns and tie-breaks.

    ``columns`` are result keys, the ranking metric first; ``labels`` gives a
    short header for some of them (the others are headed by the metric's name).
    """

    metric: str
    label: str
    columns: tuple[str, ...]
    tiebreak: tuple[tuple[str, bool], ...]  # (result key, higher is better)
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Breakdown:
    """A kind's breakdown of a score (groups of classes, contexts): result keys shown as columns, and for charts.

    The columns show only where board rows have them: a task scored without a
    grouping has none of these keys.
    """

    columns: tuple[str, ...] = ()
    chart_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class Section:
    """A block a kind adds to a page: a template, and what it reads as ``section`` (None: no block).

    On a board ``build(spec, rows)`` gets the view (``DirectionSpec``) and the
    page's presented rows; on a submission's page ``build(submission)``.
    """

    template: str
    build: Callable[..., object | None]


@dataclass
class Baseline:
    """A baseline entry a kind's builder makes from the test inputs: its method, description and predictions."""

    method_name: str
    description: str
    frame: pd.DataFrame

    def csv_bytes(self) -> bytes:
        buffer = io.StringIO()
        self.frame.to_csv(buffer, index=False, float_format="%.6g")
        return buffer.getvalue().encode()


@dataclass
class DemoTruth:
    """A truth file to import: where it is, whether it is synthetic, how to describe its source."""

    path: Path
    synthetic: bool
    source: str


# (task, test inputs, rng) -> baselines; the inputs are the truth without its labels (``scoring.test_inputs``).
BaselineBuilder = Callable[["Task", pd.DataFrame, np.random.Generator], list[Baseline]]
# (task, rng, target path) -> the truth written (at ``target``, or a real file found elsewhere).
DemoTruthWriter = Callable[["Task", np.random.Generator, Path], DemoTruth]
# A chart dict (``leaderboard.submissions.charts.chart``), or None when there is nothing to plot.
Chart = dict[str, Any]


def default_board_view(task: Task, direction: str) -> BoardView:
    """The primary metric, then every other headline metric; ties broken by the task's secondaries."""
    others = tuple(m.key for m in task.metrics if m.key != task.primary)
    tiebreak = tuple((key, task.higher_is_better(key)) for key in task.secondary)
    return BoardView(task.primary, task.dataset_name, (task.primary, *others), tiebreak)


def synthetic_demo_truth(task: Task, rng: np.random.Generator, target: Path) -> DemoTruth:
    """A synthetic truth in the task's own layout (``scoring.synthetic_truth``), written to ``target``."""
    scoring.synthetic_truth(task, rng, SYNTHETIC_ROWS).to_csv(target, index=False)
    return DemoTruth(target, True, "synthetic demo data (made-up keys, placeholder labels)")


def _no_breakdown(task: Task) -> Breakdown:
    return Breakdown()


def _no_keys(task: Task, direction: str) -> tuple[str, ...]:
    return ()


def _no_charts(task: Task, report: dict[str, Any]) -> list[Chart | None]:
    return []


def result_keys_definition(key: str) -> str:
    """Where docs/metrics.md defines a kind's result keys when its module names no closer heading."""
    return "result-keys"


@dataclass(frozen=True)
class SiteKind:
    """What the site does for one scoring ``Kind``; every hook has a default, so each is optional.

    Boards: ``board_view(task, direction)`` for each direction (the kind's
    settings, else "default"); ``breakdown(task)``; ``row_keys(task, direction)``,
    result keys a board row keeps for a section beside the table;
    ``board_charts``, charts built from the board's rows ``(spec, rows)``;
    ``breakdown_chart(spec, rows, chosen)``, the breakdown's chart on the board
    and on the compare page (``chosen``); ``board_sections``.
    A submission's page: ``submission_charts(task, report)``, charts after the
    generic ones (confusion, curves, calibration) and before the per-seed
    panel; ``submission_sections``.
    Demo data: ``baselines`` (None: the kind has none) and ``demo_truth``.
    Documentation: ``definition(key)``, the anchor of the heading of docs/metrics.md
    that defines a result key (board column headers link it).
    """

    kind: Kind
    board_view: Callable[[Task, str], BoardView] = default_board_view
    breakdown: Callable[[Task], Breakdown] = _no_breakdown
    row_keys: Callable[[Task, str], tuple[str, ...]] = _no_keys
    board_charts: tuple[Callable[[Any, list[dict[str, Any]]], Chart | None], ...] = ()
    breakdown_chart: Callable[[Any, list[dict[str, Any]], bool], Chart | None] | None = None
    board_sections: tuple[Section, ...] = ()
    submission_charts: Callable[[Task, dict[str, Any]], Sequence[Chart | None]] = _no_charts
    submission_sections: tuple[Section, ...] = ()
    baselines: BaselineBuilder | None = None
    demo_truth: DemoTruthWriter = synthetic_demo_truth
    definition: Callable[[str], str] = result_keys_definition


SITE_KINDS: dict[str, SiteKind] = {}


def shown_sections(sections: Sequence[Section], *args: object) -> list[dict[str, object]]:
    """``{"template", "section"}`` of each section with something to show, for the page to include in turn."""
    shown = []
    for section in sections:
        data = section.build(*args)
        if data is not None:
            shown.append({"template": section.template, "section": data})
    return shown


def register(site: SiteKind) -> SiteKind:
    """Add ``site`` for its scoring kind (replacing one of the same kind) and return it."""
    SITE_KINDS[site.kind.name] = site
    return site


def site_kind(task: Task | str) -> SiteKind:
    """The ``SiteKind`` of a task (or kind name): its kind module's, else the defaults.

    ``KeyError`` for a kind ``scoring`` does not know. Asked before Django has
    loaded the apps (so before the kind modules registered), it raises rather
    than answer with the defaults.
    """
    apps.check_apps_ready()
    kind = kind_of(task)
    return SITE_KINDS.get(kind.name) or SiteKind(kind)
