"""Paired bootstrap on the primary metric, on synthetic submissions."""

from __future__ import annotations

import numpy as np
import pytest

from scoring import significance
from scoring.aligned import (
    ClassificationAligned,
    ClassificationSeed,
    MudiAligned,
    PairAligned,
    PairSeed,
    RegressionAligned,
    RegressionSeed,
)
from scoring.metrics import compute, mudi
from scoring.registry import get_task
from scoring.significance import Bootstrap, bootstrap_indistinguishable, paired_bootstrap

MUDI = get_task("mudi")
HIV = get_task("imdrug-hiv-random")
SBAP = get_task("imdrug-sbap-regression")
PAIR = get_task("chemicalx-twosides")


def mudi_pair(n_pairs: int = 400, noise: float = 1.0, seed: int = 0) -> tuple[MudiAligned, MudiAligned]:
    """A perfect MUDI submission and one with ``noise`` of its labels randomised."""
    rng = np.random.default_rng(seed)
    a = np.arange(n_pairs, dtype=np.int32)
    b = a + n_pairs
    gold = rng.integers(0, 3, n_pairs).astype(np.int8)
    noisy = np.where(rng.random(n_pairs) < noise, rng.integers(0, 4, n_pairs), gold).astype(np.int8)
    names = tuple(f"DB{i:05d}" for i in range(2 * n_pairs))
    return MudiAligned(a, b, gold, a, b, gold, names), MudiAligned(a, b, gold, b, a, noisy, names)


def classification_pair(n: int = 300) -> tuple[ClassificationAligned, ClassificationAligned]:
    rng = np.random.default_rng(1)
    seeds_good, seeds_random = {}, {}
    for k in range(3):
        y = rng.integers(0, 2, n)
        ids = np.arange(n).astype(str).astype(object)
        seeds_good[k] = ClassificationSeed(ids, y, y, None)
        seeds_random[k] = ClassificationSeed(ids, y, rng.integers(0, 2, n), None)
    names = HIV.classes
    return ClassificationAligned(seeds_good, names), ClassificationAligned(seeds_random, names)


def test_identical_submissions_have_p_value_one():
    perfect, _ = mudi_pair()
    result = paired_bootstrap(MUDI, perfect, perfect, n_resamples=200)
    assert result == Bootstrap("aware/macro/f1", 1.0, 1.0, 0.0, 1.0, 200)


def test_a_perfect_mudi_submission_beats_a_random_one():
    perfect, noisy = mudi_pair()
    result = paired_bootstrap(MUDI, perfect, noisy, n_resamples=300)
    assert result.observed_a == 1.0
    assert result.observed_b == compute(MUDI, noisy).metrics["aware/macro/f1"]
    assert result.delta > 0.5
    assert result.p_value < 0.05
    assert result.p_value == pytest.approx(1 / 301)
    assert not bootstrap_indistinguishable(MUDI, perfect, noisy, n_resamples=300)


def test_two_similar_mudi_submissions_are_indistinguishable():
    # Same gold; the second submission answers "No Interaction" on 3 of the 400 pairs.
    _, base = mudi_pair(noise=0.3, seed=3)
    label = np.where(np.arange(400) < 3, 3, base.pred_label).astype(np.int8)
    tweaked = MudiAligned(base.gold_a, base.gold_b, base.gold_label, base.pred_a, base.pred_b, label, base.drug_names)
    assert bootstrap_indistinguishable(MUDI, base, tweaked, n_resamples=300)


def test_the_bootstrap_is_deterministic_for_a_seed():
    perfect, noisy = mudi_pair(noise=0.5)
    first = paired_bootstrap(MUDI, noisy, perfect, n_resamples=100, seed=7)
    again = paired_bootstrap(MUDI, noisy, perfect, n_resamples=100, seed=7)
    assert first == again


def test_mudi_counts_with_unit_weights_reproduce_the_metric():
    _, noisy = mudi_pair(noise=0.5)
    counts = mudi.pair_counts(noisy)
    scores = mudi.scores_from_counts(counts.totals())
    assert float(scores[MUDI.primary]) == compute(MUDI, noisy).metrics[MUDI.primary]


def test_multi_seed_classification_resamples_within_each_seed():
    good, random = classification_pair()
    result = paired_bootstrap(HIV, good, random, n_resamples=200)
    assert result.metric == "balanced_accuracy"
    assert result.observed_a == 1.0
    assert result.observed_b == pytest.approx(compute(HIV, random).metrics["balanced_accuracy"])
    assert result.p_value < 0.05
    assert paired_bootstrap(HIV, random, random, n_resamples=50).p_value == 1.0


def test_regression_compares_mse():
    rng = np.random.default_rng(2)
    seeds_a, seeds_b = {}, {}
    for k in range(3):
        y = rng.normal(size=200)
        ids = np.arange(200).astype(str).astype(object)
        seeds_a[k] = RegressionSeed(ids, y, y + rng.normal(scale=0.1, size=200))
        seeds_b[k] = RegressionSeed(ids, y, y + rng.normal(scale=2.0, size=200))
    result = paired_bootstrap(SBAP, RegressionAligned(seeds_a), RegressionAligned(seeds_b), n_resamples=200)
    assert result.delta < 0  # lower MSE is better; the sign is simply a - b
    assert result.p_value < 0.05


def test_pair_tasks_compare_auroc_over_splits():
    rng = np.random.default_rng(4)
    seeds_a, seeds_b = {}, {}
    for k in range(10):
        y = rng.integers(0, 2, 200).astype(np.int8)
        context = np.zeros(200, dtype=np.int32)
        seeds_a[k] = PairSeed(y, np.clip(y * 0.6 + rng.random(200) * 0.4, 0, 1), context)
        seeds_b[k] = PairSeed(y, rng.random(200), context)
    a, b = PairAligned(seeds_a, ("c",)), PairAligned(seeds_b, ("c",))
    result = paired_bootstrap(PAIR, a, b, n_resamples=100)
    assert result.observed_a == compute(PAIR, a).metrics["auroc"]
    assert result.p_value < 0.05
    assert paired_bootstrap(PAIR, b, b, n_resamples=20).p_value == 1.0


def test_an_undefined_primary_metric_is_an_error():
    y = np.ones(5, dtype=np.int8)
    one_class = PairAligned({0: PairSeed(y, np.full(5, 0.7), np.zeros(5, dtype=np.int32))}, ("c",))
    with pytest.raises(ValueError):
        paired_bootstrap(PAIR, one_class, one_class, n_resamples=10)


def test_the_pair_bootstrap_depends_on_its_seed_but_not_on_the_number_of_threads(monkeypatch):
    rng = np.random.default_rng(5)
    seeds_a, seeds_b = {}, {}
    for k in range(4):
        y = rng.integers(0, 2, 300).astype(np.int8)
        context = np.zeros(300, dtype=np.int32)
        seeds_a[k] = PairSeed(y, np.round(np.clip(y * 0.2 + rng.random(300) * 0.8, 0, 1), 2), context)
        seeds_b[k] = PairSeed(y, np.round(np.clip(y * 0.18 + rng.random(300) * 0.82, 0, 1), 2), context)
    a, b = PairAligned(seeds_a, ("c",)), PairAligned(seeds_b, ("c",))
    monkeypatch.setattr(significance, "MAX_THREADS", 1)
    alone = paired_bootstrap(PAIR, a, b, n_resamples=60, seed=3)
    monkeypatch.setattr(significance, "MAX_THREADS", 4)
    assert paired_bootstrap(PAIR, a, b, n_resamples=60, seed=3) == alone
    assert paired_bootstrap(PAIR, a, b, n_resamples=60, seed=4) != alone
