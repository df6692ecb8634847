"""MUDI files: layouts, label aliases, Compound:: prefixes, orientations."""

from __future__ import annotations

import numpy as np
import pytest

from scoring import ScoringError, align, load_truth, score_files
from scoring.aligned import MUDI_NO_INTERACTION
from tests.scoring.conftest import MUDI_TRUTH


def test_the_gold_rows_use_codes_from_the_sorted_truth_vocabulary(write):
    aligned = align("mudi", write("t.csv", MUDI_TRUTH), write("p.csv", MUDI_TRUTH))
    assert aligned.drug_names == ("DB001", "DB002", "DB003", "DB004", "DB005", "DB006")
    assert aligned.gold_a.tolist() == [0, 1, 2, 4]
    assert aligned.gold_b.tolist() == [1, 0, 3, 5]
    assert aligned.gold_label.tolist() == [0, 0, 1, 2]
    assert aligned.gold_a.dtype == np.int32 and aligned.gold_label.dtype == np.int8


def test_it_accepts_the_lowercase_layout_aliases_and_bare_ids(write):
    prediction = """drug1,drug2,label
DB002,DB001,synergism
DB004,DB003,NO INTERACTION
DB005,DB006,New Effect (New Adverse)
"""
    aligned = align("mudi", write("t.csv", MUDI_TRUTH), write("p.csv", prediction))
    assert aligned.pred_a.tolist() == [1, 3, 4]
    assert aligned.pred_b.tolist() == [0, 2, 5]
    assert aligned.pred_label.tolist() == [0, MUDI_NO_INTERACTION, 2]


def test_a_prediction_for_the_reverse_orientation_of_a_gold_pair_is_legal(write):
    prediction = "Drug1,Interaction,Drug2\nDB001,Synergism,DB002\nDB004,Antagonism,DB003\nDB006,New Effect,DB005\n"
    aligned = align("mudi", write("t.csv", MUDI_TRUTH), write("p.csv", prediction))
    assert len(aligned.pred_a) == 3


def test_both_orientations_may_be_predicted_with_different_classes(write):
    prediction = MUDI_TRUTH + "Compound::DB004,Synergism,Compound::DB003\n"
    aligned = align("mudi", write("t.csv", MUDI_TRUTH), write("p.csv", prediction))
    assert aligned.pred_label.tolist() == [0, 0, 1, 2, 0]


def test_exact_repeats_in_the_truth_are_dropped(write):
    truth = load_truth("mudi", write("t.csv", MUDI_TRUTH + "Compound::DB001,Synergism,Compound::DB002\n"))
    assert len(truth.gold_a) == 4
    assert truth.n_rows == 5


def test_scoring_the_truth_against_itself_is_perfect_in_both_settings(write):
    score = score_files("mudi", write("t.csv", MUDI_TRUTH), write("p.csv", MUDI_TRUTH))
    assert score.primary == "aware/macro/f1"
    assert score.primary_value == pytest.approx(1.0)
    assert score.metrics["agnostic/macro/f1"] == pytest.approx(1.0)
    assert score.n_rows == 4


def test_labels_are_matched_case_insensitively_in_the_truth_too(write):
    truth = load_truth("mudi", write("t.csv", MUDI_TRUTH.replace("Synergism", "SYNERGISM")))
    assert truth.gold_label.tolist() == [0, 0, 1, 2]


def test_every_problem_is_reported_together(write):
    prediction = """Drug1,Interaction,Drug2
DB001,Synergy,DB002
DB001,Synergism,DB002
DB009,Synergism,DB001
"""
    with pytest.raises(ScoringError) as caught:
        align("mudi", write("t.csv", MUDI_TRUTH), write("p.csv", prediction))
    messages = [p.message for p in caught.value.problems]
    assert any("Synergy" in m for m in messages)
    assert any("repeats the pair" in m for m in messages)
    assert any("not in the truth" in m for m in messages)
    assert any("miss 2 of the truth's 3 drug pairs" in m for m in messages)
