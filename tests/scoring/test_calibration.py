"""Reliability curves and Brier scores in the reports of binary tasks (scikit-learn's definitions)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss

from scoring.aligned import PairAligned, PairSeed
from scoring.metrics import compute
from scoring.metrics.calibration import reliability
from scoring.registry import get_task


def test_a_worked_case_has_one_point_per_non_empty_bin():
    y = [0, 0, 1, 1, 0, 1]
    p = [0.05, 0.15, 0.15, 0.85, 0.95, 0.95]
    curve = reliability(np.array(y), np.array(p))
    assert curve["mean_predicted"] == pytest.approx([0.05, 0.15, 0.85, 0.95])
    assert curve["fraction_positive"] == pytest.approx([0.0, 0.5, 1.0, 0.5])
    assert curve["count"] == [1, 2, 1, 2]
    assert curve["brier"] == pytest.approx(np.mean((np.array(p) - np.array(y)) ** 2))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.floats(0, 1)), min_size=2, max_size=300))
def test_it_equals_scikit_learn_on_random_probabilities(rows):
    y = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows])
    curve = reliability(y, p)
    if y.all() or not y.any():
        assert curve is None
        return
    fraction, mean = calibration_curve(y, p, n_bins=10)
    assert curve["fraction_positive"] == pytest.approx(list(fraction))
    assert curve["mean_predicted"] == pytest.approx(list(mean))
    assert curve["brier"] == pytest.approx(brier_score_loss(y, p))
    assert sum(curve["count"]) == len(rows)
    assert len(curve["count"]) == len(fraction)


@pytest.mark.parametrize("p", [[0.2, 1.5], [-0.1, 0.5], [0.2, float("nan")]])
def test_values_that_are_not_probabilities_get_no_curve(p):
    assert reliability(np.array([0, 1]), np.array(p)) is None


def test_a_chemicalx_report_has_a_curve_per_split_with_both_classes():
    seeds = {
        0: PairSeed(
            y_true=np.array([0, 1, 1, 0], dtype=np.int8),
            score=np.array([0.1, 0.9, 0.6, 0.3]),
            context=np.zeros(4, dtype=np.int32),
        ),
        1: PairSeed(
            y_true=np.array([1, 1], dtype=np.int8), score=np.array([0.1, 0.9]), context=np.zeros(2, dtype=np.int32)
        ),
    }
    report = compute(get_task("chemicalx-drugcomb"), PairAligned(seeds=seeds, context_names=("c0",))).report
    assert [c["seed"] for c in report["calibration"]] == [0]
    assert report["calibration"][0]["count"] == [1, 1, 1, 1]


def test_a_binary_imdrug_report_has_a_curve_and_a_multiclass_one_none():
    from scoring.aligned import ClassificationAligned, ClassificationSeed

    def seed(y, proba):
        y = np.asarray(y)
        proba = np.asarray(proba, float)
        return ClassificationSeed(np.arange(y.size), y, proba.argmax(axis=1), proba)

    binary = ClassificationAligned(
        seeds={0: seed([0, 1, 1, 0], [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.7, 0.3]])}, class_names=("0", "1")
    )
    report = compute(get_task("imdrug-hiv-random"), binary).report
    assert report["calibration"][0]["mean_predicted"] == pytest.approx([0.1, 0.3, 0.4, 0.8])
    three = ClassificationAligned(
        seeds={0: seed([0, 1, 2], [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])}, class_names=("a", "b", "c")
    )
    assert compute(get_task("imdrug-sbap-random"), three).report["calibration"] == []
