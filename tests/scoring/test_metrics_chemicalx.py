"""ChemicalX scoring: AUROC, trapezoidal AUPR, F1 at > 0.5, standard error over splits."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from scoring.aligned import PairAligned, PairSeed
from scoring.metrics import chemicalx, compute, curves
from scoring.registry import get_task

TASK = get_task("chemicalx-drugcomb")
CASE_1 = ([0, 0, 1, 1, 0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.5, 0.5, 0.2, 0.9])
CASE_2 = ([1, 0, 1, 0, 0, 0, 1, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.45, 0.3, 0.2, 0.1])


def pair_seed(y, score, context=None) -> PairSeed:
    y = np.asarray(y, dtype=np.int8)
    context = np.zeros(y.size, dtype=np.int32) if context is None else np.asarray(context, dtype=np.int32)
    return PairSeed(y_true=y, score=np.asarray(score, dtype=np.float64), context=context)


def pairs(seeds: dict, contexts=("c0",)) -> PairAligned:
    return PairAligned(seeds=seeds, context_names=tuple(contexts))


@pytest.mark.parametrize(
    "case, auroc, aupr, f1, average_precision",
    [(CASE_1, 0.84375, 0.877083, 0.666667, 0.854167), (CASE_2, 0.625, 0.607143, 0.444444, None)],
)
def test_the_worked_cases_of_benchmarks_md(case, auroc, aupr, f1, average_precision):
    metrics = compute(TASK, pairs({0: pair_seed(*case)})).metrics
    assert metrics["auroc"] == pytest.approx(auroc, abs=5e-7)
    assert metrics["aupr"] == pytest.approx(aupr, abs=5e-7)
    assert metrics["f1"] == pytest.approx(f1, abs=5e-7)
    if average_precision is not None:
        # Average precision is a different number: the board must not show it as AUPR.
        assert average_precision_score(*case) == pytest.approx(average_precision, abs=5e-7)
        assert curves.average_precision(curves.binary_counts(*map(np.asarray, case))) == pytest.approx(
            average_precision, abs=5e-7
        )


def test_a_propensity_of_exactly_one_half_is_predicted_negative():
    y = [1, 1, 0]
    score = [0.5, 0.9, 0.1]
    assert chemicalx.f1_at_threshold(np.array(y), np.array(score)) == pytest.approx(2 / 3)
    # With ">=" the same submission would score 1.0.
    assert chemicalx.f1_at_threshold(np.array(y), np.array(score), threshold=0.4999) == 1.0


def test_f1_is_zero_when_nothing_is_predicted_positive():
    assert chemicalx.f1_at_threshold(np.array([1, 0]), np.array([0.2, 0.1])) == 0.0


def test_the_mean_and_standard_error_cover_ten_splits():
    rng = np.random.default_rng(0)
    seeds = {k: pair_seed(rng.integers(0, 2, 50), rng.random(50)) for k in range(10)}
    metrics = compute(TASK, pairs(seeds)).metrics
    per_split = [roc_auc_score(s.y_true, s.score) for s in seeds.values()]
    assert metrics["auroc"] == pytest.approx(np.mean(per_split))
    assert metrics["auroc/stderr"] == pytest.approx(np.std(per_split, ddof=0) / np.sqrt(10))
    assert metrics["seed/3/auroc"] == pytest.approx(per_split[3])
    assert {"aupr/stderr", "f1/stderr", "seed/9/f1"} <= set(metrics)


def test_a_split_with_one_class_has_no_areas_so_their_means_are_absent():
    seeds = {0: pair_seed(*CASE_1), 1: pair_seed([1, 1, 1], [0.9, 0.8, 0.2])}
    metrics = compute(TASK, pairs(seeds)).metrics
    assert "auroc" not in metrics and "aupr" not in metrics
    assert "seed/1/auroc" not in metrics
    assert metrics["seed/0/auroc"] == pytest.approx(0.84375)
    assert metrics["f1"] == pytest.approx((2 / 3 + 0.8) / 2)


def test_per_context_auroc_lists_contexts_with_both_classes_sorted_by_name():
    y = [0, 1, 0, 1, 1, 1, 0, 1]
    score = [0.1, 0.9, 0.8, 0.3, 0.5, 0.6, 0.4, 0.4]
    context = [2, 2, 2, 2, 1, 1, 0, 0]
    report = compute(TASK, pairs({0: pair_seed(y, score, context)}, ("zeta", "alpha", "mid"))).report
    rows = report["per_context"]
    assert [r["context"] for r in rows] == ["mid", "zeta"]  # "alpha" has positives only
    assert rows[0]["auroc"] == pytest.approx(roc_auc_score([0, 1, 0, 1], [0.1, 0.9, 0.8, 0.3]))
    assert rows[0]["n_rows"] == 4 and rows[0]["n_positive"] == 2
    assert rows[1]["auroc"] == pytest.approx(0.5)  # its only positive and negative are tied
    assert report["per_context_truncated"] is False


def test_the_report_has_downsampled_curves_and_is_plain_json():
    rng = np.random.default_rng(1)
    seeds = {k: pair_seed(rng.integers(0, 2, 5000), rng.random(5000)) for k in range(2)}
    report = compute(TASK, pairs(seeds)).report
    json.dumps(report)
    assert [c["seed"] for c in report["roc"]] == [0, 1]
    for curve in report["roc"]:
        assert len(curve["fpr"]) <= 200 and curve["fpr"][0] == 0.0 and curve["fpr"][-1] == 1.0
    for curve in report["pr"]:
        assert len(curve["recall"]) <= 200 and curve["recall"][-1] == 1.0
    assert report["seeds"][0]["n"] == 5000


def test_a_constant_score_gets_half_of_one_plus_prevalence_as_aupr_but_the_prevalence_as_ap():
    y = [1, 0, 0, 0, 1, 0, 0, 0, 0, 0]  # prevalence 0.2
    metrics = compute(TASK, pairs({0: pair_seed(y, [0.5] * len(y))})).metrics
    assert metrics["aupr"] == pytest.approx((1 + 0.2) / 2)
    assert metrics["average_precision"] == pytest.approx(0.2)
    assert metrics["average_precision"] == pytest.approx(average_precision_score(y, [0.5] * len(y)))
    assert metrics["auroc"] == pytest.approx(0.5)


def test_average_precision_is_shown_but_ranks_nothing():
    keys = [m.key for m in TASK.metrics]
    assert keys.index("average_precision") == keys.index("aupr") + 1
    assert TASK.primary == "auroc"
    assert "average_precision" not in TASK.secondary
