"""Fixtures for the leaderboard tests: standing phases, scored submissions, small real files.

``scored()`` stores a score exactly as the worker does
(``leaderboard.submissions.outcomes.store_score``) and then rebuilds the
phase's boards, which in production the ``submission_scored`` receiver does
after the commit (tests run inside a transaction that never commits).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import tempfile
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.files.base import ContentFile

import scoring
from tests.conftest import PASSWORD  # noqa: F401 (re-exported for the tests)
from tests.submissions.helpers import MUDI_TRUTH_ROWS, mudi_truth_csv  # noqa: F401 (re-exported)

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)

# The same twelve gold MUDI pairs the submission tests use.
MUDI_TRUTH = MUDI_TRUTH_ROWS


def mudi_prediction_csv(wrong: int = 0, swap: int = 0) -> bytes:
    """Every gold pair; the first ``wrong`` with a wrong class, the last ``swap`` written in reverse order."""
    lines = ["Drug1,Interaction,Drug2"]
    for i, (a, label, b) in enumerate(MUDI_TRUTH):
        if i < wrong:
            label = "Antagonism" if label == "Synergism" else "Synergism"
        if i >= len(MUDI_TRUTH) - swap:
            a, b = b, a
        lines.append(f"Compound::{a},{label},Compound::{b}")
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(autouse=True)
def fresh_cache():
    """Cached pages are keyed by board version, but row ids repeat across rolled-back tests."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def standing(db):
    """Every standing challenge and phase of the registry (no truth files)."""
    from leaderboard.challenges.services import sync_standing_challenges

    sync_standing_challenges()


def phase_for(task_slug: str):
    from leaderboard.challenges.models import Phase

    return Phase.objects.standing().get(task_slug=task_slug)


def with_truth(task_slug: str, truth: bytes):
    """Import ``truth`` as the standing phase's test labels (via the challenges service)."""
    from leaderboard.challenges.services import import_truth

    phase = phase_for(task_slug)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{task_slug}-truth.csv"
        path.write_bytes(truth)
        import_truth(phase, path, synthetic=True, label="test truth")
    phase.refresh_from_db()
    return phase


def scored(
    phase,
    team,
    method: str,
    metrics: dict[str, float] | None = None,
    *,
    file: bytes | None = None,
    user=None,
    minutes: int = 0,
    rebuild: bool = True,
    **fields,
):
    """A scored submission of ``team``: from ``metrics`` as given, or by scoring ``file`` for real.

    ``minutes`` after T0 becomes its ``created_at`` (ties go to the earlier one).
    """
    from leaderboard.boards.recompute import recompute_phase
    from leaderboard.submissions.models import Submission
    from leaderboard.submissions.outcomes import store_score

    user = user or team.members.first()
    content = file if file is not None else b"not scored from a file\n"
    submission = Submission(
        phase=phase,
        team=team,
        user=user,
        method_name=method,
        file_name="predictions.csv",
        file_size=len(content),
        sha256=hashlib.sha256(content).hexdigest(),
        status=Submission.Status.RUNNING,
        **fields,
    )
    submission.file.save("predictions.csv", ContentFile(content), save=False)
    submission.save(force_insert=True)
    if file is not None:
        with phase.truth_file.open("rb") as truth, submission.file.open("rb") as pred:
            score = scoring.score_files(phase.task, truth, pred)
    else:
        task = phase.task
        score = scoring.Score(
            task=task.slug,
            primary=task.primary,
            primary_value=(metrics or {}).get(task.primary),
            metrics=dict(metrics or {}),
            report={},
            n_rows=0,
            scorer_version=scoring.__version__,
        )
    found = None
    if file is not None:  # the worker stores the replicates of a scored file with its score
        from leaderboard.submissions import replicates, runs

        found = replicates.compute(submission, runs._score_file(submission)[1])
    store_score(submission, score, replicates=found)
    Submission.objects.filter(pk=submission.pk).update(created_at=T0 + dt.timedelta(minutes=minutes))
    submission.refresh_from_db()
    if rebuild:
        recompute_phase(phase)
    return submission


def mudi_metrics(aware: float, agnostic: float | None = None, **extra) -> dict[str, float]:
    """A MUDI result with macro F1 ``aware``/``agnostic`` and plausible other keys."""
    agnostic = aware if agnostic is None else agnostic
    out = {}
    for setting, value in (("aware", aware), ("agnostic", agnostic)):
        for scope in ("macro", "micro"):
            for stat in ("f1", "precision", "recall"):
                out[f"{setting}/{scope}/{stat}"] = value
        out[f"{setting}/macro/f1_mean"] = value
        for name in ("synergism", "antagonism", "new_effect"):
            out[f"{setting}/{name}/f1"] = value
    out.update(extra)
    return out


def pair_metrics(auroc: float, spread: float = 0.0, aupr: float = 0.5, f1: float = 0.5) -> dict[str, float]:
    """A ChemicalX result: means, standard errors and ten per-split values around ``auroc``."""
    out = {"auroc": auroc, "aupr": aupr, "f1": f1, "auroc/stderr": spread, "aupr/stderr": 0.0, "f1/stderr": 0.0}
    for seed in range(10):
        out[f"seed/{seed}/auroc"] = auroc + (spread if seed % 2 else -spread)
        out[f"seed/{seed}/aupr"] = aupr
        out[f"seed/{seed}/f1"] = f1
    return out


def classification_metrics(ba: float, std: float = 0.01, classes=("inactive", "active")) -> dict[str, float]:
    out = {"balanced_accuracy": ba, "balanced_f1": ba - 0.05, "macro_f1": ba - 0.1, "balanced_accuracy/std": std}
    for name in classes:
        out[f"class/{name}/f1"] = ba - 0.02
        out[f"class/{name}/recall"] = ba
    for seed in range(3):
        out[f"seed/{seed}/balanced_accuracy"] = ba + (seed - 1) * std
    return out


@pytest.fixture
def board_updates_run_at_once(monkeypatch):
    """Run the board-update task in-process when it is enqueued (production sends it to a worker)."""
    from leaderboard.boards import tasks

    sent = []

    def run(args, **options):
        sent.append(tuple(args))
        tasks.refresh_boards.apply(args=args, throw=True)

    monkeypatch.setattr(tasks.refresh_boards, "apply_async", run)
    return sent


def ranked(task_slug: str, direction: str = "default", public: bool | None = True) -> list:
    """The board's rows as the page and exports read them (rank, position computed), as objects."""
    from types import SimpleNamespace

    from leaderboard.boards.models import Board, BoardRow
    from leaderboard.boards.query import Controls, ranked_rows

    board = Board.objects.filter(phase__task_slug=task_slug, direction=direction).first()
    if board is None:
        return []
    teams = list(BoardRow.objects.filter(board=board, is_public=False).values_list("team_id", flat=True).distinct())
    controls = Controls(direction=direction, private=bool(teams), default_direction=direction)
    rows = [SimpleNamespace(**row) for row in ranked_rows(board, controls, teams)]
    return [r for r in rows if public is None or r.is_public == public]
