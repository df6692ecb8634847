"""Holm's correction and the paired t-test over seeds (scoring.multiple)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats  # installed with scikit-learn (requirements-dev.txt), the reference only

from scoring.multiple import holm_adjust, paired_seed_test


def test_holm_matches_the_hand_worked_case() -> None:
    # Sorted: 0.005 x4 = 0.02; 0.01 x3 = 0.03; 0.03 x2 = 0.06; 0.04 x1 = 0.04, raised to the running max 0.06.
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_rejects_exactly_what_the_step_down_procedure_rejects() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        p = list(rng.random(rng.integers(1, 46)) ** 3)
        adjusted = holm_adjust(p)
        order = sorted(range(len(p)), key=lambda i: p[i])
        rejected = set()
        for rank, i in enumerate(order):
            if p[i] >= 0.05 / (len(p) - rank):
                break
            rejected.add(i)
        assert {i for i, a in enumerate(adjusted) if a < 0.05} == rejected


def test_holm_caps_at_one_and_keeps_the_order_of_the_raw_values() -> None:
    adjusted = holm_adjust([0.5, 0.9, 0.2])
    assert adjusted == pytest.approx([1.0, 1.0, 0.6])
    assert holm_adjust([]) == []


def test_holm_refuses_a_value_that_is_not_a_probability() -> None:
    with pytest.raises(ValueError, match="p-value"):
        holm_adjust([0.1, 1.2])


@pytest.mark.parametrize("n_seeds", [2, 3, 5, 10])
def test_the_seed_test_equals_scipys_paired_t_test(n_seeds: int) -> None:
    rng = np.random.default_rng(n_seeds)
    for _ in range(50):
        a = rng.random(n_seeds)
        b = a - rng.normal(0.02, 0.03, n_seeds)
        outcome = paired_seed_test(list(a), list(b))
        reference = stats.ttest_rel(a, b)
        assert outcome.p_value == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-12)
        assert outcome.delta == pytest.approx(float(np.mean(a - b)))
        assert outcome.n_seeds == n_seeds


def test_identical_seed_values_are_not_different() -> None:
    assert paired_seed_test([0.7, 0.8, 0.75], [0.7, 0.8, 0.75]).p_value == 1.0


def test_the_same_difference_on_every_seed_is_certain() -> None:
    outcome = paired_seed_test([0.7, 0.8, 0.75], [0.6, 0.7, 0.65])
    assert outcome.p_value == 0.0
    assert math.isclose(outcome.delta, 0.1)


def test_the_seed_test_needs_two_seeds_and_finite_values() -> None:
    with pytest.raises(ValueError, match="two seeds"):
        paired_seed_test([0.5], [0.4])
    with pytest.raises(ValueError, match="not finite"):
        paired_seed_test([0.5, float("nan")], [0.4, 0.3])
    with pytest.raises(ValueError, match="same seeds"):
        paired_seed_test([0.5, 0.6], [0.4])
