"""ImDrug scoring: balanced accuracy, balanced F1, OvR AUROC, MSE/MAE, seeds."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import f1_score, roc_auc_score

from scoring.aligned import ClassificationAligned, ClassificationSeed, RegressionAligned, RegressionSeed
from scoring.metrics import compute, imdrug
from scoring.registry import get_task

HIV = get_task("imdrug-hiv-random")
USPTO = get_task("imdrug-uspto50k-random")
SBAP = get_task("imdrug-sbap-regression")

CASE_1 = ([0, 0, 0, 1, 2, 2, 2, 2, 2, 2], [0, 0, 1, 1, 0, 1, 1, 2, 2, 2])
CASE_2 = ([0, 1, 1], [0, 0, 1])
CASE_3 = ([0, 0, 1, 1], [0, 2, 1, 1])


def seed(y_true, y_pred, proba=None) -> ClassificationSeed:
    y_true = np.asarray(y_true)
    ids = np.array([f"row{i}" for i in range(y_true.size)], dtype=object)
    return ClassificationSeed(ids, y_true, np.asarray(y_pred), None if proba is None else np.asarray(proba, float))


def classification(seeds: dict, class_names) -> ClassificationAligned:
    return ClassificationAligned(seeds=seeds, class_names=tuple(class_names))


def three_classes(*seeds_) -> ClassificationAligned:
    return classification(dict(enumerate(seeds_)), ("a", "b", "c"))


@pytest.mark.parametrize(
    "case, balanced_f1, balanced_accuracy",
    [(CASE_1, 0.714646, 0.722222), (CASE_2, 0.733333, 0.75), (CASE_3, 0.555556, 0.75)],
)
def test_the_worked_cases_of_benchmarks_md(case, balanced_f1, balanced_accuracy):
    metrics = compute(USPTO, classification({0: seed(*case)}, USPTO.classes)).metrics
    assert metrics["balanced_f1"] == pytest.approx(balanced_f1, abs=5e-7)
    assert metrics["balanced_accuracy"] == pytest.approx(balanced_accuracy, abs=5e-7)


def test_sklearn_macro_f1_differs_from_balanced_f1_on_the_first_case():
    metrics = compute(USPTO, classification({0: seed(*CASE_1)}, USPTO.classes)).metrics
    assert metrics["macro_f1"] == pytest.approx(0.577778, abs=5e-7)
    assert metrics["macro_f1"] == pytest.approx(f1_score(*CASE_1, average="macro"))


def test_balanced_precision_uses_the_row_normalised_matrix():
    cm = imdrug.confusion_matrix(np.array(CASE_1[0]), np.array(CASE_1[1]), 3)
    precision, recall = imdrug.balanced_precision_recall(cm)
    assert precision.tolist() == pytest.approx([0.8, 0.6, 1.0])
    assert recall.tolist() == pytest.approx([2 / 3, 1.0, 0.5])


def test_a_class_only_predicted_counts_zero_in_balanced_f1_but_not_in_balanced_accuracy():
    cm = imdrug.confusion_matrix(np.array(CASE_3[0]), np.array(CASE_3[1]), 3)
    assert imdrug.balanced_f1(cm) == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert imdrug.balanced_accuracy(cm) == pytest.approx(0.75)


def test_seeds_are_averaged_with_population_std_and_listed():
    data = three_classes(seed(*CASE_1), seed(*CASE_2), seed(*CASE_3))
    metrics = compute(USPTO, data).metrics
    values = [0.7146464646, 0.7333333333, 0.5555555556]
    assert metrics["balanced_f1"] == pytest.approx(np.mean(values))
    assert metrics["balanced_f1/std"] == pytest.approx(np.std(values, ddof=0))
    assert metrics["seed/1/balanced_f1"] == pytest.approx(0.7333333333)
    assert metrics["balanced_accuracy/std"] == pytest.approx(np.std([0.7222222222, 0.75, 0.75]))


def test_auroc_is_absent_without_probabilities():
    metrics = compute(HIV, classification({0: seed([0, 1, 1], [0, 1, 0])}, HIV.classes)).metrics
    assert "auroc" not in metrics
    assert "auroc/std" not in metrics
    assert "seed/0/auroc" not in metrics


def test_binary_auroc_is_the_ordinary_auroc_of_the_positive_column():
    y = [0, 0, 1, 1, 0, 1]
    positive = [0.1, 0.4, 0.35, 0.8, 0.5, 0.5]
    # The negative column is deliberately not 1 - p: only the positive column counts.
    proba = np.column_stack([np.full(6, 0.3), positive])
    metrics = compute(HIV, classification({0: seed(y, [0] * 6, proba)}, HIV.classes)).metrics
    assert metrics["auroc"] == pytest.approx(roc_auc_score(y, positive))


def test_multiclass_auroc_matches_sklearn_ovr_macro_when_every_class_is_present():
    rng = np.random.default_rng(3)
    y = np.array([0, 1, 2] * 10)
    proba = rng.random((30, 3))
    proba /= proba.sum(axis=1, keepdims=True)
    metrics = compute(USPTO, three_classes(seed(y, y, proba))).metrics
    expected = roc_auc_score(y, proba, multi_class="ovr", average="macro")
    assert metrics["auroc"] == pytest.approx(expected)


def test_a_class_absent_from_gold_scores_one_half_in_multiclass_auroc():
    y = np.array([0, 0, 1, 1])
    proba = np.array([[0.9, 0.05, 0.05], [0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.8, 0.1]])
    metrics = compute(USPTO, three_classes(seed(y, y, proba))).metrics
    assert metrics["auroc"] == pytest.approx((1.0 + 1.0 + 0.5) / 3)


def test_a_seed_with_one_gold_class_has_no_auroc_so_the_mean_is_absent():
    good = seed([0, 1], [0, 1], [[0.9, 0.1], [0.2, 0.8]])
    single = seed([1, 1], [1, 1], [[0.1, 0.9], [0.2, 0.8]])
    metrics = compute(HIV, classification({0: good, 1: single}, HIV.classes)).metrics
    assert metrics["seed/0/auroc"] == 1.0
    assert "seed/1/auroc" not in metrics
    assert "auroc" not in metrics
    assert metrics["balanced_accuracy"] == 1.0


def test_per_class_recall_and_f1_are_reported_by_class_name():
    metrics = compute(USPTO, classification({0: seed(*CASE_1)}, USPTO.classes)).metrics
    first, second = USPTO.classes[0], USPTO.classes[1]
    assert metrics[f"class/{first}/recall"] == pytest.approx(2 / 3)
    assert metrics[f"class/{second}/f1"] == pytest.approx(0.4)
    assert f"class/{USPTO.classes[5]}/recall" not in metrics
    assert f"class/{first}/recall/std" in metrics


def test_recall_of_a_class_without_gold_rows_is_absent_but_its_f1_is_zero():
    metrics = compute(USPTO, classification({0: seed(*CASE_3)}, USPTO.classes)).metrics
    third = USPTO.classes[2]
    assert f"class/{third}/recall" not in metrics
    assert metrics[f"class/{third}/f1"] == 0.0


def test_the_classification_report_has_tables_and_a_summed_confusion_matrix():
    proba = np.eye(3)[np.array(CASE_1[1])] * 0.8 + 0.1
    data = three_classes(seed(*CASE_1, proba), seed(*CASE_1, proba))
    report = compute(USPTO, data).report
    json.dumps(report)
    matrix = report["confusion_matrix"]["matrix"]
    assert matrix == [[4, 2, 0], [0, 2, 0], [2, 4, 6]]
    assert [row["class"] for row in report["per_class"]] == ["a", "b", "c"]
    assert report["per_class"][0]["support"] == 6
    assert report["per_class"][0]["balanced_precision"] == pytest.approx(0.8)
    assert len(report["roc"]) == 6  # 2 seeds x 3 classes
    assert all(len(curve["fpr"]) <= 200 for curve in report["roc"])
    assert [s["seed"] for s in report["seeds"]] == [0, 1]


def test_regression_reports_mse_and_mae_with_std_over_seeds():
    seeds = {
        0: RegressionSeed(np.array(["x", "y"], dtype=object), np.array([1.0, 2.0]), np.array([2.0, 2.0])),
        1: RegressionSeed(np.array(["x", "y"], dtype=object), np.array([1.0, 2.0]), np.array([3.0, 4.0])),
    }
    result = compute(SBAP, RegressionAligned(seeds=seeds))
    metrics = result.metrics
    assert metrics["seed/0/mse"] == 0.5
    assert metrics["seed/1/mse"] == 4.0
    assert metrics["mse"] == pytest.approx(2.25)
    assert metrics["mse/std"] == pytest.approx(1.75)
    assert metrics["mae"] == pytest.approx((0.5 + 2.0) / 2)
    json.dumps(result.report)
    assert result.report["scatter"][0]["y_true"] == [1.0, 2.0]


def test_compute_rejects_a_container_of_the_wrong_kind():
    with pytest.raises(TypeError):
        compute(SBAP, three_classes(seed(*CASE_1)))
