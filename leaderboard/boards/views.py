"""Leaderboard pages: /benchmarks/, /tasks/<slug>/ and its exports, /datasets/..., /compare/.

Everything here reads precomputed rows (``leaderboard.boards.recompute``);
nothing ranks per request, and the compare page's paired tests read stored
statistics (``leaderboard.boards.verdicts``), never a prediction file.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import uuid

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

import scoring
from leaderboard import docpages
from leaderboard.boards import cache, cite, exports, feeds, matrix, paper_tables, pinned, published, query
from leaderboard.boards.charts import TOP_METHODS, shakeup_chart
from leaderboard.boards.compare import build_comparison
from leaderboard.boards.models import Board
from leaderboard.boards.present import (
    board_charts,
    dataset_breakdown,
    follows_view,
    has_breakdowns,
    page_rows,
    sibling_task,
)
from leaderboard.boards.query import Controls, parse_controls, team_ids_for
from leaderboard.boards.spec import (
    DirectionSpec,
    direction_spec,
    directions_for,
    filters_for,
)
from leaderboard.boards.verdicts import rule_text
from leaderboard.challenges.access import get_challenge_for
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.formatting import MISSING
from leaderboard.kinds.registry import shown_sections, site_kind
from leaderboard.links import absolute_url
from scoring.definitions import Task


def _task_or_404(slug: str) -> Task:
    try:
        return scoring.get_task(slug)
    except KeyError:
        raise Http404("No such task.")


def _board_and_phase(task, direction: str) -> tuple[Board | None, Phase]:
    """The standing phase's board for ``view`` (None before the first score); 404 without a phase."""
    board = (
        Board.objects.public()
        .select_related("phase")
        .filter(phase__task_slug=task.slug, phase__challenge__kind=Challenge.Kind.STANDING, direction=direction)
        .first()
    )
    if board is not None:
        return board, board.phase
    phase = Phase.objects.standing().filter(task_slug=task.slug).first()
    if phase is None:
        raise Http404("This task has no leaderboard yet.")
    return None, phase


def _sibling_board(task) -> Board | None:
    other = sibling_task(task)
    if other is None:
        return None
    return (
        Board.objects.public()
        .filter(phase__task_slug=other.slug, phase__challenge__kind=Challenge.Kind.STANDING)
        .only("id", "version")
        .first()
    )


def _dataset_tasks(task) -> list:
    return [t for t in scoring.TASKS.values() if t.family == task.family and t.dataset == task.dataset]


# --- /benchmarks/ ----------------------------------------------------------------------------


def _benchmark_summary() -> list[dict]:
    """Families -> datasets -> tasks with submission counts, best score and last activity."""
    stats = {}
    for row in (
        Board.objects.public()
        .filter(phase__challenge__kind=Challenge.Kind.STANDING)
        .values("phase__task_slug", "direction", "n_submissions", "best_value", "last_activity")
    ):
        stats[(row["phase__task_slug"], row["direction"])] = row
    with_phase = set(Phase.objects.standing().values_list("task_slug", flat=True))
    synthetic = Phase.objects.standing().synthetic_task_slugs()
    families = []
    for family in scoring.FAMILIES.values():
        datasets: dict[str, dict] = {}
        for task in scoring.TASKS.values():
            if task.family != family.slug:
                continue
            spec = direction_spec(task)
            row = stats.get((task.slug, spec.key), {})
            dataset = datasets.setdefault(
                task.dataset, {"name": task.dataset_name, "slug": task.dataset, "tasks": [], "several": False}
            )
            dataset["tasks"].append(
                {
                    "slug": task.slug,
                    "split": task.split,
                    "name": task.dataset_name,
                    # The metric's full name, as the home page writes it (the board's short header is for columns).
                    "metric": task.metric(spec.metric).name,
                    "has_board": task.slug in with_phase,
                    "synthetic": task.slug in synthetic,
                    "n_submissions": row.get("n_submissions", 0),
                    "best_value": row.get("best_value"),
                    "last_activity": row.get("last_activity"),
                }
            )
        for dataset in datasets.values():
            dataset["several"] = len(dataset["tasks"]) > 1
        families.append({"family": family, "datasets": list(datasets.values())})
    return families


def _any_synthetic(families: list[dict]) -> bool:
    return any(t["synthetic"] for f in families for d in f["datasets"] for t in d["tasks"])


@require_GET
def benchmarks(request: HttpRequest) -> HttpResponse:
    summary = cache.get_or_compute(cache.SUMMARY_KEY, _benchmark_summary)
    return render(request, "boards/benchmarks.html", {"families": summary, "any_synthetic": _any_synthetic(summary)})


# --- /tasks/<slug>/ ---------------------------------------------------------------------------


def _aria_sort(state: str, ascending_first: bool) -> str:
    """The ``aria-sort`` value of a header: the order of its values, "" when it is not the sort."""
    if not state:
        return ""
    ascending = ascending_first != (state == "reversed")
    return "ascending" if ascending else "descending"


def _headers(spec: DirectionSpec, controls: Controls) -> dict:
    def header(key: str, label: str, title: str = "", ascending_first: bool = True) -> dict:
        state = controls.sorted_by(key)
        return {
            "key": key,
            "label": label,
            "title": title,
            "query": controls.sort_query(key),
            "state": state,
            "aria_sort": _aria_sort(state, ascending_first),
        }

    definition = site_kind(spec.task).definition

    def metric(c) -> dict:
        # Best first: a higher-is-better column sorts descending.
        h = header(c.key, c.label, c.description, ascending_first=not c.higher_is_better)
        spread = c.key.endswith(("/std", "/stderr"))
        h["definition"] = docpages.metric_url("spreads-over-seeds" if spread else definition(c.key))
        return h

    return {
        "rank": header("rank", "Rank", "the board's ranking"),
        "method": header("method", "Method"),
        "team": header("team", "Team"),
        "date": header("date", "Date", "newest first", ascending_first=False),
        "primary": metric(spec.columns[0]),
        "columns": [metric(c) for c in spec.columns[1:]],
        "classes": [metric(c) for c in spec.class_columns],
        "breakdowns": [metric(c) for c in spec.breakdown_columns],
    }


def _filter_state(task, controls: Controls) -> list[dict]:
    chosen = dict(controls.filters)
    state = []
    for f in filters_for(task):
        values = chosen.get(f.param, ())
        state.append(
            {
                "param": f.param,
                "label": f.label,
                "help": f.help,
                "choices": [{"value": c, "checked": c in values} for c in f.choices]
                if f.choices and not f.single
                else None,
                "options": [{"value": c, "label": label} for c, label in zip(f.choices or (), f.labels, strict=True)]
                if f.single
                else None,
                "only": f.param in controls.only,
                "value": values[0] if values and (f.choices is None or f.single) else "",
            }
        )
    return state


def _sort_label(spec: DirectionSpec, sort: str) -> str:
    try:
        return spec.task.metric(sort).name
    except KeyError:  # team, method, date
        return sort


@dataclasses.dataclass
class BoardTarget:
    """Which board a page or export shows, and the links of its page: a standing task's or an organized phase's."""

    task: Task
    phase: Phase
    board: Board | None
    spec: DirectionSpec
    controls: Controls
    board_url: str
    csv_url: str
    json_url: str
    challenge: Challenge | None = None
    is_organizer: bool = False
    # The public board of a "hidden until the end" phase before its reveal, for anyone but organizers.
    hidden: bool = False
    # A view pinned to a moment (``?as_of=``), read from the board's history.
    as_of: datetime.datetime | None = None

    @property
    def is_private(self) -> bool:
        return self.board is not None and self.board.part == Board.Part.PRIVATE


def _standing_target(request: HttpRequest, slug: str) -> BoardTarget:
    task = _task_or_404(slug)
    controls = parse_controls(task, request.GET, logged_in=request.user.is_authenticated)
    spec = direction_spec(task, controls.direction)
    board, phase = _board_and_phase(task, spec.key)
    return BoardTarget(
        task=task,
        phase=phase,
        board=board,
        spec=spec,
        controls=controls,
        board_url=reverse("boards:task", args=[task.slug]),
        csv_url=reverse("boards:csv", args=[task.slug]),
        json_url=reverse("boards:json", args=[task.slug]),
    )


def _phase_target(request: HttpRequest, slug: str, phase_slug: str, part: str) -> BoardTarget:
    """An organized phase's public or (after the reveal) private board; 404 for what the viewer may not see."""
    access = get_challenge_for(request.user, slug)
    phase = next((p for p in access.challenge.phases.all() if p.slug == phase_slug), None)
    if phase is None:
        raise Http404("No such phase.")
    phase.challenge = access.challenge
    if part == Board.Part.PRIVATE and not (phase.is_revealed and phase.split_spec is not None):
        raise Http404("The private board of this phase is published at its reveal.")
    task = phase.task
    controls = parse_controls(task, request.GET, logged_in=request.user.is_authenticated)
    if part == Board.Part.PRIVATE:
        controls = dataclasses.replace(controls, private=False)  # every row of a private board is shown
    spec = direction_spec(task, controls.direction)
    hidden = part == Board.Part.PUBLIC and phase.public_board_hidden_for(access.is_organizer)
    board = None
    if not hidden:
        board = Board.objects.filter(phase=phase, direction=spec.key, part=part).select_related("phase").first()
    names = (
        ("phase_private", "phase_private_csv", "phase_private_json")
        if part == Board.Part.PRIVATE
        else ("phase", "phase_csv", "phase_json")
    )
    board_url, csv_url, json_url = (reverse(f"boards:{name}", args=[slug, phase.slug]) for name in names)
    return BoardTarget(
        task=task,
        phase=phase,
        board=board,
        spec=spec,
        controls=controls,
        board_url=board_url,
        csv_url=csv_url,
        json_url=json_url,
        challenge=access.challenge,
        is_organizer=access.is_organizer,
        hidden=hidden,
    )


def shift_text(shift: int | None) -> tuple[str, str]:
    """How the private board writes a shake-up, and its CSS class: "+3" up, "−2" down, "0", or a dash."""
    if shift is None:
        return MISSING, ""
    if shift > 0:
        return f"+{shift}", "up"
    if shift < 0:
        return f"−{-shift}", "down"
    return "0", ""


def _pinned(request: HttpRequest, target: BoardTarget) -> BoardTarget:
    """The target pinned to ``?as_of=`` (public rows only: history keeps no private ones); raises ``AsOfError``."""
    raw = request.GET.get("as_of")
    if raw is None:
        return target
    moment = pinned.parse_as_of(raw)
    controls = dataclasses.replace(target.controls, as_of=pinned.format_as_of(moment), private=False)
    return dataclasses.replace(target, controls=controls, as_of=moment)


def _as_of_error(request: HttpRequest, error: pinned.AsOfError) -> HttpResponse:
    return HttpResponseBadRequest(render(request, "boards/as_of_error.html", {"message": str(error)}).content)


def _view_title(target: BoardTarget) -> str:
    """How a citation names the board view: task or phase, the setting, the filters."""
    task, spec = target.task, target.spec
    if target.challenge is not None:
        title = f"{target.challenge.title}, {target.phase.title} {'private' if target.is_private else 'public'} board"
    else:
        title = f"DDI Leaderboard: {task.dataset_name} ({task.split})"
    if len(directions_for(task)) > 1:
        title += f", {spec.label.lower()}"
    if target.controls.filters:
        title += ", filtered by " + "; ".join(f"{p}={'+'.join(v)}" for p, v in target.controls.filters)
    return title


def _cite_context(target: BoardTarget, pin: pinned.Pin | None) -> dict:
    """The Cite panel: BibTeX of the benchmark's paper, and of the view pinned to ``pin``'s moment."""
    context: dict = {"paper_bibtex": cite.paper_bibtex(target.task), "pin": pin}
    if pin is not None:
        as_of = pinned.format_as_of(pin.as_of)
        permalink = absolute_url(target.board_url + target.controls.query(as_of=as_of, page=1))
        slug = target.task.slug if target.challenge is None else f"{target.challenge.slug}-{target.phase.slug}"
        view = cite.PinnedView(_view_title(target), slug, pin.as_of, permalink, pin.digest, pin.n_rows)
        context.update(permalink=permalink, view_bibtex=cite.view_bibtex(view), as_of=as_of)
    return context


def _table_links(target: BoardTarget, controls: Controls) -> list[tuple[str, str]]:
    """(label, URL) of the view's paper-ready tables (public rows of this view, pinned if it is)."""
    if target.is_private or target.hidden:
        return []
    query_string = dataclasses.replace(controls, private=False).query(page=1)
    labels = {"tex": "LaTeX", "md": "Markdown", "csv": "CSV"}
    if target.challenge is None:
        args: list = [target.task.slug]
        name = "boards:table_{}"
    else:
        args = [target.challenge.slug, target.phase.slug]
        name = "boards:phase_table_{}"
    return [(labels[fmt], reverse(name.format(fmt), args=args) + query_string) for fmt in paper_tables.FORMATS]


def _render_board(request: HttpRequest, target: BoardTarget) -> HttpResponse:
    try:
        target = _pinned(request, target)
    except pinned.AsOfError as error:
        return _as_of_error(request, error)
    task, spec, board, phase, controls = target.task, target.spec, target.board, target.phase, target.controls
    team_ids = team_ids_for(request.user) if controls.private else []
    as_of = target.as_of
    pinned_view = as_of is not None
    pin: pinned.Pin | None
    if as_of is not None:
        # The board as it stood then, from its history: no charts or kind sections (those show the board now).
        rows, total, pin = pinned.pinned_page(board, spec, controls, as_of, phase.has_published_results)
        n_pages = max(1, math.ceil(total / query.PAGE_SIZE))
        controls = dataclasses.replace(controls, page=min(controls.page, n_pages))
    else:
        rows, total = page_rows(board, spec, controls, team_ids)
        n_pages = max(1, math.ceil(total / query.PAGE_SIZE))
        if controls.page > n_pages:  # past the end: show the last page
            controls = dataclasses.replace(controls, page=n_pages)
            rows, total = page_rows(board, spec, controls, team_ids)
        if board is not None and phase.has_published_results:  # beside the rows, where they would rank (never ranked)
            rows = published.merge_page(
                spec, controls, rows, query.select_rows(board, spec, controls, team_ids), query.PAGE_SIZE, total,
                controls.page == n_pages,
            )  # fmt: skip
        pin = pinned.current_pin(board, controls) if board is not None and not controls.private else None
    challenge = target.challenge
    organized = challenge is not None
    sibling = None if organized else _sibling_board(task)
    charts = board_charts(board, spec, sibling, controls, team_ids) if board is not None and not pinned_view else []
    if target.is_private and board is not None:
        shake = shakeup_chart(board, spec) if not pinned_view else None
        charts = [shake, *charts] if shake else charts
        for row in rows:
            row["shift_text"], row["shift_class"] = shift_text(exports.shift(row))
    family = scoring.FAMILIES[task.family]
    dataset_tasks = [] if organized else _dataset_tasks(task)
    context = {
        "task": task,
        "family": family,
        "phase": phase,
        "challenge": target.challenge,
        "is_organizer": target.is_organizer,
        "board_hidden": target.hidden,
        "is_private_board": target.is_private,
        "ladder_threshold": phase.ladder_threshold,
        "board_url": target.board_url,
        "csv_url": target.csv_url,
        "json_url": target.json_url,
        "private_board_url": reverse("boards:phase_private", args=[challenge.slug, phase.slug])
        if challenge is not None and phase.is_revealed and phase.split_spec is not None
        else "",
        "public_board_url": reverse("boards:phase", args=[challenge.slug, phase.slug]) if challenge is not None else "",
        # An organized phase is entered from its challenge's page (registration, terms, the phase's own form).
        "submit_url": challenge.get_absolute_url()
        if challenge is not None
        else reverse("submissions:submit", args=[task.slug]),
        "my_url": reverse("submissions:my", args=[challenge.slug, phase.slug])
        if challenge is not None and request.user.is_authenticated
        else "",
        "board": board,
        "spec": spec,
        "controls": controls,
        "rows": rows,
        "total": total,
        "headers": _headers(spec, controls),
        "filters": _filter_state(task, controls),
        "directions": [
            {
                "key": v,
                "label": direction_spec(task, v).label,
                "checked": v == spec.key,
                "query": controls.query(direction=v),
            }
            for v in directions_for(task)
        ]
        if len(directions_for(task)) > 1
        else [],
        "charts": charts,
        "matrix": matrix.present(board) if board is not None and not pinned_view else None,
        "kind_sections": [] if pinned_view else shown_sections(site_kind(task).board_sections, spec, rows),
        "cite": _cite_context(target, pin),
        "table_links": _table_links(target, controls),
        "feed_url": reverse("boards:feed", args=[task.slug]) + controls.query(page=1, as_of="", private=False)
        if target.challenge is None
        else "",
        "pinned_as_of": target.as_of,
        "live_query": controls.query(as_of=""),
        "charts_follow_view": follows_view(controls),
        "top_methods": TOP_METHODS,
        "significance_text": rule_text(spec),
        "metric_name": task.metric(spec.metric).name,
        "sort_label": _sort_label(spec, controls.sort),
        "tiebreak_names": [task.metric(key).name for key, _ in spec.tiebreak],
        "export_query": controls.query(page=1),
        "page": controls.page,
        "n_pages": n_pages,
        "previous_query": controls.query(page=controls.page - 1) if controls.page > 1 else None,
        "next_query": controls.query(page=controls.page + 1) if controls.page < n_pages else None,
        "dataset_tasks": dataset_tasks if len(dataset_tasks) > 1 else [],
        "column_groups": [
            {"key": key, "label": label, "checked": controls.shows(key)}
            for key, label in query.COLUMN_GROUPS
            if key != "classes" or spec.class_columns
        ],
        "shows": {key: controls.shows(key) for key, _ in query.COLUMN_GROUPS},
        "published_shown": published.shown(controls),
        "show_breakdowns": has_breakdowns(spec, rows),
        "published_on": controls.published,
    }
    return render(request, "boards/board.html", context)


@require_GET
def task_board(request: HttpRequest, slug: str) -> HttpResponse:
    return _render_board(request, _standing_target(request, slug))


@require_GET
def phase_board(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponse:
    """An organized phase's public board (hidden until the reveal where the phase says so)."""
    return _render_board(request, _phase_target(request, slug, phase_slug, Board.Part.PUBLIC))


@require_GET
def phase_private_board(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponse:
    """A revealed phase's private board: final submissions ranked on the private test rows, with the shake-up."""
    return _render_board(request, _phase_target(request, slug, phase_slug, Board.Part.PRIVATE))


# --- exports -------------------------------------------------------------------------------------


def _export(request: HttpRequest, target: BoardTarget, kind: str) -> HttpResponseBase:
    if target.hidden:
        raise Http404("The public board of this phase is hidden until the reveal.")
    try:
        target = _pinned(request, target)
    except pinned.AsOfError as error:
        return _as_of_error(request, error)
    task, spec, board, controls = target.task, target.spec, target.board, target.controls
    team_ids = team_ids_for(request.user) if controls.private else []
    rows = None
    if target.as_of is not None and board is not None:
        rows = pinned.pinned_rows(board, controls, target.as_of)
    chunks = exports.export_chunks(kind, board, spec, controls, team_ids, rows)
    content_type = "text/csv; charset=utf-8" if kind == "csv" else "application/json"
    response = StreamingHttpResponse(chunks, content_type=content_type)
    name = task.slug if target.challenge is None else f"{target.challenge.slug}-{target.phase.slug}"
    if target.is_private:
        name += "-private"
    response["Content-Disposition"] = f'inline; filename="{name}-{spec.key}-leaderboard.{kind}"'
    response["X-Scoring-Version"] = scoring.__version__
    if controls.private:
        # Holds rows only this user may see: never store it in a shared cache.
        response["Cache-Control"] = "private, no-store"
    return response


@require_GET
def leaderboard_csv(request: HttpRequest, slug: str) -> HttpResponseBase:
    return _export(request, _standing_target(request, slug), "csv")


@require_GET
def leaderboard_json(request: HttpRequest, slug: str) -> HttpResponseBase:
    return _export(request, _standing_target(request, slug), "json")


@require_GET
def phase_csv(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponseBase:
    return _export(request, _phase_target(request, slug, phase_slug, Board.Part.PUBLIC), "csv")


@require_GET
def phase_json(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponseBase:
    return _export(request, _phase_target(request, slug, phase_slug, Board.Part.PUBLIC), "json")


@require_GET
def phase_private_csv(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponseBase:
    return _export(request, _phase_target(request, slug, phase_slug, Board.Part.PRIVATE), "csv")


@require_GET
def phase_private_json(request: HttpRequest, slug: str, phase_slug: str) -> HttpResponseBase:
    return _export(request, _phase_target(request, slug, phase_slug, Board.Part.PRIVATE), "json")


def _paper_table(request: HttpRequest, target: BoardTarget, fmt: str) -> HttpResponse:
    """A paper-ready table of the view (``leaderboard.boards.paper_tables``): top N, pinned if asked."""
    if target.hidden:
        raise Http404("The public board of this phase is hidden until the reveal.")
    try:
        target = _pinned(request, target)
        top = paper_tables.top_from(request.GET.get("top"))
    except ValueError as error:  # pinned.AsOfError is one
        return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")
    # Public rows only: a table is for a paper, and a private row's rank is its team's alone.
    controls = dataclasses.replace(target.controls, private=False, page=1)
    target = dataclasses.replace(target, controls=controls)
    board, spec = target.board, target.spec
    pin: pinned.Pin | None
    if board is None:
        rows: list[dict] = []
        pin = None
    elif target.as_of is not None:
        rows = pinned.pinned_rows(board, controls, target.as_of)
        pin = pinned.Pin(as_of=target.as_of, digest=pinned.digest(rows), n_rows=len(rows))
    else:
        rows = query.ranked_page(board, controls, [], 0, top)
        pin = pinned.current_pin(board, controls)
    context = _cite_context(target, pin)
    table = paper_tables.build(
        spec,
        rows,
        controls=controls,
        top=top,
        title=_view_title(target),
        total=pin.n_rows if pin is not None else 0,
        moment=pin.as_of if pin is not None else None,
        permalink=context.get("permalink", ""),
        digest=pin.digest if pin is not None else "",
        with_published=target.phase.has_published_results,
    )
    response = HttpResponse(paper_tables.RENDERERS[fmt](table), content_type=paper_tables.CONTENT_TYPES[fmt])
    name = target.task.slug if target.challenge is None else f"{target.challenge.slug}-{target.phase.slug}"
    response["Content-Disposition"] = f'inline; filename="{name}-{spec.key}-table.{fmt}"'
    if context.get("permalink"):
        response["Link"] = f'<{context["permalink"]}>; rel="canonical"'
    return response


@require_GET
def paper_table(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    return _paper_table(request, _standing_target(request, slug), fmt)


@require_GET
def phase_paper_table(request: HttpRequest, slug: str, phase_slug: str, fmt: str) -> HttpResponse:
    return _paper_table(request, _phase_target(request, slug, phase_slug, Board.Part.PUBLIC), fmt)


# --- following a board: Atom feed and badges -----------------------------------------------------


@require_GET
def board_feed(request: HttpRequest, slug: str) -> HttpResponse:
    """The Atom feed of a standing board view: new leaders and new published results."""
    target = _standing_target(request, slug)
    query_string = target.controls.query(page=1)
    text = feeds.board_feed(
        target.board,
        target.spec,
        _view_title(target).removeprefix("DDI Leaderboard: "),
        target.board_url + query_string,
        reverse("boards:feed", args=[slug]) + query_string,
    )
    return HttpResponse(text, content_type="application/atom+xml; charset=utf-8")


def _short_name(task) -> str:
    shared = sum(1 for t in scoring.TASKS.values() if t.dataset_name == task.dataset_name) > 1
    return f"{task.dataset_name} ({task.split})" if shared else task.dataset_name


@require_GET
def entry_badge(request: HttpRequest, submission_id: uuid.UUID) -> HttpResponse:
    """An SVG badge of a public submission's place on its standing task's board (grey when it has none to show)."""
    from leaderboard.boards.present import board_standing
    from leaderboard.submissions.models import Submission

    submission = Submission.objects.select_related("phase__challenge").filter(pk=submission_id).first()
    if submission is None or not submission.is_public or submission.is_hidden:
        raise Http404("No such public submission.")  # a private or hidden one says nothing, not even its task
    task = submission.phase.task
    standing = None
    value = None
    as_of = None
    # Standing boards only: an organized phase's board may be hidden until its reveal.
    if submission.phase.challenge.kind == Challenge.Kind.STANDING:
        standing = board_standing(submission)
        board = Board.objects.public().filter(phase=submission.phase, direction=direction_spec(task).key).first()
        if standing is not None and board is not None:
            row = board.rows.filter(submission_id=submission.pk).values("value").first()
            value = row["value"] if row else None
            as_of = pinned.last_change(board)
    response = HttpResponse(feeds.entry_badge(standing, value, _short_name(task), as_of), content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=3600"
    return response


# --- /datasets/<family>/<dataset>/ ------------------------------------------------------------


@require_GET
def dataset(request: HttpRequest, family: str, dataset: str) -> HttpResponse:
    tasks = [t for t in scoring.TASKS.values() if t.family == family and t.dataset == dataset]
    if not tasks:
        raise Http404("No such dataset.")
    if len(tasks) == 1:
        return redirect("boards:task", tasks[0].slug)
    return render(request, "boards/dataset.html", dataset_breakdown(tasks))


# --- /compare/ -------------------------------------------------------------------------------------

MAX_COMPARED = 4


def _compare_ids(request: HttpRequest) -> list[uuid.UUID] | None:
    raw = []
    for value in request.GET.getlist("ids"):
        raw += [part.strip() for part in value.split(",") if part.strip()]
    try:
        ids = list(dict.fromkeys(uuid.UUID(part) for part in raw))
    except ValueError:
        return None
    return ids


@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    ids = _compare_ids(request)
    if ids is None or not 2 <= len(ids) <= MAX_COMPARED:
        return HttpResponseBadRequest(
            render(request, "boards/compare_error.html", {"message": "Give 2 to 4 submission ids: ?ids=a,b"}).content
        )
    outcome = build_comparison(request.user, ids, request.GET.get("direction"))
    if isinstance(outcome, str):
        return HttpResponseBadRequest(render(request, "boards/compare_error.html", {"message": outcome}).content)
    return render(request, "boards/compare.html", outcome)
