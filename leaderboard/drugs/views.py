"""/drugs/ (list and search), /drugs/<DrugBank id>/ and its stored structure drawing.

Everything shown was computed before the request: the drug's row at import
(``loader``), the top entries' counts on its pairs by the worker at scoring time
(the ``drugs`` part of each stored report). A page reads rows; it never draws,
counts or opens a file.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from leaderboard.boards.models import Board
from leaderboard.boards.query import Controls, ranked_page
from leaderboard.challenges.access import labels_are_public
from leaderboard.challenges.models import Challenge
from leaderboard.drugs.models import Drug
from leaderboard.kinds import mudi
from leaderboard.submissions.models import Submission
from scoring.keys import MUDI_SETTINGS
from scoring.metrics.mudi import CLASS_NAMES

PAGE_SIZE = 50
# The drug page compares this many entries from the top of the MUDI board.
TOP_ENTRIES = 5
MAX_QUERY = 100


def _drug_or_404(drugbank_id: str) -> Drug:
    drug = Drug.objects.filter(pk=drugbank_id.strip().upper()).first()
    if drug is None:
        raise Http404("No such drug in MUDI's drug list.")
    return drug


# The list's orders (?sort=...), the first the default; ties go by name. 1,295 rows: no index needed.
SORTS = {
    "name": ("name", "drugbank_id"),
    "-pairs": ("-test_pairs_total", "name"),
    "pairs": ("test_pairs_total", "name"),
    "id": ("drugbank_id",),
}


@require_GET
def drug_list(request: HttpRequest) -> HttpResponse:
    """MUDI's drugs, searchable by name, id or formula, sorted by name or by test pairs (``?sort=-pairs``)."""
    query = request.GET.get("q", "").strip()[:MAX_QUERY]
    sort = request.GET.get("sort", "name")
    if sort not in SORTS:
        sort = "name"
    drugs = Drug.objects.only("drugbank_id", "name", "formula", "test_pairs_total")
    if query:
        drugs = drugs.filter(Q(name__icontains=query) | Q(drugbank_id__iexact=query) | Q(formula__iexact=query))
    paginator = Paginator(drugs.order_by(*SORTS[sort]), PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    context = {"page": page, "query": query, "total": paginator.count, "sort": sort}
    return render(request, "drugs/list.html", context)


def _f1(tp: int, fp: int, fn: int) -> float | None:
    if tp + fp + fn == 0:
        return None
    return 2 * tp / (2 * tp + fp + fn)


def top_entries_on(drug: Drug) -> tuple[list[dict], Board | None]:
    """The top public entries of the standing MUDI board (its drug page view) and their counts on ``drug``'s pairs.

    Empty when the MUDI truth is not public (the counts would reveal which rows are wrong) or no board exists.
    """
    board = (
        Board.objects.select_related("phase__challenge")
        .filter(
            phase__task_slug=mudi.TASK_SLUG,
            phase__challenge__kind=Challenge.Kind.STANDING,
            direction=mudi.DRUG_PAGE_DIRECTION,
        )
        .first()
    )
    if board is None or not labels_are_public(board.phase):
        return [], board
    controls = Controls(direction=mudi.DRUG_PAGE_DIRECTION, default_direction=MUDI_SETTINGS[0])
    rows = ranked_page(board, controls, [], 0, TOP_ENTRIES)
    reports = dict(
        Submission.objects.filter(pk__in=[row["submission_id"] for row in rows]).values_list("pk", "report__drugs")
    )
    entries = []
    for row in rows:
        drugs = reports.get(row["submission_id"]) or {}
        per_drug = drugs.get("per_drug") or {}
        ids = per_drug.get("ids") or []
        entry: dict[str, Any] = {"row": row, "scored": bool(ids), "settings": []}
        if drug.drugbank_id in ids:
            at = ids.index(drug.drugbank_id)
            for setting in MUDI_SETTINGS:
                tp, fp, fn = per_drug[setting][at]
                entry["settings"].append({"name": setting, "tp": tp, "fp": fp, "fn": fn, "f1": _f1(tp, fp, fn)})
        entries.append(entry)
    return entries, board


@require_GET
def drug_detail(request: HttpRequest, drugbank_id: str) -> HttpResponse:
    drug = _drug_or_404(drugbank_id)
    entries, board = top_entries_on(drug) if drug.test_pairs_total else ([], None)
    pairs = [(name, drug.test_pairs.get(name, 0)) for name in CLASS_NAMES]
    context = {"drug": drug, "pairs": pairs, "entries": entries, "board": board}
    return render(request, "drugs/detail.html", context)


@require_GET
def structure_svg(request: HttpRequest, drugbank_id: str) -> HttpResponse:
    """The drawing stored at import, cacheable by browsers and proxies (its ETag changes with the drawing)."""
    drug = _drug_or_404(drugbank_id)
    if not drug.structure_svg:
        raise Http404(drug.structure_error or "No structure drawing.")
    etag = '"' + hashlib.sha256(drug.structure_svg.encode()).hexdigest()[:32] + '"'
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(drug.structure_svg, content_type="image/svg+xml")
    response["ETag"] = etag
    response["Cache-Control"] = "public, max-age=86400"
    # An SVG opened on its own is a document: let it style itself and nothing else.
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    return response
