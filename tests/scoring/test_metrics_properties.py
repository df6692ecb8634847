"""Property tests: our vectorised metrics equal scikit-learn wherever the definitions coincide."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import (
    auc,
    balanced_accuracy_score,
    f1_score,
    precision_recall_curve,
    precision_recall_fscore_support,
    roc_auc_score,
)

from scoring.aligned import MudiAligned
from scoring.metrics import curves, imdrug, mudi

# scikit-learn warns about degenerate label sets that are exactly the cases we want to compare.
pytestmark = pytest.mark.filterwarnings(
    "ignore:y_pred contains classes not in y_true", "ignore:A single label was found"
)

FEW = settings(max_examples=100, deadline=None)
# Scores from a small grid, so ties are common.
TIED_SCORES = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0])


@st.composite
def binary_scores(draw, min_size=2, max_size=60):
    n = draw(st.integers(min_size, max_size))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    score = draw(st.lists(TIED_SCORES | st.floats(0, 1), min_size=n, max_size=n))
    return np.array(y), np.array(score)


@st.composite
def labels(draw, n_classes=4, max_size=60):
    n = draw(st.integers(1, max_size))
    y_true = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    y_pred = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    return np.array(y_true), np.array(y_pred)


@FEW
@given(labels())
def test_balanced_accuracy_equals_sklearn(case):
    y_true, y_pred = case
    cm = imdrug.confusion_matrix(y_true, y_pred, 4)
    assert np.isclose(imdrug.balanced_accuracy(cm), balanced_accuracy_score(y_true, y_pred))


@FEW
@given(labels())
def test_macro_f1_over_gold_or_predicted_labels_equals_sklearn(case):
    y_true, y_pred = case
    cm = imdrug.confusion_matrix(y_true, y_pred, 4)
    _, _, f1 = imdrug.sklearn_per_class(cm)
    used = (cm.sum(axis=0) > 0) | (cm.sum(axis=1) > 0)
    expected = f1_score(y_true, y_pred, average="macro", zero_division=0)
    assert np.isclose(f1[used].mean(), expected)


@FEW
@given(binary_scores())
def test_binary_auroc_equals_sklearn_including_ties(case):
    y, score = case
    ours = curves.roc_auc(curves.binary_counts(y, score))
    if len(set(y.tolist())) < 2:
        assert ours is None
    else:
        assert np.isclose(ours, roc_auc_score(y, score), rtol=0, atol=1e-12)


@FEW
@given(binary_scores())
def test_aupr_equals_the_trapezoid_under_sklearns_pr_curve(case):
    y, score = case
    ours = curves.pr_auc(curves.binary_counts(y, score))
    if len(set(y.tolist())) < 2:
        assert ours is None
        return
    precision, recall, _ = precision_recall_curve(y, score)
    assert np.isclose(ours, auc(recall, precision), rtol=0, atol=1e-12)


@FEW
@given(binary_scores(), st.data())
def test_grouped_auroc_equals_sklearn_within_each_group(case, data):
    y, score = case
    group = np.array(data.draw(st.lists(st.integers(0, 2), min_size=y.size, max_size=y.size)))
    areas, _, _ = curves.grouped_roc_auc(y, score, group, 3)
    for g in range(3):
        members = group == g
        if len(set(y[members].tolist())) < 2:
            assert np.isnan(areas[g])
        else:
            assert np.isclose(areas[g], roc_auc_score(y[members], score[members]))


@FEW
@given(binary_scores(), st.data())
def test_weighted_auroc_equals_sklearn_on_repeated_rows(case, data):
    y, score = case
    weights = np.array(data.draw(st.lists(st.integers(0, 3), min_size=y.size, max_size=y.size)))
    ours = curves.weighted_roc_auc(y, score, weights[None, :])[0]
    repeated_y = np.repeat(y, weights)
    if len(set(repeated_y.tolist())) < 2:
        assert np.isnan(ours)
    else:
        assert np.isclose(ours, roc_auc_score(repeated_y, np.repeat(score, weights)))


@FEW
@given(st.integers(2, 40), st.data())
def test_mudi_aware_per_class_scores_equal_sklearn_with_one_prediction_per_gold_pair(n_pairs, data):
    # Unique ordered gold pairs (i, i + 1000); one prediction per pair, same orientation.
    gold_label = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n_pairs, max_size=n_pairs)))
    pred_label = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n_pairs, max_size=n_pairs)))
    a = np.arange(n_pairs, dtype=np.int32)
    b = a + n_pairs
    names = tuple(f"DB{i:05d}" for i in range(2 * n_pairs))
    aligned = MudiAligned(a, b, gold_label.astype(np.int8), a, b, pred_label.astype(np.int8), names)
    scores = mudi.scores_from_counts(mudi.pair_counts(aligned).totals())
    p, r, f1, support = precision_recall_fscore_support(gold_label, pred_label, labels=[0, 1, 2], zero_division=0)
    for c, name in enumerate(mudi.CLASS_KEYS):
        assert np.isclose(scores[f"aware/{name}/precision"], p[c])
        assert np.isclose(scores[f"aware/{name}/recall"], r[c])
        assert np.isclose(scores[f"aware/{name}/f1"], f1[c])
        assert scores[f"aware/{name}/support"] == support[c]


@FEW
@given(st.integers(2, 30), st.data())
def test_ovr_auroc_equals_sklearn_when_every_class_is_present(n, data):
    y = np.array([0, 1, 2] + data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    raw = data.draw(st.lists(st.floats(0.01, 1), min_size=3 * y.size, max_size=3 * y.size))
    proba = np.array(raw).reshape(-1, 3)
    proba /= proba.sum(axis=1, keepdims=True)
    expected = roc_auc_score(y, proba, multi_class="ovr", average="macro")
    assert np.isclose(imdrug.ovr_auroc(y, proba), expected)


@FEW
@given(binary_scores(), st.data())
def test_count_weighted_auroc_equals_sklearn_on_repeated_rows(case, data):
    y, score = case
    counts = np.array(data.draw(st.lists(st.integers(0, 3), min_size=y.size, max_size=y.size)))
    ours = curves.count_roc_auc(y, score, counts)
    repeated_y = np.repeat(y, counts)
    if len(set(repeated_y.tolist())) < 2:
        assert np.isnan(ours)
    else:
        assert np.isclose(ours, roc_auc_score(repeated_y, np.repeat(score, counts)), rtol=0, atol=1e-12)
        # Exact integer arithmetic: the same float as the weight-matrix implementation.
        assert ours == curves.weighted_roc_auc(y, score, counts[None, :])[0]


@FEW
@given(binary_scores(), st.data())
def test_grouped_auroc_is_the_same_with_a_shared_score_order(case, data):
    y, score = case
    group = np.array(data.draw(st.lists(st.integers(0, 2), min_size=y.size, max_size=y.size)))
    alone = curves.grouped_roc_auc(y, score, group, 3)
    shared = curves.grouped_roc_auc(y, score, group, 3, curves.score_order(score))
    for ours, theirs in zip(alone, shared, strict=True):
        assert np.array_equal(ours, theirs, equal_nan=True)
