"""The significance matrix of a board: every pair of its top 10 public entries, Holm-corrected.

Computed in the worker, never in a request. After each board update
(``tasks.update_boards``) ``enqueue_stale`` compares each board's current top
entries with the ones its stored matrix was computed for and, if they differ,
sends ``update_matrices``, which tests every pair and stores the outcome in
``Board.significance_matrix``. Pages only read that JSON.

The test per pair follows the board's significance mode (``spec.significance``):

- ``bootstrap`` (MUDI, single-seed tasks): the paired bootstrap over test rows
  (``scoring.significance.paired_bootstrap``, 1,000 resamples), through
  ``pair_tests.pair_test``, so each pair is computed once and cached in
  ``PairTest`` (the leader-vs-row marks and the compare page share the cache);
- ``seeds`` (ImDrug, ChemicalX): a paired t-test over the per-seed values of
  the ranking metric (``scoring.multiple.paired_seed_test``), read from the
  board rows; no file is read.

The p-values of all tested pairs (45 for 10 entries) are then adjusted with
Holm's method (``scoring.multiple.holm_adjust``); a pair is significant when
its adjusted p-value is below ``scoring.significance.ALPHA``.

A phase with a private part of its test rows gets no bootstrap matrix: a
bootstrap over every row would compare entries on rows whose results are
hidden until the reveal.
"""

from __future__ import annotations

import logging
import math
import uuid
from itertools import combinations
from typing import Any

from celery import shared_task
from django.db import transaction
from django.utils import timezone

import scoring
from leaderboard.boards import cache
from leaderboard.boards.models import Board, BoardRow, PairTest
from leaderboard.boards.pair_tests import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, Aligner, pair_test
from leaderboard.boards.placement import is_ranked
from leaderboard.boards.spec import DirectionSpec, direction_spec
from leaderboard.challenges.models import Phase
from leaderboard.challenges.truth_cache import TruthMissing
from leaderboard.submissions.charts import chart as _chart
from leaderboard.submissions.charts import figure as _figure
from leaderboard.submissions.charts import short, trace
from leaderboard.submissions.models import Submission
from scoring.multiple import holm_adjust, paired_seed_test
from scoring.significance import ALPHA

log = logging.getLogger(__name__)

# Entries of the matrix: the board's best public rows (45 pairs at 10).
MATRIX_SIZE = 10
# Stored format; a change of it (or of the scorer) makes every stored matrix stale.
FORMAT = 1


def correction_text(n_pairs: int) -> str:
    """How the p-values of ``n_pairs`` pairs are corrected, and what "significant" means (one sentence)."""
    return (
        f"Holm's correction across the {n_pairs} pair{'s' if n_pairs != 1 else ''} "
        f"(family-wise error rate {ALPHA:g}); significant means adjusted p < {ALPHA:g}."
    )


def method_text(significance: str, n_pairs: int) -> str:
    """The test and the correction in one sentence (the board and compare pages show it)."""
    if significance == "seeds":
        return (
            "Paired t-test over the per-seed values (two-sided; assumes the per-seed differences are roughly "
            f"normal), then {correction_text(n_pairs)}"
        )
    return (
        f"Paired bootstrap over test rows ({BOOTSTRAP_RESAMPLES:,} resamples, two-sided), then "
        f"{correction_text(n_pairs)}"
    )


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


def _seed_pair(spec: DirectionSpec, a: dict, b: dict) -> tuple[float, float]:
    keys = [key for _, key in spec.seed_keys(spec.metric)]
    values_a = [a["metrics"].get(key) for key in keys]
    values_b = [b["metrics"].get(key) for key in keys]
    if any(v is None for v in [*values_a, *values_b]):
        raise ValueError("a per-seed value is missing")
    outcome = paired_seed_test(values_a, values_b)
    return outcome.delta, outcome.p_value


def _stored_bootstrap(spec: DirectionSpec, a_id: str, b_id: str) -> tuple[float, float] | None:
    """A cached bootstrap of the pair in either order (the p-value is symmetric; the delta flips)."""
    found = PairTest.objects.filter(
        submission_a_id__in=[a_id, b_id],
        submission_b_id__in=[a_id, b_id],
        metric=spec.metric,
        n_resamples=BOOTSTRAP_RESAMPLES,
        seed=BOOTSTRAP_SEED,
    )
    for test in found:
        if str(test.submission_a_id) == a_id and str(test.submission_b_id) == b_id:
            return test.delta, test.p_value
    for test in found:
        if str(test.submission_a_id) == b_id and str(test.submission_b_id) == a_id:
            return -test.delta, test.p_value
    return None


def _bootstrap_pairs(phase: Phase, spec: DirectionSpec, ids: list[str]) -> dict[tuple[int, int], Any]:
    """{(i, j): (delta, p) or an error sentence} for every pair of ``ids`` (i ranked above j)."""
    if phase.split_spec is not None:
        return {
            pair: "not tested: this phase keeps part of its test rows private"
            for pair in combinations(range(len(ids)), 2)
        }
    subs = {str(s.pk): s for s in Submission.objects.select_related("phase").filter(pk__in=ids)}
    aligner = Aligner(phase, spec)
    out: dict[tuple[int, int], Any] = {}
    for i, j in combinations(range(len(ids)), 2):
        a_id, b_id = ids[i], ids[j]
        stored = _stored_bootstrap(spec, a_id, b_id)
        if stored is not None:
            out[(i, j)] = stored
            continue
        if a_id not in subs or b_id not in subs:
            out[(i, j)] = "not tested: the submission is gone"
            continue
        try:
            test = pair_test(spec, subs[a_id], subs[b_id], aligner=aligner)
            out[(i, j)] = (test.delta, test.p_value)
        except TruthMissing:
            out[(i, j)] = "not tested: the task's truth file is not available"
        except (scoring.ScoringError, OSError, ValueError) as error:
            log.warning("matrix: bootstrap %s vs %s on %s failed: %s", a_id, b_id, spec.metric, error)
            out[(i, j)] = f"not tested ({error})"
    return out


def pairwise(spec: DirectionSpec, rows: list[dict], phase: Phase | None = None) -> list[dict]:
    """Every pair of ``rows`` (rank order) tested and Holm-adjusted: [{i, j, delta, p, p_adjusted, significant}].

    A pair that could not be tested carries ``error`` instead and takes no part
    in the correction. ``phase`` is needed for bootstrap tests (the truth).
    """
    ids = [str(r["submission_id"]) for r in rows]
    if spec.significance == "seeds":
        outcomes: dict[tuple[int, int], Any] = {}
        for i, j in combinations(range(len(rows)), 2):
            try:
                outcomes[(i, j)] = _seed_pair(spec, rows[i], rows[j])
            except ValueError as error:
                outcomes[(i, j)] = f"not tested: {error}"
    else:
        assert phase is not None
        outcomes = _bootstrap_pairs(phase, spec, ids)
    tested = [pair for pair, outcome in outcomes.items() if not isinstance(outcome, str)]
    adjusted = dict(zip(tested, holm_adjust([outcomes[pair][1] for pair in tested]), strict=True))
    pairs = []
    for (i, j), outcome in sorted(outcomes.items()):
        if isinstance(outcome, str):
            pairs.append({"i": i, "j": j, "error": outcome})
            continue
        delta, p = outcome
        pairs.append(
            {
                "i": i,
                "j": j,
                "delta": delta,
                "p": p,
                "p_adjusted": adjusted[(i, j)],
                "significant": adjusted[(i, j)] < ALPHA,
            }
        )
    return pairs


def compute(board: Board, rows: list[dict]) -> dict:
    """The matrix JSON of ``board`` for its top ``rows`` (may take a while: bootstraps)."""
    spec = direction_spec(board.phase.task, board.direction)
    pairs = pairwise(spec, rows, board.phase)
    return {
        **_signature(board, rows),
        "entries": [{"method": r["method_name"], "team": r["team_name"]} for r in rows],
        "alpha": ALPHA,
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
                {"a": labels[i], "b": labels[j], "delta": "", "p": "", "p_adjusted": "", "verdict": pair["error"]}
            )
            for r, c in ((i, j), (j, i)):
                text[r][c] = "n/t"
                hover[r][c] = f"{labels[r]} vs {labels[c]}: {pair['error']}"
            continue
        for r, c, sign in ((i, j, 1), (j, i, -1)):
            adjusted[r][c] = pair["p_adjusted"]
            text[r][c] = _p_text(pair["p_adjusted"]) + (" *" if pair["significant"] else "")
            hover[r][c] = (
                f"{labels[r]} vs {labels[c]}<br>delta {sign * pair['delta']:+.4f}<br>"
                f"p {_p_text(pair['p'])}, Holm {_p_text(pair['p_adjusted'])}"
            )
        table.append(
            {
                "a": labels[i],
                "b": labels[j],
                "delta": f"{pair['delta']:+.4f}",
                "p": _p_text(pair["p"]),
                "p_adjusted": _p_text(pair["p_adjusted"]),
                "verdict": f"significant at {matrix['alpha']:g}" if pair["significant"] else "not significant",
                "significant": pair["significant"],
            }
        )
    chart = heatmap(board.pk, labels, adjusted, text, hover, matrix["alpha"])
    spec_text = method_text(matrix["method"], len(matrix["pairs"]))
    return {
        "chart": chart,
        "pairs": table,
        "method_text": spec_text,
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
                "title": {"text": "Holm p", "side": "top"},
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
        f"* adjusted p < {alpha:g}: darker is more significant. Columns are the entries by rank; the matrix "
        "is symmetric. Hover a cell for the difference (row minus column) and both p-values; the tables below "
        "have every number."
    )
    return _chart(f"significance-{board_id}", "Holm-adjusted p of each pair", fig, columns, rows, note=note)
