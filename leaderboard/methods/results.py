"""A method's results across the standing tasks, and the placements the suites rank.

Read from the standing boards' default views (public rows only), never from
prediction files: a row's place is the number of public ranked entries strictly
better than it (its quality key is smaller) among the ranked ones of its board.
Percentiles and normalised ranks follow ``scoring.suites``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Q
from django.utils.text import slugify

import scoring
from leaderboard.boards import cache
from leaderboard.boards.models import Board, BoardRow
from leaderboard.boards.placement import is_ranked
from leaderboard.boards.present import present_row
from leaderboard.boards.query import ROW_COLUMNS
from leaderboard.boards.spec import direction_spec
from leaderboard.challenges.models import Challenge
from scoring import suites


def method_slug(method_key: str) -> str:
    """The method's part of its page's URL: its key as a slug ("method" if nothing is left)."""
    return slugify(method_key) or "method"


def standing_boards(task_slugs: Iterable[str] | None = None) -> dict[str, Board]:
    """{task slug: the standing phase's default public board}, in registry order (one query)."""
    boards = Board.objects.public().filter(phase__challenge__kind=Challenge.Kind.STANDING).select_related("phase")
    if task_slugs is not None:
        boards = boards.filter(phase__task_slug__in=list(task_slugs))
    found = {b.phase.task_slug: b for b in boards if b.direction == direction_spec(b.phase.task).key}
    return {slug: found[slug] for slug in scoring.TASKS if slug in found}


@dataclass(frozen=True)
class TaskResult:
    task: scoring.registry.Task
    board: Board
    row: dict  # presented like a board row (``present_row``): primary, primary_spread, url, ...
    rank: int
    better: int
    n_ranked: int

    @property
    def metric_name(self) -> str:
        return self.task.metric(self.board.metric).name

    @property
    def percentile(self) -> float:
        return suites.percentile(self.better, self.n_ranked)


def _place(board: Board, quality: str) -> tuple[int, int, int]:
    """(dense rank, entries strictly better, ranked entries) of a quality key among the board's public rows."""
    public = BoardRow.objects.public().ranked().filter(board=board)
    found = public.aggregate(
        better=Count("id", filter=Q(quality__lt=quality)),
        n=Count("id"),
        distinct_better=Count("quality", filter=Q(quality__lt=quality), distinct=True),
    )
    return found["distinct_better"] + 1, found["better"], found["n"]


def method_results(team, slug: str) -> tuple[str, list[TaskResult]]:
    """The method's display name and its ranked results on every standing task it entered (public rows)."""
    boards = standing_boards()
    by_id = {b.pk: (task_slug, b) for task_slug, b in boards.items()}
    rows = BoardRow.objects.public().filter(board_id__in=list(by_id), team=team).order_by("-submitted_at")
    results = []
    name = ""
    for values in rows.values(*ROW_COLUMNS, "board_id", "method_key"):
        if method_slug(values["method_key"]) != slug or not is_ranked(values["quality"]):
            continue
        task_slug, board = by_id[values["board_id"]]
        name = name or values["method_name"]
        rank, better, n = _place(board, values["quality"])
        spec = direction_spec(board.phase.task)
        row = present_row(spec, {**values, "rank": rank, "position": better + 1, "sort_rank": None})
        results.append(TaskResult(scoring.get_task(task_slug), board, row, rank, better, n))
    order = {slug: i for i, slug in enumerate(scoring.TASKS)}
    results.sort(key=lambda r: order[r.task.slug])
    return name, results


@dataclass(frozen=True)
class MethodKey:
    team_id: int
    method_key: str

    def __str__(self) -> str:
        return f"{self.team_id}:{self.method_key}"


def placements(task_slugs: list[str]) -> tuple[dict[MethodKey, list[suites.Placement]], dict[MethodKey, dict]]:
    """Every method's placements on the given tasks' standing boards, and its name, team and task rows.

    Cached per version of those boards (a new score anywhere in the suite makes a new key).
    """
    boards = standing_boards(task_slugs)
    key = cache.key("suite", *(f"{slug}:{b.pk}:{b.version}" for slug, b in boards.items()))

    def build():
        found: dict[MethodKey, list[suites.Placement]] = {}
        info: dict[MethodKey, dict] = {}
        for task_slug, board in boards.items():
            ranked = list(
                BoardRow.objects.public()
                .ranked()
                .filter(board=board)
                .order_by("quality", "tail")
                .values("team_id", "team_name", "method_name", "method_key", "quality", "value", "submission_id")
            )
            n = len(ranked)
            better, rank = 0, 1
            for i, row in enumerate(ranked):
                if i and row["quality"] != ranked[i - 1]["quality"]:
                    better, rank = i, rank + 1
                method = MethodKey(row["team_id"], row["method_key"])
                if any(p.task == task_slug for p in found.get(method, ())):
                    continue  # one public row per team and method; a second would be the same method again
                found.setdefault(method, []).append(suites.Placement(task_slug, better, n))
                entry = info.setdefault(
                    method,
                    {"name": row["method_name"], "team": row["team_name"], "slug": method_slug(row["method_key"]),
                     "tasks": {}},
                )  # fmt: skip
                entry["tasks"][task_slug] = {"better": better, "rank": rank, "n": n, "value": row["value"]}
        return found, info

    return cache.get_or_compute(key, build)
