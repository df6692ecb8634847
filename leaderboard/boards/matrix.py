"""The significance matrix of a board: every pair of its top 10 public entries, by the board's rule.

Computed in the worker, never in a request. After each board update
(``tasks.update_boards``) ``enqueue_stale`` compares each board's current top
entries with the ones its stored matrix was computed for and, if they differ,
sends ``update_matrices``, which tests every pair and stores the outcome in
``Board.significance_matrix``. Pages only read that JSON.

Each pair is tested by ``verdicts.pair_outcome``, the same function behind the
leader marks and the compare page, from stored numbers only (bootstrap
replicates or per-seed values): 45 pairs take milliseconds. A pair is
significant when its p-value is below ``scoring.replicates.PAIR_LEVEL``, the
per-pair threshold that is the rule's correction for these 45 pairs.
"""

from __future__ import annotations

import logging
import math
import uuid
from itertools import combinations

from celery import shared_task
from django.db import transaction
from django.utils import timezone

import scoring
from leaderboard.boards import cache
from leaderboard.boards.models import Board, BoardRow
from leaderboard.boards.placement import is_ranked
from leaderboard.boards.spec import DirectionSpec, direction_spec
from leaderboard.boards.verdicts import Inputs
from leaderboard.challenges.models import Phase
from leaderboard.submissions.charts import chart as _chart
from leaderboard.submissions.charts import figure as _figure
from leaderboard.submissions.charts import short, trace
from scoring.replicates import PAIR_LEVEL

log = logging.getLogger(__name__)

# Entries of the matrix: the board's best public rows (45 pairs at 10).
MATRIX_SIZE = 10
# Stored format; a change of it (or of the scorer) makes every stored matrix stale.
FORMAT = 2


def top_rows(board: Board) -> list[dict]:
    """The board's best public ranked rows, in rank order (one query)."""
    rows = (
        BoardRow.objects.public()
        .filter(board=board)
        .order_by("quality", "tail")
        .values("submission_id", "method_name", "team_name", "quality", "metrics")[:MATRIX_SIZE]
    )
    return [dict(r) for r in rows if is_ranked(r["quality"])]


def _signature(board: Board, rows: list[dict]) -> dict:
    return {
        "format": FORMAT,
        "ids": [str(r["submission_id"]) for r in rows],
        "metric": board.metric,
        "method": board.significance,
        "scoring_version": scoring.__version__,
    }


def is_current(board: Board, rows: list[dict]) -> bool:
    """Whether the stored matrix was computed for exactly these entries, metric and scorer."""
    stored = board.significance_matrix or {}
    return all(stored.get(k) == v for k, v in _signature(board, rows).items())


def pairwise(spec: DirectionSpec, rows: list[dict]) -> list[dict]:
    """Every pair of ``rows`` (rank order) by the rule: [{i, j, delta, low, high, p, significant}].

    A pair that could not be tested carries ``error`` instead.
    """
    ids = [str(r["submission_id"]) for r in rows]
    inputs = Inputs(spec, {str(r["submission_id"]): r["metrics"] for r in rows})
    pairs = []
    for i, j in combinations(range(len(ids)), 2):
        outcome = inputs.outcome(ids[i], ids[j])
        if isinstance(outcome, str):
            pairs.append({"i": i, "j": j, "error": outcome})
            continue
        pairs.append(
            {
                "i": i,
                "j": j,
                "delta": outcome.delta,
                "low": outcome.low,
                "high": outcome.high,
                "p": outcome.p_value,
                "significant": outcome.significant,
            }
        )
    return pairs


def compute(board: Board, rows: list[dict]) -> dict:
    """The matrix JSON of ``board`` for its top ``rows`` (stored numbers only: milliseconds)."""
    spec = direction_spec(board.phase.task, board.direction)
    pairs = pairwise(spec, rows)
    return {
        **_signature(board, rows),
        "entries": [{"method": r["method_name"], "team": r["team_name"]} for r in rows],
        "alpha": PAIR_LEVEL,
        "n_tested": sum(1 for p in pairs if "error" not in p),
        "pairs": pairs,
        "computed_at": timezone.now().isoformat(),
    }


def refresh_board(board_id: int) -> bool:
    """Recompute one board's matrix if its top entries changed; True if a new matrix was stored.

    The tests run outside any lock; the write re-reads the top entries under the
    phase lock and drops the result if they moved meanwhile (the update that
    moved them enqueued its own refresh).
    """
    board = Board.objects.select_related("phase").filter(pk=board_id).first()
    if board is None:
        return False
    rows = top_rows(board)
    if is_current(board, rows):
        return False
    matrix = compute(board, rows)
    with transaction.atomic():
        Phase.objects.select_for_update(no_key=True).filter(pk=board.phase_id).first()
        board = Board.objects.select_related("phase").get(pk=board_id)
        if [str(r["submission_id"]) for r in top_rows(board)] != matrix["ids"]:
            return False
        board.significance_matrix = matrix
        # A new version makes the cached pages (and the API's ETag) of the board stale.
        board.version = uuid.uuid4()
        board.save(update_fields=["significance_matrix", "version"])
    return True


def refresh_phase(phase_id: int) -> int:
    """Refresh the matrix of every board of a phase; returns how many changed."""
    return sum(refresh_board(pk) for pk in Board.objects.filter(phase_id=phase_id).values_list("pk", flat=True))


@shared_task(acks_late=True, ignore_result=True)
def update_matrices(phase_id: int) -> int:
    """The worker's side of ``enqueue_stale``: idempotent (a current matrix is left alone)."""
    return refresh_phase(phase_id)


def enqueue_stale(phase_id: int) -> bool:
    """After a board update: send ``update_matrices`` (on commit) if any board's top entries changed."""
    stale = any(not is_current(board, top_rows(board)) for board in Board.objects.filter(phase_id=phase_id))
    if stale:

        def send() -> None:
            try:
                update_matrices.delay(phase_id)
            except Exception:  # the next board update, or `recompute_boards`, tries again
                log.exception("could not enqueue the significance matrices of phase %s", phase_id)

        transaction.on_commit(send)
    return stale


# --- the page's side: read the stored JSON, never test ----------------------------------------


def present(board: Board) -> dict | None:
    """The heatmap and table of the board's stored matrix (cached per board version); None before one exists."""
    matrix = board.significance_matrix or {}
    if len(matrix.get("entries", [])) < 2:
        return None
    return cache.get_or_compute(cache.key("matrix", board.pk, board.version), lambda: _present(board, matrix))


def _label(entry: dict, index: int) -> str:
    return f"{index + 1}. {entry['method']} ({entry['team']})"


def _interval_text(pair: dict, sign: int) -> str:
    """ "[low, high]" of the pair's 95% interval of the difference, read in the order given by ``sign``."""
    if pair.get("low") is None or pair.get("high") is None:
        return ""
    low, high = sorted((sign * pair["low"], sign * pair["high"]))
    return f"[{low:+.4f}, {high:+.4f}]"


def _p_text(p: float | None) -> str:
    return "" if p is None else f"{p:.3f}" if p >= 0.001 else "<0.001"


def _present(board: Board, matrix: dict) -> dict:
    entries = matrix["entries"]
    labels = [_label(e, i) for i, e in enumerate(entries)]
    n = len(entries)
    # Cell (row i, column j): adjusted p of the pair; the delta is row minus column.
    adjusted: list[list[float | None]] = [[None] * n for _ in range(n)]
    text = [[""] * n for _ in range(n)]
    hover = [[""] * n for _ in range(n)]
    table = []
    for pair in matrix["pairs"]:
        i, j = pair["i"], pair["j"]
        if "error" in pair:
            table.append(
                {"a": labels[i], "b": labels[j], "delta": "", "interval": "", "p": "", "verdict": pair["error"]}
            )
            for r, c in ((i, j), (j, i)):
                text[r][c] = "n/t"
                hover[r][c] = f"{labels[r]} vs {labels[c]}: {pair['error']}"
            continue
        for r, c, sign in ((i, j, 1), (j, i, -1)):
            adjusted[r][c] = pair["p"]
            text[r][c] = _p_text(pair["p"]) + (" *" if pair["significant"] else "")
            hover[r][c] = (
                f"{labels[r]} vs {labels[c]}<br>delta {sign * pair['delta']:+.4f} {_interval_text(pair, sign)}<br>"
                f"p {_p_text(pair['p'])}"
            )
        table.append(
            {
                "a": labels[i],
                "b": labels[j],
                "delta": f"{pair['delta']:+.4f}",
                "interval": _interval_text(pair, 1),
                "p": _p_text(pair["p"]),
                "verdict": "significant" if pair["significant"] else "not significant",
                "significant": pair["significant"],
            }
        )
    chart = heatmap(board.pk, labels, adjusted, text, hover, matrix["alpha"])
    return {
        "chart": chart,
        "pairs": table,
        "alpha": matrix["alpha"],
        "n_entries": n,
        "n_significant": sum(1 for p in matrix["pairs"] if p.get("significant")),
        "n_pairs": len(matrix["pairs"]),
        "computed_at": matrix.get("computed_at", ""),
    }


# Colour scale of the heatmap: log10 of the adjusted p-value, clipped at 0.001.
P_FLOOR = 1e-3


def heatmap(
    board_id: int,
    labels: list[str],
    adjusted: list[list[float | None]],
    text: list[list[str]],
    hover: list[list[str]],
    alpha: float,
) -> dict:
    """The Plotly heatmap of the adjusted p-values (darker: more significant), with the table under it."""
    z = [[None if p is None else math.log10(max(p, P_FLOOR)) for p in row] for row in adjusted]
    ticks = [P_FLOOR, alpha, 1.0]
    n = len(labels)
    # Columns by rank number, short row names and only the significance mark in the cells keep ten
    # entries readable on a phone; the hover text and the tables have the names and the numbers.
    cells = [["*" if t.endswith("*") else "" for t in row] for row in text]
    fig = _figure(
        trace(
            "heatmap",
            z=z,
            x=[str(i + 1) for i in range(n)],
            y=[short(label, 14) for label in labels],
            text=cells,
            texttemplate="%{text}",
            textfont={"size": 18},
            customdata=hover,
            hovertemplate="%{customdata}<extra></extra>",
            zmin=math.log10(P_FLOOR),
            zmax=0.0,
            colorscale="Blues",
            reversescale=True,
            colorbar={
                "title": {"text": "p", "side": "top"},
                "tickvals": [math.log10(t) for t in ticks],
                "ticktext": [f"{t:g}" for t in ticks],
                "orientation": "h",
                "y": -0.18,
                "yanchor": "top",
                "x": 0,
                "xanchor": "left",
                "len": 1.0,
                "thickness": 12,
            },
        )
    )
    fig.update_layout(
        xaxis={
            "side": "top",
            "automargin": True,
            "fixedrange": True,
            "tickmode": "array",
            "tickvals": [str(i + 1) for i in range(n)],
        },  # fmt: skip
        yaxis={"autorange": "reversed", "automargin": True, "fixedrange": True},
        height=max(380, 34 * n + 240),
    )
    rows = [[labels[r], *(text[r][c] or "—" for c in range(n))] for r in range(n)]
    columns = ["entry", *(str(c + 1) for c in range(n))]
    note = (
        f"* p < {alpha:.5f} (the board's rule): darker is more significant. Columns are the entries by rank; the "
        "matrix is symmetric. Hover a cell for the difference (row minus column), its 95% interval and p; the "
        "tables below have every number."
    )
    return _chart(f"significance-{board_id}", "p of each pair", fig, columns, rows, note=note)
