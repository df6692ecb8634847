"""ImDrug files: class names or indices, probability columns, regression, optional seeds."""

from __future__ import annotations

import numpy as np
import pytest

from scoring import align, load_truth, score_files
from tests.scoring.conftest import HIV_PREDICTION, HIV_TRUTH, REGRESSION_TRUTH

HIV = "imdrug-hiv-random"
USPTO = "imdrug-uspto50k-random"


def test_labels_may_be_class_names_in_any_case_or_zero_based_indices(write):
    aligned = align(HIV, write("t.csv", HIV_TRUTH), write("p.csv", HIV_PREDICTION))
    assert aligned.class_names == ("inactive", "active")
    assert sorted(aligned.seeds) == [0, 1]
    seed0, seed1 = aligned.seeds[0], aligned.seeds[1]
    assert seed0.ids.tolist() == ["m1", "m2", "m3"]
    assert seed0.y_true.tolist() == [0, 1, 0] and seed0.y_pred.tolist() == [0, 1, 0]
    assert seed1.ids.tolist() == ["m1", "m4", "m5"]
    assert seed1.y_pred.tolist() == [1, 0, 1]
    assert seed0.proba is None


def test_the_prediction_column_may_be_called_label(write):
    aligned = align(HIV, write("t.csv", HIV_TRUTH), write("p.csv", HIV_PREDICTION.replace("prediction", "label")))
    assert aligned.seeds[1].y_pred.tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    "header",
    [
        "seed,id,prediction,prob_inactive,prob_active",
        "seed,id,prediction,PROB_1,prob_0",
        "seed,id,prediction,prob_Active,prob_0",
    ],
)
def test_probability_columns_may_name_classes_or_indices_in_any_order(write, header):
    names = header.split(",")[3:]
    values = {"prob_inactive": "0.8", "prob_0": "0.8", "prob_active": "0.2", "prob_1": "0.2"}
    row = ",".join(values[name.lower()] for name in names)
    lines = [header] + [
        f"{seed},{key},0,{row}" for seed, key in [(0, "m1"), (0, "m2"), (0, "m3"), (1, "m1"), (1, "m4"), (1, "m5")]
    ]
    aligned = align(HIV, write("t.csv", HIV_TRUTH), write("p.csv", "\n".join(lines) + "\n"))
    assert np.allclose(aligned.seeds[0].proba, [[0.8, 0.2]] * 3)


def test_a_binary_task_accepts_a_single_score_column(write):
    prediction = HIV_PREDICTION.replace("prediction", "prediction,score").replace("\n1,", "\n1,").splitlines()
    rows = [prediction[0]] + [line + ",0.75" for line in prediction[1:]]
    aligned = align(HIV, write("t.csv", HIV_TRUTH), write("p.csv", "\n".join(rows) + "\n"))
    assert np.allclose(aligned.seeds[1].proba, [[0.25, 0.75]] * 3)


def test_class_names_with_spaces_may_be_written_with_underscores(write):
    truth = "id,label\nr1,C-C bond formation\nr2,3\n"
    probs = ",".join(f"prob_{i}" for i in range(10))
    tenths = ",".join(["0.1"] * 10)
    prediction = f"id,prediction,{probs}\nr1,c-c_bond_formation,{tenths}\nr2,heterocycle formation,{tenths}\n"
    aligned = align(USPTO, write("t.csv", truth), write("p.csv", prediction))
    assert aligned.seeds[0].y_true.tolist() == [2, 3]
    assert aligned.seeds[0].y_pred.tolist() == [2, 3]
    assert aligned.seeds[0].proba.shape == (2, 10)


def test_a_single_seed_file_may_omit_the_seed_column(write):
    truth = load_truth(HIV, write("t.csv", "id,label\nm1,active\nm2,inactive\n"))
    assert truth.seed_values == (0,)
    with_seed = align(HIV, truth, write("p1.csv", "seed,id,prediction\n0,m2,0\n0,m1,1\n"))
    without = align(HIV, truth, write("p2.csv", "id,prediction\nm1,1\nm2,0\n"))
    assert with_seed.seeds[0].y_pred.tolist() == without.seeds[0].y_pred.tolist() == [1, 0]


def test_regression_accepts_label_or_y_and_prediction_or_y(write):
    truth = load_truth("imdrug-sbap-regression", write("t.csv", REGRESSION_TRUTH))
    aligned = align(truth.task, truth, write("p.csv", "seed,id,y\n1,a,0.5\n0,b,-1\n0,a,1\n"))
    assert aligned.seeds[0].y_true.tolist() == [1.5, -2.0]
    assert aligned.seeds[0].y_pred.tolist() == [1.0, -1.0]
    assert aligned.seeds[1].y_pred.tolist() == [0.5]


def test_a_cached_truth_scores_many_predictions(write):
    truth = load_truth(HIV, write("t.csv", HIV_TRUTH))
    first = score_files(HIV, truth, write("p1.csv", HIV_PREDICTION))
    second = score_files(HIV, truth, write("p2.csv", HIV_PREDICTION))
    assert first.to_dict() == second.to_dict()
    assert first.n_rows == 6
    assert "auroc" not in first.metrics  # hard labels only: AUROC is missing, never 0
