"""MUDI per drug and by drug frequency equal a plain pandas computation on random files."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import scoring
from scoring.keys import DRUG_BUCKETS, mudi_bucket_key

CLASSES = ["Synergism", "Antagonism", "New Effect"]
LABELS = [*CLASSES, "No Interaction"]
# No shrinking: a failing case is printed as drawn (shrinking whole files is slow on a shared machine).
FAST = (Phase.explicit, Phase.reuse, Phase.generate)


@st.composite
def mudi_files(draw):
    """A truth of random pairs over a small drug pool (both orientations, several classes) and a prediction."""
    n_drugs = draw(st.integers(2, 40))
    drugs = [f"DB{i:05d}" for i in range(n_drugs)]
    n = draw(st.integers(1, 120))
    a = draw(st.lists(st.integers(0, n_drugs - 1), min_size=n, max_size=n))
    b = draw(st.lists(st.integers(0, n_drugs - 1), min_size=n, max_size=n))
    label = draw(st.lists(st.sampled_from(CLASSES), min_size=n, max_size=n))
    truth = pd.DataFrame({"Drug1": [drugs[i] for i in a], "Interaction": label, "Drug2": [drugs[j] for j in b]})
    truth = truth.drop_duplicates(subset=["Drug1", "Drug2"], ignore_index=True)  # one class per ordered pair
    flip = draw(st.lists(st.booleans(), min_size=len(truth), max_size=len(truth)))
    guess = draw(st.lists(st.sampled_from(LABELS), min_size=len(truth), max_size=len(truth)))
    pred = truth.assign(Interaction=guess)
    flipped = np.array(flip)
    pred.loc[flipped, ["Drug1", "Drug2"]] = pred.loc[flipped, ["Drug2", "Drug1"]].to_numpy()
    # Every gold pair is predicted in one orientation or both (the reader requires it); "No Interaction" misses it.
    pred = pred.drop_duplicates(subset=["Drug1", "Drug2"])
    return truth, pred


def _csv(frame: pd.DataFrame) -> io.BytesIO:
    return io.BytesIO(frame.assign(Drug1="Compound::" + frame["Drug1"]).to_csv(index=False).encode())


def _items(frame: pd.DataFrame, ordered: bool) -> pd.DataFrame:
    """(x, y, class) items: the pair as scored in the setting, positive classes only."""
    rows = frame[frame["Interaction"] != "No Interaction"]
    x, y = rows["Drug1"], rows["Drug2"]
    if not ordered:
        x, y = np.minimum(x, y), np.maximum(x, y)
    return pd.DataFrame({"x": x.to_numpy(), "y": y.to_numpy(), "c": rows["Interaction"].to_numpy()}).drop_duplicates()


def reference(truth: pd.DataFrame, pred: pd.DataFrame, ordered: bool):
    """Per-drug (tp, fp, fn) and per-bucket (macro F1, micro F1, pairs), written plainly with pandas."""
    gold_pairs = pd.DataFrame(
        {"x": np.minimum(truth["Drug1"], truth["Drug2"]), "y": np.maximum(truth["Drug1"], truth["Drug2"])}
    ).drop_duplicates()
    ends = pd.concat([gold_pairs["x"], gold_pairs["y"][gold_pairs["x"] != gold_pairs["y"]]])
    frequency = ends.value_counts()
    merged = _items(truth, ordered).merge(_items(pred, ordered), how="outer", indicator=True)
    merged["tp"] = merged["_merge"] == "both"
    merged["fn"] = merged["_merge"] == "left_only"
    merged["fp"] = merged["_merge"] == "right_only"
    lo, hi = np.minimum(merged["x"], merged["y"]), np.maximum(merged["x"], merged["y"])
    merged["rarer"] = np.minimum(lo.map(frequency), hi.map(frequency))
    per_drug_rows = pd.concat([merged.assign(drug=lo), merged[lo != hi].assign(drug=hi)])
    per_drug = per_drug_rows.groupby("drug")[["tp", "fp", "fn"]].sum()
    gold_rarer = np.minimum(gold_pairs["x"].map(frequency), gold_pairs["y"].map(frequency))
    buckets = {}
    for bucket in DRUG_BUCKETS:
        high = bucket.high if bucket.high is not None else np.inf
        inside = merged[(merged["rarer"] >= bucket.low) & (merged["rarer"] <= high)]
        n_pairs = int(((gold_rarer >= bucket.low) & (gold_rarer <= high)).sum())
        if not n_pairs:
            continue
        counts = inside.groupby("c")[["tp", "fp", "fn"]].sum().reindex(CLASSES, fill_value=0)
        p = (counts["tp"] / (counts["tp"] + counts["fp"])).fillna(0)
        r = (counts["tp"] / (counts["tp"] + counts["fn"])).fillna(0)
        macro = 2 * p.mean() * r.mean() / (p.mean() + r.mean()) if p.mean() + r.mean() else 0.0
        tp, fp, fn = counts.sum()
        mp, mr = (tp / (tp + fp) if tp + fp else 0.0), (tp / (tp + fn) if tp + fn else 0.0)
        micro = 2 * mp * mr / (mp + mr) if mp + mr else 0.0
        buckets[bucket.slug] = (macro, micro, n_pairs)
    return per_drug, frequency, buckets


@settings(max_examples=40, deadline=None, phases=FAST)
@given(mudi_files())
def test_per_drug_counts_and_bucket_f1_equal_pandas(files):
    truth, pred = files
    score = scoring.score_files("mudi", _csv(truth), _csv(pred))
    report = score.report["drugs"]
    for setting, ordered in (("aware", True), ("agnostic", False)):
        per_drug, frequency, buckets = reference(truth, pred, ordered)
        ours = pd.DataFrame(report["per_drug"][setting], columns=["tp", "fp", "fn"], index=report["per_drug"]["ids"])
        expected = per_drug.reindex(ours.index, fill_value=0).astype(int)
        pd.testing.assert_frame_equal(ours, expected, check_names=False)
        assert dict(zip(report["per_drug"]["ids"], report["per_drug"]["pairs"], strict=True)) == frequency.to_dict()
        for bucket in DRUG_BUCKETS:
            if bucket.slug not in buckets:
                assert mudi_bucket_key(setting, bucket.slug, "macro_f1") not in score.metrics
                continue
            macro, micro, n_pairs = buckets[bucket.slug]
            assert score.metrics[mudi_bucket_key(setting, bucket.slug, "macro_f1")] == pytest.approx(macro)
            assert score.metrics[mudi_bucket_key(setting, bucket.slug, "micro_f1")] == pytest.approx(micro)
            assert score.metrics[mudi_bucket_key(setting, bucket.slug, "pairs")] == n_pairs


@settings(max_examples=20, deadline=None, phases=FAST)
@given(mudi_files())
def test_the_top_errors_are_the_ten_drugs_with_most_direction_aware_errors(files):
    truth, pred = files
    report = scoring.score_files("mudi", _csv(truth), _csv(pred)).report["drugs"]
    per_drug, _, _ = reference(truth, pred, ordered=True)
    errors = (per_drug["fp"] + per_drug["fn"]).astype(int)
    errors = errors[errors > 0]
    expected = sorted(errors.items(), key=lambda item: (-item[1], item[0]))[:10]
    assert [(e["drug"], e["aware"]["errors"]) for e in report["top_errors"]] == expected


def test_a_pair_falls_in_the_bucket_of_its_rarer_drug():
    # DB1 is in 21 pairs (frequent), DB2..DB22 in one each: every pair is rare by its rarer drug.
    rows = [("DB00001", "Synergism", f"DB{i:05d}") for i in range(2, 23)]
    truth = pd.DataFrame(rows, columns=["Drug1", "Interaction", "Drug2"])
    score = scoring.score_files("mudi", _csv(truth), _csv(truth))
    assert score.metrics["aware/drug_freq/rare/pairs"] == 21
    assert "aware/drug_freq/frequent/pairs" not in score.metrics
    assert score.metrics["aware/drug_freq/rare/macro_f1"] == pytest.approx(2 * (1 / 3) * (1 / 3) / (2 / 3))
