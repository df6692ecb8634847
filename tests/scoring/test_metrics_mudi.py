"""MUDI scoring: set semantics in the aware and agnostic settings, macro F1 as in the paper."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from scoring.aligned import MudiAligned
from scoring.metrics import compute, mudi
from scoring.registry import get_task

TASK = get_task("mudi")
LABELS = {"Synergism": 0, "Antagonism": 1, "New Effect": 2, "No Interaction": 3}


def aligned(gold: list[tuple[str, str, str]], pred: list[tuple[str, str, str]]) -> MudiAligned:
    """Build the container from (drug1, label, drug2) triples, the file's column order."""
    names = sorted({row[0] for row in gold + pred} | {row[2] for row in gold + pred})
    code = {name: i for i, name in enumerate(names)}

    def columns(rows):
        a = np.array([code[r[0]] for r in rows], dtype=np.int32)
        b = np.array([code[r[2]] for r in rows], dtype=np.int32)
        label = np.array([LABELS[r[1]] for r in rows], dtype=np.int8)
        return a, b, label

    return MudiAligned(*columns(gold), *columns(pred), drug_names=tuple(names))


def score(gold, pred) -> dict[str, float]:
    return compute(TASK, aligned(gold, pred)).metrics


def test_a_perfect_submission_scores_one_everywhere():
    gold = [("A", "Synergism", "B"), ("C", "Antagonism", "D"), ("E", "New Effect", "F")]
    metrics = score(gold, gold)
    for setting in ("aware", "agnostic"):
        for scope in ("micro", "macro"):
            assert metrics[f"{setting}/{scope}/f1"] == 1.0
        assert metrics[f"{setting}/macro/f1_mean"] == 1.0


def test_two_classes_in_two_orientations_give_one_tp_and_one_fp_when_agnostic():
    gold = [("A", "Synergism", "B")]
    pred = [("A", "Synergism", "B"), ("B", "Antagonism", "A")]
    metrics = score(gold, pred)
    assert metrics["agnostic/synergism/tp"] == 1
    assert metrics["agnostic/antagonism/fp"] == 1
    assert metrics["agnostic/synergism/fp"] == 0
    # Aware: (B, A) is not a gold orientation, so its Antagonism is also a false positive.
    assert metrics["aware/synergism/tp"] == 1
    assert metrics["aware/antagonism/fp"] == 1


def test_a_prediction_in_the_reverse_orientation_is_a_false_positive_when_aware():
    metrics = score([("A", "Synergism", "B")], [("B", "Synergism", "A")])
    assert (metrics["aware/synergism/tp"], metrics["aware/synergism/fp"], metrics["aware/synergism/fn"]) == (0, 1, 1)
    assert (metrics["agnostic/synergism/tp"], metrics["agnostic/synergism/fp"]) == (1, 0)
    assert metrics["agnostic/synergism/f1"] == 1.0


def test_no_interaction_is_never_a_true_or_false_positive():
    gold = [("A", "Synergism", "B"), ("C", "Antagonism", "D")]
    pred = [("A", "No Interaction", "B"), ("D", "No Interaction", "C")]
    metrics = score(gold, pred)
    for setting in ("aware", "agnostic"):
        for name in mudi.CLASS_KEYS:
            assert metrics[f"{setting}/{name}/tp"] == 0
            assert metrics[f"{setting}/{name}/fp"] == 0
        assert metrics[f"{setting}/synergism/fn"] == 1
        assert metrics[f"{setting}/antagonism/fn"] == 1
        assert metrics[f"{setting}/micro/precision"] == 0.0


def test_a_wrong_class_is_a_false_negative_of_the_gold_class_and_a_false_positive_of_the_other():
    metrics = score([("A", "Synergism", "B")], [("A", "Antagonism", "B")])
    assert metrics["aware/synergism/fn"] == 1
    assert metrics["aware/antagonism/fp"] == 1


def test_a_never_predicted_class_has_zero_precision_and_still_counts_in_macro():
    gold = [("A", "Synergism", "B"), ("C", "Antagonism", "D"), ("E", "New Effect", "F")]
    pred = [("A", "Synergism", "B"), ("C", "Antagonism", "D"), ("E", "Synergism", "F")]
    metrics = score(gold, pred)
    assert metrics["aware/new_effect/precision"] == 0.0
    assert metrics["aware/new_effect/recall"] == 0.0
    assert metrics["aware/synergism/precision"] == 0.5
    assert metrics["aware/macro/precision"] == pytest.approx((0.5 + 1 + 0) / 3)
    assert metrics["aware/macro/recall"] == pytest.approx((1 + 1 + 0) / 3)
    # Harmonic mean of macro P = 0.5 and macro R = 2/3 is 4/7, not the mean of class F1s.
    assert metrics["aware/macro/f1"] == pytest.approx(4 / 7)
    assert metrics["aware/macro/f1_mean"] == pytest.approx((2 / 3 + 1 + 0) / 3)


def test_gold_pairs_in_both_orientations_collapse_to_one_pair_when_agnostic():
    gold = [("A", "Synergism", "B"), ("B", "Synergism", "A")]
    metrics = score(gold, [("A", "Synergism", "B")])
    assert metrics["aware/synergism/support"] == 2
    assert (metrics["aware/synergism/tp"], metrics["aware/synergism/fn"]) == (1, 1)
    assert metrics["agnostic/synergism/support"] == 1
    assert metrics["agnostic/synergism/recall"] == 1.0


def test_repeated_predictions_count_once():
    metrics = score([("A", "Synergism", "B")], [("A", "Synergism", "B")] * 3)
    assert (metrics["aware/synergism/tp"], metrics["aware/synergism/fp"]) == (1, 0)


def test_micro_scores_pool_counts_over_the_three_classes():
    gold = [("A", "Synergism", "B"), ("C", "Synergism", "D"), ("E", "Antagonism", "F")]
    pred = [("A", "Synergism", "B"), ("C", "Antagonism", "D"), ("E", "Antagonism", "F")]
    metrics = score(gold, pred)
    # TP = 2 (A-B syn, E-F ant), FP = 1 (C-D ant), FN = 1 (C-D syn).
    assert metrics["aware/micro/precision"] == pytest.approx(2 / 3)
    assert metrics["aware/micro/recall"] == pytest.approx(2 / 3)
    assert metrics["aware/micro/f1"] == pytest.approx(2 / 3)


def test_macro_f1_as_harmonic_mean_reproduces_table_6_of_the_paper():
    precision = [53.09, 61.27, 52.30]
    recall = [53.96, 46.09, 17.79]
    assert mudi.macro_f1(precision, recall) == pytest.approx(46.02, abs=0.005)
    class_f1 = mudi.harmonic_mean(np.array(precision), np.array(recall))
    assert np.round(class_f1, 2).tolist() == [53.52, 52.61, 26.55]
    assert float(mudi.harmonic_mean(54.05, 49.91)) == pytest.approx(51.90, abs=0.005)
    assert float(mudi.harmonic_mean(74.34, 46.70)) == pytest.approx(57.36, abs=0.005)
    assert float(mudi.harmonic_mean(76.69, 57.07)) == pytest.approx(65.44, abs=0.005)
    # The mean of the class F1s does not reproduce the paper's 46.02.
    assert round(float(np.mean(class_f1)), 2) == 44.23


def test_the_confusion_matrix_includes_no_interaction_and_pairs_outside_gold():
    gold = [("A", "Synergism", "B"), ("C", "Antagonism", "D"), ("E", "New Effect", "F")]
    pred = [("A", "Synergism", "B"), ("B", "Antagonism", "A"), ("C", "No Interaction", "D")]
    report = compute(TASK, aligned(gold, pred)).report
    aware = report["aware"]["confusion_matrix"]
    assert aware["true_labels"] == ["Synergism", "Antagonism", "New Effect", "(pair not in gold)"]
    assert aware["predicted_labels"] == ["Synergism", "Antagonism", "New Effect", "No Interaction", "(no prediction)"]
    assert aware["matrix"] == [[1, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1], [0, 1, 0, 0, 0]]
    agnostic = report["agnostic"]["confusion_matrix"]["matrix"]
    assert agnostic == [[1, 1, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]]


def _assert_plain_json(value) -> None:
    """Only JSON's own Python types, no numpy scalars hiding in the report."""
    if isinstance(value, dict):
        assert all(isinstance(k, str) for k in value)
        for item in value.values():
            _assert_plain_json(item)
    elif isinstance(value, list):
        for item in value:
            _assert_plain_json(item)
    else:
        assert type(value) in (int, float, str, bool, type(None)), type(value)


def test_the_report_is_plain_json():
    gold = [("A", "Synergism", "B"), ("C", "Antagonism", "D")]
    result = compute(TASK, aligned(gold, [("A", "Synergism", "B")]))
    _assert_plain_json(result.report)
    _assert_plain_json(result.metrics)
    json.dumps(result.report)
    rows = result.report["aware"]["per_class"]
    assert [r["class"] for r in rows] == ["Synergism", "Antagonism", "New Effect"]
    assert set(rows[0]) == {"class", "precision", "recall", "f1", "tp", "fp", "fn", "support"}


def _real_truth(shared_data) -> MudiAligned:
    frame = pd.read_csv(shared_data / "mudi" / "test.csv")
    drugs = pd.Index(sorted(set(frame.Drug1) | set(frame.Drug2)))
    labels = frame.Interaction.map({"Synergism": 0, "Antagonism": 1, "New Adverse": 2}).to_numpy(np.int8)
    a = drugs.get_indexer(frame.Drug1).astype(np.int32)
    b = drugs.get_indexer(frame.Drug2).astype(np.int32)
    return MudiAligned(a, b, labels, a, b, labels, tuple(d.removeprefix("Compound::") for d in drugs))


def test_the_real_test_set_has_the_documented_agnostic_supports(shared_data):
    metrics = compute(TASK, _real_truth(shared_data)).metrics
    assert metrics["agnostic/synergism/support"] == 54711
    assert metrics["agnostic/antagonism/support"] == 11914
    assert metrics["agnostic/new_effect/support"] == 3251
    assert metrics["aware/synergism/support"] == 71001
    assert metrics["aware/macro/f1"] == 1.0
    assert metrics["agnostic/macro/f1"] == 1.0
