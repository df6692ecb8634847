"""ChemicalX files: triples keyed per seed, repeated truth triples, propensities."""

from __future__ import annotations

import numpy as np
import pytest

from scoring import ScoringError, align, load_truth, score_files
from tests.scoring.conftest import CHEMICALX_PREDICTION, CHEMICALX_TRUTH

PAIR = "chemicalx-drugcomb"


def test_one_prediction_applies_to_every_truth_row_with_its_triple(write):
    aligned = align(PAIR, write("t.csv", CHEMICALX_TRUTH), write("p.csv", CHEMICALX_PREDICTION))
    assert aligned.context_names == ("C1", "C2")
    seed0 = aligned.seeds[0]
    assert seed0.y_true.tolist() == [1, 0, 0, 1]
    assert seed0.score.tolist() == [0.9, 0.1, 0.9, 0.7]
    assert seed0.context.tolist() == [0, 0, 0, 1]
    assert seed0.y_true.dtype == np.int8 and seed0.context.dtype == np.int32
    assert aligned.seeds[1].score.tolist() == [0.6, 0.2]


def test_the_prediction_column_may_be_called_score(write):
    aligned = align(
        PAIR, write("t.csv", CHEMICALX_TRUTH), write("p.csv", CHEMICALX_PREDICTION.replace("prediction", "score"))
    )
    assert aligned.seeds[1].score.tolist() == [0.6, 0.2]


def test_the_triple_order_matters(write):
    swapped = CHEMICALX_PREDICTION.replace("1,D3,D1,C2", "1,D1,D3,C2")
    with pytest.raises(ScoringError, match="not in the truth"):
        align(PAIR, write("t.csv", CHEMICALX_TRUTH), write("p.csv", swapped))


def test_a_truth_without_seed_column_is_seed_zero(write):
    truth = load_truth(PAIR, write("t.csv", "drug_1,drug_2,context,label\nA,B,X,1\nA,C,X,0\n"))
    score = score_files(PAIR, truth, write("p.csv", "drug_1,drug_2,context,prediction\nA,C,X,0.2\nA,B,X,0.8\n"))
    assert score.metrics["auroc"] == pytest.approx(1.0)
    assert score.n_rows == 2


def test_the_scores_match_a_merge_done_with_pandas(write, tmp_path):
    rng = np.random.default_rng(7)
    n = 3000
    drugs = np.array([f"D{i}" for i in range(30)])
    import pandas as pd

    truth = pd.DataFrame(
        {
            "seed": rng.integers(0, 3, n),
            "drug_1": drugs[rng.integers(0, 30, n)],
            "drug_2": drugs[rng.integers(0, 30, n)],
            "context": rng.choice(["c1", "c2", "c3"], n),
            "label": rng.integers(0, 2, n),
        }
    )
    keys = ["seed", "drug_1", "drug_2", "context"]
    prediction = truth[keys].drop_duplicates().sample(frac=1.0, random_state=1)
    prediction["prediction"] = rng.random(len(prediction)).round(6)
    truth.to_csv(tmp_path / "t.csv", index=False)
    prediction.to_csv(tmp_path / "p.csv", index=False)
    aligned = align(PAIR, tmp_path / "t.csv", tmp_path / "p.csv")
    merged = truth.merge(prediction, on=keys, how="left")
    for seed, group in merged.groupby("seed"):
        assert aligned.seeds[seed].score.tolist() == group["prediction"].tolist()
        assert aligned.seeds[seed].y_true.tolist() == group["label"].tolist()


def test_a_prediction_sharing_no_key_with_the_truth_is_an_error_not_a_crash(write):
    truth = write("t.csv", "seed,drug_1,drug_2,context,label\n0,D3,D2,C3,1\n")
    prediction = write("p.csv", "seed,drug_1,drug_2,context,prediction\n0,ZZ,D1,CX,0.1\n1,D3,D3,C1,0.3\n")
    with pytest.raises(ScoringError) as error:
        score_files(PAIR, truth, prediction)
    messages = [e["message"] for e in error.value.to_dict()["errors"]]
    assert messages == [
        "Seed 1 (1 row, first on line 3) is not in the truth; the truth has seed 0.",
        '1 prediction row is not in the truth, e.g. line 2 (seed 0, drug_1 "ZZ", drug_2 "D1", context "CX").',
        'The predictions miss 1 of the truth\'s 1 keys, e.g. (seed 0, drug_1 "D3", drug_2 "D2", context "C3"). '
        "To fix it, write one line for every key of the test inputs file (the example file has every key).",
    ]


def test_a_bad_truth_is_reported_before_a_bad_prediction(write):
    truth = write("t.csv", CHEMICALX_TRUTH.replace("0,D1,D3,C1,0", "0,D1,D3,C1,7"))
    prediction = write("p.csv", CHEMICALX_PREDICTION.replace("0.9", "abc"))
    with pytest.raises(ScoringError, match="7 is not 0 or 1"):
        score_files(PAIR, truth, prediction)
    with pytest.raises(ScoringError, match='"abc" is not a number'):
        score_files(PAIR, write("good.csv", CHEMICALX_TRUTH), prediction)


def test_scoring_from_files_equals_scoring_with_a_cached_truth(write):
    truth_path, prediction_path = write("t.csv", CHEMICALX_TRUTH), write("p.csv", CHEMICALX_PREDICTION)
    from_files = score_files(PAIR, truth_path, prediction_path)
    cached = score_files(PAIR, load_truth(PAIR, truth_path), prediction_path)
    assert from_files == cached
    assert from_files.n_rows == 5


def test_a_truth_loaded_for_another_task_is_refused(write):
    truth = load_truth(PAIR, write("t.csv", CHEMICALX_TRUTH))
    with pytest.raises(ScoringError, match="loaded for task 'chemicalx-drugcomb', not 'chemicalx-twosides'"):
        score_files("chemicalx-twosides", truth, write("p.csv", CHEMICALX_PREDICTION))
