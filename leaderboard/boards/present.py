"""Turning board rows into what the page, the charts and the exports show.

Rows are read with ``.values()`` (plain dicts, no model instances) and
formatted here; the same ``row_fields`` feed the HTML table and both exports.
"""

from __future__ import annotations

from django.db.models import Q
from django.urls import reverse

import scoring
from leaderboard.boards import cache, charts, query
from leaderboard.boards.models import Board, BoardRow
from leaderboard.boards.placement import is_ranked
from leaderboard.boards.query import Controls, row_count, select_rows
from leaderboard.boards.spec import (
    TEXT_SORTS,
    DirectionSpec,
    breakdown_keys,
    declaration_badges,
    direction_spec,
    directions_for,
    is_verified,
)
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.formatting import interval_text, metric_text
from leaderboard.kinds.registry import site_kind
from scoring.replicates import PAIR_LEVEL

# Rows fed to the board charts (the best ones by the board's ranking).
CHART_ROWS = 200


def present_row(spec: DirectionSpec, row: dict, sort: str = "") -> dict:
    """Add the display fields of one row (cells, badges, shown rank) to its dict."""
    metrics = row["metrics"] or {}
    spread_key = spec.spread_key(spec.metric)
    row["url"] = reverse("submissions:detail", args=[row["submission_id"]])
    row["verified"] = is_verified(row.get("tags", ""))
    row["badges"] = declaration_badges(spec.task, row["declarations"] or {})
    if row["uses_external_data"]:
        row["badges"].append("external data")
    row["primary"] = metric_text(metrics.get(spec.metric))
    row["primary_spread"] = (
        metric_text(metrics.get(spread_key)) if spread_key and metrics.get(spread_key) is not None else ""
    )
    row["primary_interval"] = interval_text(row.get("low"), row.get("high"))
    # A ranked row beyond reach of the leader is told apart by the bound alone: its p is below the rule's level.
    row["beyond_reach"] = bool(
        row["rank"] is not None
        and not row["tied_with_leader"]
        and row["p_value"] is None
        and row.get("reach") is not None
    )
    row["pair_level"] = PAIR_LEVEL
    row["cells"] = [metric_text(metrics.get(c.key)) for c in spec.columns[1:]]
    row["class_cells"] = [metric_text(metrics.get(c.key)) for c in spec.class_columns]
    row["breakdown_cells"] = [metric_text(metrics.get(c.key)) for c in spec.breakdown_columns]
    # The leader's mark says "the leader" rather than "indistinguishable from the leader".
    row["is_leader"] = bool(row["is_public"] and row["position"] == 1 and row["rank"] is not None)
    # Under a column sort the rank shown is the rank by that column.
    row["shown_rank"] = row["sort_rank"] if sort and sort not in TEXT_SORTS else row["rank"]
    return row


def has_breakdowns(spec: DirectionSpec, rows: list[dict]) -> bool:
    """Whether any shown row has a breakdown value: without a grouping (or contexts) the columns are left out."""
    keys = breakdown_keys(spec)
    return any(key in (row.get("metrics") or {}) for row in rows for key in keys)


def chart_rows(board: Board) -> list[dict]:
    """The best public rows of a board, as plain dicts (one query)."""
    rows = BoardRow.objects.public().ranked().filter(board=board).order_by("quality", "tail")
    return [dict(row) for row in rows.values("method_name", "team_name", "metrics", "submission_id")[:CHART_ROWS]]


def sibling_task(task):
    """The other split of an ImDrug dataset with a random and a standard split, or None."""
    return scoring.split_sibling(task)


def split_pairs(random_rows: list[dict], standard_rows: list[dict], metric: str) -> list[tuple]:
    """(method (team), random value, standard value) for methods present on both splits, best random first."""
    standard = {(r["team_name"], r["method_name"].casefold()): r for r in standard_rows}
    pairs = []
    for r in random_rows:
        other = standard.get((r["team_name"], r["method_name"].casefold()))
        if other is not None:
            pairs.append((charts.label(r), r["metrics"].get(metric), other["metrics"].get(metric)))
    return pairs[: charts.TOP_METHODS * 2]


def follows_view(controls: Controls | None) -> bool:
    """Whether the charts must follow the table's rows (a filter, a sort or private rows), not the default view."""
    return controls is not None and bool(controls.filters or controls.sort or controls.reverse or controls.private)


def view_chart_rows(board: Board, spec: DirectionSpec, controls: Controls, team_ids: list[int]) -> list[dict]:
    """The rows of the filtered, sorted table (every page), as the charts read them."""
    rows = query.ranked_page(board, controls, team_ids, 0, CHART_ROWS)
    fields = ("method_name", "team_name", "metrics", "submission_id")
    return [{k: r[k] for k in fields} for r in rows if r["rank"] is not None]


def board_charts(
    board: Board,
    spec: DirectionSpec,
    sibling: Board | None = None,
    controls: Controls | None = None,
    team_ids: list[int] | None = None,
) -> list[dict]:
    """Every chart of a board view, cached per board (and sibling board) version.

    With ``controls`` that filter, sort or add private rows, the charts plot the rows
    of that view in its order (the table's rows), not the board's best public rows.
    """
    followed = controls if follows_view(controls) else None
    parts = (followed.cache_parts()[:-1], followed.private and tuple(team_ids or ())) if followed is not None else ()
    key = cache.key("charts", board.pk, board.version, sibling.version if sibling else "", *parts)

    def build() -> list[dict]:
        rows = view_chart_rows(board, spec, followed, team_ids or []) if followed is not None else chart_rows(board)
        metric_name = spec.task.metric(spec.metric).name
        setting = f" ({spec.label.lower()})" if len(directions_for(spec.task)) > 1 else ""
        site = site_kind(spec.task)
        found = [charts.class_f1_chart(spec.class_chart_keys, rows, setting)]
        found += [build_chart(spec, rows) for build_chart in site.board_charts]
        if site.breakdown_chart is not None:
            found.append(site.breakdown_chart(spec, rows, False))
        if sibling is not None:
            other_rows = chart_rows(sibling)
            random_rows, standard_rows = (rows, other_rows) if spec.task.split == "random" else (other_rows, rows)
            found.append(charts.split_comparison(metric_name, split_pairs(random_rows, standard_rows, spec.metric)))
        found.append(charts.seed_strip(metric_name, spec.seed_keys(spec.metric), rows))
        found.append(charts.progression_chart(metric_name, board.progression))
        return [c for c in found if c]

    return cache.get_or_compute(key, build)


def warm(board: Board) -> None:
    """Fill the cache for a board's default view: charts and first page (the worker runs this; exports stream)."""
    spec = direction_spec(board.phase.task, board.direction)
    sibling = None
    other = sibling_task(spec.task)
    if other is not None and board.phase.challenge.kind == "standing":  # the views pair standing boards only
        sibling = (
            Board.objects.public()
            .filter(phase__task_slug=other.slug, phase__challenge__kind="standing", direction=direction_spec(other).key)
            .first()
        )
    board_charts(board, spec, sibling)
    controls = Controls(direction=spec.key, default_direction=directions_for(spec.task)[0])
    page_rows(board, spec, controls, [])


def page_rows(board: Board | None, spec: DirectionSpec, controls: Controls, team_ids: list[int]) -> tuple[list, int]:
    """One page of presented rows and the total row count, cached per board version and controls."""
    if board is None:
        return [], 0
    key = cache.key("page", board.pk, board.version, controls.cache_parts(), controls.private and tuple(team_ids))

    def build() -> tuple[list, int]:
        total = row_count(board, controls, select_rows(board, spec, controls, team_ids))
        start = (controls.page - 1) * query.PAGE_SIZE
        page = query.ranked_page(board, controls, team_ids, start, query.PAGE_SIZE)
        return [present_row(spec, row, controls.sort) for row in page], total

    return cache.get_or_compute(key, build)


# Rows per split on the dataset page.
DATASET_ROWS = 50


def dataset_breakdown(tasks: list) -> dict:
    """Context of /datasets/<family>/<dataset>/: each split's best rows side by side (one query per split)."""
    slugs = [t.slug for t in tasks]
    phases = {p.task_slug: p for p in Phase.objects.standing().filter(task_slug__in=slugs)}
    boards = {
        b.phase.task_slug: b
        for b in Board.objects.public()
        .select_related("phase")
        .filter(phase__task_slug__in=slugs, phase__challenge__kind=Challenge.Kind.STANDING)
        if b.direction == direction_spec(b.phase.task).key
    }
    splits = []
    methods: dict[tuple[str, str], dict] = {}
    for task in tasks:
        spec = direction_spec(task)
        board = boards.get(task.slug)
        rows = []
        if board is not None:
            controls = Controls(direction=board.direction, default_direction=directions_for(task)[0])
            rows = [present_row(spec, row) for row in query.ranked_page(board, controls, [], 0, DATASET_ROWS)]
        splits.append({"task": task, "spec": spec, "board": board, "rows": rows, "phase": phases.get(task.slug)})
        for row in rows:
            entry = methods.setdefault(
                (row["team_name"], row["method_name"].casefold()),
                {"method_name": row["method_name"], "team_name": row["team_name"], "values": {}},
            )
            entry["values"][task.slug] = row
    breakdown = []
    for entry in methods.values():
        entry["cells"] = [entry["values"].get(s["task"].slug) for s in splits]
        breakdown.append(entry)
    chart = None
    by_split = {s["task"].split: s for s in splits}
    if "random" in by_split and "standard" in by_split:
        metric = by_split["random"]["spec"].metric
        pairs = split_pairs(by_split["random"]["rows"], by_split["standard"]["rows"], metric)
        chart = charts.split_comparison(by_split["random"]["spec"].columns[0].label, pairs)
    first = tasks[0]
    return {
        "family": scoring.FAMILIES[first.family],
        "dataset_name": first.dataset_name.split(" (")[0],
        "dataset": first.dataset,
        "splits": splits,
        "breakdown": breakdown,
        "charts": [chart] if chart else [],
        "any_synthetic": any(s["phase"] is not None and s["phase"].truth_is_synthetic for s in splits),
    }


def board_standing(submission) -> dict | None:
    """Where a scored submission stands on its task's default board: rank N of M and a link to its row.

    None when the submission is not a row of that board (yet, or because another
    submission of the same team and method represents it).
    """
    spec = direction_spec(submission.phase.task)
    row = (
        BoardRow.objects.filter(
            board__phase_id=submission.phase_id,
            board__direction=spec.key,
            board__part=Board.Part.PUBLIC,
            submission_id=submission.pk,
        )
        .select_related("board")
        .only("quality", "tail", "is_public", "team_id", "board__n_rows", "board__id")
        .first()
    )
    if row is None:
        return None
    board = row.board
    public = BoardRow.objects.public().filter(board=board)
    before = public.filter(Q(quality__lt=row.quality) | Q(quality=row.quality, tail__lt=row.tail)).count()
    page = before // query.PAGE_SIZE + 1
    params = [] if row.is_public else ["private=1"]
    if page > 1:
        params.append(f"page={page}")
    url = submission.phase.get_absolute_url() + (f"?{'&'.join(params)}" if params else "")
    n_ranked = public.ranked().count()
    # The rank its team sees: 1 + the distinct better keys among public rows and the team's own.
    rank = None
    if is_ranked(row.quality):
        seen = BoardRow.objects.filter(board=board).filter(Q(is_public=True) | Q(team_id=row.team_id))
        rank = 1 + seen.filter(quality__lt=row.quality).values("quality").distinct().count()
    return {
        "rank": rank,
        "n_ranked": n_ranked + (0 if row.is_public else 1),
        "is_public": row.is_public,
        "metric_name": spec.task.metric(spec.metric).name,
        "url": f"{url}#row-{submission.pk}",
    }
