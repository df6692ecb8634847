"""Statistics from stored replicates: exact agreement with the from-files bootstrap, coverage, the bound."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.aligned import ClassificationAligned, ClassificationSeed, MudiAligned, RegressionAligned, RegressionSeed
from scoring.multiple import paired_seed_test
from scoring.registry import get_task
from scoring.replicates import (
    PAIR_LEVEL,
    Replicates,
    beyond_reach,
    bootstrap_replicates,
    pair_test,
    percentile_interval,
    ranking_task,
    replicate_reach,
    resample_seed,
    seed_interval,
    seed_pair_test,
    seed_reach,
)
from scoring.significance import paired_bootstrap

MUDI = get_task("mudi")
HIV = get_task("imdrug-hiv-random")
SBAP = get_task("imdrug-sbap-regression")


def mudi_submission(gold: np.ndarray, noise: float, seed: int) -> MudiAligned:
    rng = np.random.default_rng(seed)
    n = gold.size
    a = np.arange(n, dtype=np.int32)
    b = a + n
    label = np.where(rng.random(n) < noise, rng.integers(0, 4, n), gold).astype(np.int8)
    names = tuple(f"DB{i:05d}" for i in range(2 * n))
    return MudiAligned(a, b, gold, a, b, label, names)


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(20, 200),
    noise_a=st.floats(0, 1),
    noise_b=st.floats(0, 1),
    seed=st.integers(0, 2**32),
    setting=st.sampled_from(["aware/macro/f1", "agnostic/macro/f1"]),
)
def test_replicate_p_values_equal_the_from_files_bootstrap_on_mudi(n, noise_a, noise_b, seed, setting):
    gold = np.random.default_rng(seed).integers(0, 3, n).astype(np.int8)
    a, b = mudi_submission(gold, noise_a, seed + 1), mudi_submission(gold, noise_b, seed + 2)
    files = paired_bootstrap(ranking_task(MUDI, setting), a, b, n_resamples=300, seed=seed)
    stored = pair_test(
        bootstrap_replicates(MUDI, a, setting, seed=seed, n_resamples=300),
        bootstrap_replicates(MUDI, b, setting, seed=seed, n_resamples=300),
    )
    assert stored.p_value == files.p_value
    assert stored.delta == files.delta
    assert stored.n == files.n_resamples


@settings(max_examples=10, deadline=None)
@given(n=st.integers(10, 120), seed=st.integers(0, 2**32))
def test_replicate_p_values_equal_the_from_files_bootstrap_over_seeds(n, seed):
    rng = np.random.default_rng(seed)
    good, rough = {}, {}
    for k in range(3):
        y = rng.integers(0, 2, n)
        ids = np.arange(n).astype(str).astype(object)
        good[k] = ClassificationSeed(ids, y, np.where(rng.random(n) < 0.2, 1 - y, y), None)
        rough[k] = ClassificationSeed(ids, y, rng.integers(0, 2, n), None)
    a, b = ClassificationAligned(good, HIV.classes), ClassificationAligned(rough, HIV.classes)
    files = paired_bootstrap(HIV, a, b, n_resamples=200, seed=seed)
    stored = pair_test(
        bootstrap_replicates(HIV, a, HIV.primary, seed=seed, n_resamples=200),
        bootstrap_replicates(HIV, b, HIV.primary, seed=seed, n_resamples=200),
    )
    assert (stored.p_value, stored.delta, stored.n) == (files.p_value, files.delta, files.n_resamples)


def test_stored_replicates_survive_their_bytes():
    gold = np.random.default_rng(0).integers(0, 3, 50).astype(np.int8)
    reps = bootstrap_replicates(MUDI, mudi_submission(gold, 0.3, 1), MUDI.primary, seed=5, n_resamples=100)
    again = Replicates.from_bytes(reps.metric, reps.observed, reps.to_bytes(), reps.n_units, reps.seed)
    assert np.array_equal(again.sums, reps.sums)


def test_the_resampling_seed_depends_on_the_truth_alone():
    assert resample_seed("abc") == resample_seed("abc")
    assert resample_seed("abc") != resample_seed("abd")


def test_replicates_of_other_truths_are_not_compared():
    gold = np.random.default_rng(0).integers(0, 3, 50).astype(np.int8)
    sub = mudi_submission(gold, 0.3, 1)
    one = bootstrap_replicates(MUDI, sub, MUDI.primary, seed=1, n_resamples=50)
    other = bootstrap_replicates(MUDI, sub, MUDI.primary, seed=2, n_resamples=50)
    try:
        pair_test(one, other)
    except ValueError as error:
        assert "different truths" in str(error)
    else:
        raise AssertionError("compared replicates of different resamples")


def test_bootstrap_intervals_cover_the_true_mean_absolute_error_in_93_to_97_percent_of_400_runs():
    # One-seed regression view: MAE of errors drawn from N(0, 1), whose true MAE is sqrt(2 / pi).
    task = replace(ranking_task(SBAP, "mae"), seeds=(0,))
    truth = float(np.sqrt(2 / np.pi))
    rng = np.random.default_rng(2026)
    covered = 0
    n = 1000
    for run in range(400):
        y = np.zeros(n)
        aligned = RegressionAligned({0: RegressionSeed(np.arange(n).astype(str).astype(object), y, rng.normal(size=n))})
        interval = percentile_interval(bootstrap_replicates(task, aligned, "mae", seed=run).values)
        assert interval is not None
        covered += interval[0] <= truth <= interval[1]
    assert 372 <= covered <= 388, covered


def test_seed_intervals_cover_the_true_value_in_93_to_97_percent_of_400_runs():
    rng = np.random.default_rng(7)
    covered = sum(
        (lambda low_high: low_high[0] <= 0.7 <= low_high[1])(seed_interval(rng.normal(0.7, 0.05, size=3)))
        for _ in range(400)
    )
    assert 372 <= covered <= 388, covered


@settings(max_examples=200, deadline=None)
@given(
    a=st.lists(st.floats(-5, 5), min_size=3, max_size=3),
    b=st.lists(st.floats(-5, 5), min_size=3, max_size=3),
)
def test_pairs_beyond_reach_are_significant_over_seeds(a, b):
    if beyond_reach(float(np.mean(a)), seed_reach(a), float(np.mean(b)), seed_reach(b)):
        assert paired_seed_test(a, b).p_value < PAIR_LEVEL
        assert seed_pair_test(a, b).significant


@settings(max_examples=30, deadline=None)
@given(noise_a=st.floats(0, 1), noise_b=st.floats(0, 1), seed=st.integers(0, 1000))
def test_pairs_beyond_reach_are_significant_by_bootstrap(noise_a, noise_b, seed):
    gold = np.random.default_rng(seed).integers(0, 3, 60).astype(np.int8)
    a = bootstrap_replicates(MUDI, mudi_submission(gold, noise_a, seed + 1), MUDI.primary, seed=seed)
    b = bootstrap_replicates(MUDI, mudi_submission(gold, noise_b, seed + 2), MUDI.primary, seed=seed)
    if beyond_reach(a.observed, replicate_reach(a), b.observed, replicate_reach(b)):
        assert pair_test(a, b).significant
