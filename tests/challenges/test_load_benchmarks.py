"""manage.py load_benchmarks [--demo]: standing challenges from the registry, demo truths and baselines."""

from __future__ import annotations

import pytest
from django.core.management import call_command

import scoring
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.submissions.models import Result, Submission

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_it_creates_one_standing_challenge_per_family_and_one_phase_per_task(db):
    call_command("load_benchmarks")
    assert set(Challenge.objects.values_list("slug", flat=True)) == set(scoring.FAMILIES)
    assert set(Phase.objects.values_list("task_slug", flat=True)) == set(scoring.TASKS)
    phase = Phase.objects.get(task_slug="mudi")
    assert phase.challenge.kind == Challenge.Kind.STANDING
    assert (phase.daily_limit, phase.total_limit, phase.ends_at) == (5, 100, None)


def test_it_is_idempotent_and_keeps_limits_an_operator_changed(db):
    call_command("load_benchmarks")
    Phase.objects.filter(task_slug="mudi").update(daily_limit=2)
    call_command("load_benchmarks")
    assert Challenge.objects.count() == len(scoring.FAMILIES)
    assert Phase.objects.count() == len(scoring.TASKS)
    assert Phase.objects.get(task_slug="mudi").daily_limit == 2


@pytest.mark.parametrize("slug", ["imdrug-hiv-random", "chemicalx-drugbankddi"])
def test_demo_loads_a_labelled_synthetic_truth_and_scored_baselines(db, slug, client):
    call_command("load_benchmarks", "--demo", "--task", slug)
    phase = Phase.objects.get(task_slug=slug)
    assert phase.truth_is_synthetic and phase.truth_sha256 and phase.truth_source.startswith("synthetic demo data")
    baselines = Submission.objects.filter(phase=phase, is_baseline=True)
    assert baselines.count() == 1  # Random: a constant prior would be read from the test labels
    assert set(baselines.values_list("status", flat=True)) == {"scored"}
    assert set(baselines.values_list("method_name", flat=True)) == {"Random"}
    assert all(s.team.name == "Baselines" and s.is_public for s in baselines)
    assert b"Synthetic demo data" in client.get(f"/submissions/{baselines.first().pk}/").content

    results = Result.objects.count()
    call_command("load_benchmarks", "--demo", "--task", slug)
    assert Submission.objects.filter(phase=phase).count() == 1
    assert Result.objects.count() == results


def test_demo_builds_oncolypharm_from_the_real_triples(db, shared_data):
    call_command("load_benchmarks", "--demo", "--no-baselines", "--task", "chemicalx-oncolypharm")
    phase = Phase.objects.get(task_slug="chemicalx-oncolypharm")
    assert not phase.truth_is_synthetic
    assert "label > 30 is positive" in phase.truth_source


def test_demo_uses_the_real_mudi_test_set_when_found(db, shared_data, settings):
    settings.SHARED_DATA_DIR = shared_data.parent
    call_command("load_benchmarks", "--demo", "--no-baselines", "--task", "mudi")
    phase = Phase.objects.get(task_slug="mudi")
    assert not phase.truth_is_synthetic
    assert "MUDI test set" in phase.truth_source


def test_demo_falls_back_to_synthetic_mudi_without_the_real_file(db, settings, tmp_path):
    settings.SHARED_DATA_DIR = tmp_path
    call_command("load_benchmarks", "--demo", "--no-challenge", "--task", "mudi")
    phase = Phase.objects.get(task_slug="mudi")
    assert phase.truth_is_synthetic
    assert Submission.objects.filter(phase=phase, status="scored").count() == 1


def test_demo_never_replaces_a_real_truth_imported_by_an_operator(db, tmp_path):
    call_command("load_benchmarks")
    truth = tmp_path / "truth.csv"
    truth.write_text("seed,id,label\n0,m1,0\n0,m2,1\n1,m1,1\n1,m3,0\n2,m1,0\n2,m4,1\n")
    call_command("import_truth", "imdrug-hiv-random", str(truth))
    sha = Phase.objects.get(task_slug="imdrug-hiv-random").truth_sha256
    call_command("load_benchmarks", "--demo", "--task", "imdrug-hiv-random")
    phase = Phase.objects.get(task_slug="imdrug-hiv-random")
    assert phase.truth_sha256 == sha and not phase.truth_is_synthetic
