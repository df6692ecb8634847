"""Property tests: the per-context and per-group breakdowns equal a plain pandas / scikit-learn computation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import recall_score, roc_auc_score

from scoring import score_files

FEW = settings(max_examples=40, deadline=None)
pytestmark = pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true")


def csv_bytes(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


@st.composite
def chemicalx_files(draw):
    """A truth and a prediction over 1-3 splits and 1-6 contexts; some contexts end up with one class."""
    n_splits = draw(st.integers(1, 3))
    n_contexts = draw(st.integers(1, 6))
    frames = []
    for seed in range(n_splits):
        n = draw(st.integers(1, 40))
        frames.append(
            pd.DataFrame(
                {
                    "seed": seed,
                    "drug_1": [f"D{i}" for i in range(n)],
                    "drug_2": "X",
                    "context": [f"C{draw(st.integers(0, n_contexts - 1))}" for _ in range(n)],
                    "label": draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)),
                    "prediction": draw(
                        st.lists(st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0]) | st.floats(0, 1), min_size=n, max_size=n)
                    ),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def pandas_per_context(frame: pd.DataFrame) -> tuple[dict[str, float], set[str]]:
    """Mean over splits of scikit-learn's AUROC per (split, context) with both classes; contexts with none."""
    areas: dict[str, list[float]] = {}
    for (_, context), rows in frame.groupby(["seed", "context"]):
        areas.setdefault(context, [])
        if rows["label"].nunique() == 2:
            areas[context].append(roc_auc_score(rows["label"], rows["prediction"]))
    scored = {c: float(np.mean(v)) for c, v in areas.items() if v}
    return scored, {c for c, v in areas.items() if not v}


@FEW
@given(chemicalx_files())
def test_per_context_auroc_equals_a_groupby_with_scikit_learn(frame):
    truth = csv_bytes(frame.drop(columns="prediction"))
    prediction = csv_bytes(frame.drop(columns="label"))
    score = score_files("chemicalx-drugcomb", truth, prediction)
    expected, one_class = pandas_per_context(frame)
    got = {row["context"]: row["auroc"] for row in score.report["per_context"]}
    assert got.keys() == expected.keys()
    for context, value in expected.items():
        assert got[context] == pytest.approx(value, abs=1e-12)
    assert set(score.report["per_context_one_class"]) == one_class
    assert score.report["per_context_counts"]["one_class"] == len(one_class)
    if expected:
        assert score.metrics["context/auroc/median"] == pytest.approx(np.median(list(expected.values())))
        assert score.metrics["context/auroc/min"] == pytest.approx(min(expected.values()))
    else:
        assert "context/auroc/median" not in score.metrics


@st.composite
def grouped_classification(draw):
    """Three seeds of a 10-class task with a random head/middle/tail grouping."""
    groups = draw(st.lists(st.sampled_from(["head", "middle", "tail"]), min_size=10, max_size=10))
    frames = []
    for seed in range(3):
        n = draw(st.integers(5, 40))
        frames.append(
            pd.DataFrame(
                {
                    "seed": seed,
                    "id": [f"m{i}" for i in range(n)],
                    "label": draw(st.lists(st.integers(0, 9), min_size=n, max_size=n)),
                    "prediction": draw(st.lists(st.integers(0, 9), min_size=n, max_size=n)),
                }
            )
        )
    frame = pd.concat(frames, ignore_index=True)
    frame["group"] = [groups[label] for label in frame["label"]]
    return frame


@FEW
@given(grouped_classification())
def test_group_balanced_accuracy_equals_scikit_learn_recall_averaged_by_group(frame):
    truth = csv_bytes(frame.drop(columns="prediction"))
    score = score_files("imdrug-uspto50k-random", truth, csv_bytes(frame.drop(columns=["label", "group"])))
    group_of = dict(zip(frame["label"], frame["group"], strict=True))
    for seed, rows in frame.groupby("seed"):
        present = sorted(rows["label"].unique())
        recalls = recall_score(rows["label"], rows["prediction"], labels=present, average=None, zero_division=0)
        for group in ("head", "middle", "tail"):
            values = [r for label, r in zip(present, recalls, strict=True) if group_of[label] == group]
            key = f"seed/{seed}/group/{group}/balanced_accuracy"
            if values:
                assert score.metrics[key] == pytest.approx(np.mean(values))
            else:
                assert key not in score.metrics


def test_a_context_with_one_class_in_every_split_is_counted_not_scored():
    frame = pd.DataFrame(
        {
            "seed": [0, 0, 0, 0, 1, 1],
            "drug_1": ["a", "b", "c", "d", "a", "b"],
            "drug_2": "x",
            "context": ["A549", "A549", "HT29", "HT29", "A549", "HT29"],
            "label": [0, 1, 1, 1, 1, 1],
            "prediction": [0.2, 0.9, 0.4, 0.6, 0.5, 0.5],
        }
    )
    score = score_files(
        "chemicalx-drugcomb", csv_bytes(frame.drop(columns="prediction")), csv_bytes(frame.drop(columns="label"))
    )
    assert [row["context"] for row in score.report["per_context"]] == ["A549"]
    assert score.report["per_context_one_class"] == ["HT29"]
    # A549 has one class in split 1 and HT29 in both splits: three (context, split) pairs without an AUROC.
    assert score.report["per_context_counts"] == {"scored": 1, "one_class": 1, "one_class_splits": 3}
