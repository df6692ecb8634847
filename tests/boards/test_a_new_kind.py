"""Adding a benchmark kind touches scoring only: a toy kind registered here gets every page and make run's data.

The kind below exists only in this test. It reads ImDrug-style regression files
and scores the largest absolute error per seed; nothing under leaderboard/ or
templates/ knows about it. With no site module it gets the site's defaults
(``leaderboard.kinds.registry``), a synthetic demo truth included, so the steps
``make run`` takes before serving work for it; a site module, when it has one,
adds baselines and its own demo truth through the same registry.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from django.core.management import call_command

import scoring
from leaderboard.kinds import registry as site_registry
from leaderboard.kinds.registry import SITE_KINDS, SYNTHETIC_ROWS, Baseline, DemoTruth, SiteKind
from scoring import registry
from scoring.aligned import MetricsResult, RegressionAligned
from scoring.keys import MetricDef
from scoring.kinds import KINDS, Kind, register
from scoring.metrics.seeds import summarise_seeds
from scoring.validation import imdrug
from tests.boards.conftest import phase_for, scored, with_truth
from tests.boards.test_board_charts import chart_ids

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

SLUG = "toy-affinity"


def _compute(aligned: RegressionAligned) -> MetricsResult:
    per_seed = {}
    for seed, rows in aligned.seeds.items():
        error = np.abs(np.asarray(rows.y_pred, dtype=float) - np.asarray(rows.y_true, dtype=float))
        per_seed[seed] = {"max_error": float(error.max()), "median_error": float(np.median(error))}
    metrics = summarise_seeds(per_seed, "std", headline=("max_error", "median_error"))
    return MetricsResult(metrics=metrics, report={})


TOY = Kind(
    name="toy",
    aligned=RegressionAligned,
    load_truth=imdrug.load_regression_truth,
    read_prediction=imdrug.read_regression_prediction,
    align=imdrug.align_regression,
    compute=_compute,
    example_value=lambda task: 1.5,
)


@pytest.fixture
def toy(db, monkeypatch):
    """The toy kind, a family and one task of it in the registries, then the standing phases."""
    from leaderboard.challenges.services import sync_standing_challenges

    register(TOY)
    family = registry.Family("toy", "Toy", "A benchmark kind that exists only in a test.", "Nobody (2026).", "")
    task = registry.Task(
        slug=SLUG,
        family="toy",
        dataset="affinity",
        dataset_name="Toy affinity",
        split="random",
        kind="toy",
        classes=(),
        truth_columns=("seed", "id", "label"),
        prediction_columns=("seed", "id", "prediction"),
        optional_prediction_columns=(),
        metrics=(
            MetricDef("max_error", "Max error", False, "largest absolute error, mean over seeds"),
            MetricDef("median_error", "Median error", False, "median absolute error, mean over seeds"),
        ),
        primary="max_error",
        secondary=("median_error",),
        seeds=(0, 1),
        spread="std",
        citation="Nobody (2026).",
        paper_url="",
    )
    monkeypatch.setitem(registry.FAMILIES, "toy", family)
    monkeypatch.setitem(registry.TASKS, SLUG, task)
    sync_standing_challenges()
    yield task
    KINDS.pop("toy")
    SITE_KINDS.pop("toy", None)


TRUTH = b"seed,id,label\n0,a,1.0\n0,b,2.0\n1,a,1.5\n1,b,3.0\n"


def prediction(offset: float) -> bytes:
    return f"seed,id,prediction\n0,a,{1 + offset}\n0,b,2.0\n1,a,1.5\n1,b,{3 - offset}\n".encode()


def test_a_registered_kind_scores_through_the_public_api(toy):
    truth = scoring.load_truth(SLUG, TRUTH)
    score = scoring.score_files(SLUG, truth, prediction(0.25))
    assert score.primary_value == pytest.approx(0.25)
    assert toy.metric("seed/1/max_error").name == "Max error, seed 1"


def test_a_registered_kind_gets_a_board_an_export_and_its_charts(client, toy, alice_lab, charlie):
    phase = with_truth(SLUG, TRUTH)
    scored(phase, alice_lab, "Close", file=prediction(0.1))
    scored(phase, charlie.personal_team, "Far", file=prediction(0.5), minutes=5)

    board = client.get(f"/tasks/{SLUG}/")
    assert board.status_code == 200
    html = board.content.decode()
    assert "Max error" in html and "Median error" in html
    assert html.index("Close") < html.index("Far")  # lower is better
    assert chart_ids(html) == ["seeds", "progression"]

    export = client.get(f"/tasks/{SLUG}/leaderboard.csv").getvalue().decode()
    header, first, second = export.splitlines()[:3]
    assert "max_error" in header and "max_error/std" in header
    assert "Close" in first and "Far" in second


def test_a_registered_kind_gets_a_submit_page_and_an_example_file(client, toy, alice):
    with_truth(SLUG, TRUTH)
    client.force_login(alice)
    page = client.get(f"/tasks/{SLUG}/submit/")
    assert page.status_code == 200
    assert "prediction" in page.content.decode()
    example = client.get(f"/tasks/{SLUG}/example.csv").content.decode()
    assert example.splitlines()[:2] == ["seed,id,prediction", "0,a,1.5"]
    assert phase_for(SLUG).task.kind_def is TOY


def make_run_steps(task_slug: str) -> str:
    """What ``make run`` does before it serves (collectstatic aside), for one task; the commands' output."""
    out = io.StringIO()
    call_command("migrate", "--noinput", verbosity=0, stdout=out)
    call_command("ensure_demo_user", stdout=out)
    call_command("load_benchmarks", "--demo", "--task", task_slug, stdout=out)
    call_command("recompute_boards", stdout=out)
    return out.getvalue()


def test_make_runs_steps_give_a_kind_without_a_site_module_a_synthetic_truth(
    client, toy, alice_lab, settings, tmp_path
):
    settings.DEBUG = True  # as make run has it (the demo account is refused otherwise)
    settings.SHARED_DATA_DIR = tmp_path  # no data of the toy's anywhere
    output = make_run_steps(SLUG)
    assert f"{SLUG}: synthetic truth imported" in output
    phase = phase_for(SLUG)
    assert phase.has_truth and phase.truth_is_synthetic
    assert phase.truth_source.startswith("synthetic demo data")

    # The kind has no baselines; an entry built from the demo truth's example file is scored and ranked.
    assert client.get(f"/tasks/{SLUG}/").status_code == 200
    example = client.get(f"/tasks/{SLUG}/example.csv").content
    assert example.splitlines()[0] == b"seed,id,prediction" and len(example.splitlines()) == 1 + 2 * SYNTHETIC_ROWS
    scored(phase, alice_lab, "Constant", file=example, rebuild=False)
    assert f"rebuilt {phase}" in make_run_steps(SLUG)
    html = client.get(f"/tasks/{SLUG}/").content.decode()
    assert "Constant" in html and "Synthetic demo labels" in html


def _toy_truth(task, rng, target):
    frame = pd.DataFrame({"seed": np.repeat(task.seeds, 50), "id": [f"m{i}" for i in range(50)] * len(task.seeds)})
    frame.assign(label=rng.normal(size=len(frame))).to_csv(target, index=False)
    return DemoTruth(target, True, "synthetic toy affinities")


def _toy_baselines(task, inputs, rng):
    return [Baseline("Zero", "Zero for every row.", inputs.assign(prediction=0.0))]


def test_a_site_module_adds_its_demo_truth_and_baselines_through_the_registry(client, toy, settings, tmp_path):
    settings.DEBUG = True
    settings.SHARED_DATA_DIR = tmp_path
    site_registry.register(SiteKind(kind=TOY, demo_truth=_toy_truth, baselines=_toy_baselines))
    output = make_run_steps(SLUG)
    assert "synthetic toy affinities" in output
    phase = phase_for(SLUG)
    assert phase.truth_source == "synthetic toy affinities"
    baseline = phase.submissions.get(is_baseline=True)
    assert (baseline.method_name, baseline.status) == ("Zero", "scored")
    html = client.get(f"/tasks/{SLUG}/").content.decode()
    assert "Zero" in html
