"""ChemicalX truth building (the split rule), synthetic truths and the label-free test inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from scoring import TASKS, ScoringError, load_truth, make_chemicalx_truth, score_files, synthetic_truth, test_inputs
from scoring.truth import chemicalx_test_rows
from tests.scoring.conftest import CHEMICALX_TRUTH, HIV_TRUTH, MUDI_TRUTH, shared_file

TRIPLES = "drug_1,drug_2,context,label\n" + "".join(f"D{i % 7},D{i % 5},C{i % 3},{i % 2}\n" for i in range(37))


@pytest.mark.parametrize("n", [2, 5, 37, 1000, 23052])
@pytest.mark.parametrize("seed", [0, 3, 9])
def test_the_split_rule_equals_sklearn_train_test_split(n, seed):
    _, expected = train_test_split(np.arange(n), test_size=0.2, random_state=seed)
    assert chemicalx_test_rows(n, seed).tolist() == expected.tolist()


def test_it_builds_seed_rows_in_split_order_from_a_small_file(write):
    truth = make_chemicalx_truth(write("triples.csv", TRIPLES), seeds=range(3))
    assert list(truth.columns) == ["seed", "drug_1", "drug_2", "context", "label"]
    source = pd.read_csv(write("again.csv", TRIPLES))
    for seed in range(3):
        _, test = train_test_split(source, test_size=0.2, random_state=seed)
        part = truth[truth["seed"] == seed].drop(columns="seed").reset_index(drop=True)
        assert part.to_dict("records") == test.reset_index(drop=True).to_dict("records")
    assert len(truth) == 3 * (37 - int(0.8 * 37))


def test_the_real_oncopolypharmacology_file_needs_a_threshold_and_gives_4611_rows_per_seed(tmp_path):
    path = shared_file("chemicalx/oncopolypharmacology/labeled_triples.csv")
    with pytest.raises(ScoringError, match=r"continuous labels .*--threshold X"):
        make_chemicalx_truth(path)
    out = tmp_path / "truth.csv"
    truth = make_chemicalx_truth(path, threshold=30, out=out)
    assert len(truth) == 10 * 4611
    assert truth.groupby("seed").size().tolist() == [4611] * 10
    assert set(truth["label"].unique()) <= {0, 1}
    source = pd.read_csv(path)
    _, test = train_test_split(source, test_size=0.2, random_state=4)
    seed4 = truth[truth["seed"] == 4].reset_index(drop=True)
    assert seed4["drug_1"].tolist() == test["drug_1"].tolist()
    assert seed4["label"].tolist() == (test["label"] > 30).astype(int).tolist()
    # The file written is a valid truth for the task.
    inputs = test_inputs("chemicalx-oncolypharm", out)
    inputs["prediction"] = 0.5
    inputs.to_csv(tmp_path / "p.csv", index=False)
    assert score_files("chemicalx-oncolypharm", out, tmp_path / "p.csv").metrics["auroc"] == pytest.approx(0.5)


def test_the_threshold_counts_values_strictly_above_it_as_positive(write):
    path = write("t.csv", "drug_1,drug_2,context,label\nA,B,X,30\nA,C,X,30.5\nB,C,X,-2\nA,D,X,31\nC,D,X,0\n")
    truth = make_chemicalx_truth(path, seeds=range(10), threshold=30)
    assert len(truth) == 10  # 5 - floor(0.8 * 5) = 1 test row per seed
    expected = {"AB": 0, "AC": 1, "BC": 0, "AD": 1, "CD": 0}
    got = dict(zip(truth["drug_1"] + truth["drug_2"], truth["label"], strict=True))
    assert got == {key: expected[key] for key in got}


def test_test_inputs_strip_labels_and_keep_distinct_keys(write):
    pairs = test_inputs("chemicalx-drugcomb", write("t.csv", CHEMICALX_TRUTH))
    assert list(pairs.columns) == ["seed", "drug_1", "drug_2", "context"]
    assert pairs.values.tolist() == [
        [0, "D1", "D2", "C1"],
        [0, "D1", "D3", "C1"],
        [0, "D2", "D3", "C2"],
        [1, "D1", "D2", "C1"],
        [1, "D3", "D1", "C2"],
    ]
    ids = test_inputs("imdrug-hiv-random", write("h.csv", HIV_TRUTH))
    assert ids.values.tolist() == [[0, "m1"], [0, "m2"], [0, "m3"], [1, "m1"], [1, "m4"], [1, "m5"]]
    mudi = test_inputs("mudi", write("m.csv", MUDI_TRUTH))
    assert list(mudi.columns) == ["Drug1", "Drug2"]
    assert mudi.values.tolist()[:2] == [["Compound::DB001", "Compound::DB002"], ["Compound::DB002", "Compound::DB001"]]


@pytest.mark.parametrize("slug", sorted(TASKS))
def test_a_synthetic_truth_in_any_tasks_layout_is_a_valid_truth(slug):
    task = TASKS[slug]
    frame = synthetic_truth(task, np.random.default_rng(0), 40)
    assert list(frame.columns) == list(task.truth_columns)
    assert len(frame) == 40 * (len(task.seeds) if "seed" in task.truth_columns else 1)
    truth = load_truth(task, frame.to_csv(index=False).encode())
    assert len(test_inputs(task, truth)) == len(frame)
