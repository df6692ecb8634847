"""A corpus of malformed truth and prediction files, each with the message a researcher should see.

Every case is a small file built in tmp_path; the test asserts the specific
message (and line, where the problem has one) of the first reported problem.
"""

from __future__ import annotations

import gzip

import pytest

from scoring import ScoringError, load_truth, score_files
from scoring.readers import Limits
from tests.scoring.conftest import CHEMICALX_PREDICTION, CHEMICALX_TRUTH, HIV_PREDICTION, HIV_TRUTH, MUDI_TRUTH

MUDI_OK = """Drug1,Interaction,Drug2
DB001,Synergism,DB002
DB003,Antagonism,DB004
DB005,New Effect,DB006
"""
HIV = "imdrug-hiv-random"
USPTO = "imdrug-uspto50k-random"
PAIR = "chemicalx-drugcomb"
REGRESSION = "imdrug-sbap-regression"

# (id, task, truth (None: the task's default), prediction (None: the truth is the subject), message, line, limits)
PREDICTION_CASES = [
    ("empty-file", HIV, None, b"", "The prediction file is empty.", None, None),
    ("only-whitespace", HIV, None, b"  \n\n \n", "The prediction file is empty.", None, None),
    ("binary", HIV, None, b"seed,id,prediction\n0,m1\x00,1\n", "binary data (a NUL byte on line 2)", 2, None),
    ("not-utf8", HIV, None, b"seed,id,prediction\n0,m1,1\n0,m\xe9,1\n", "Line 3 is not valid UTF-8", 3, None),
    ("corrupt-gzip", HIV, None, b"\x1f\x8b\x08\x00garbage", "looks gzip-compressed but could not be", None, None),
    ("no-header", "mudi", MUDI_OK, "DB001,Synergism,DB002\nDB003,Antagonism,DB004\n", "has no header line", 1, None),
    ("header-only", HIV, None, "seed,id,prediction\n", "has a header but no data rows", None, None),
    (
        "unknown-column",
        HIV,
        None,
        "seed,id,prediction,confidence\n0,m1,1,0.3\n",
        "Unknown column 'confidence' in the header; expected columns: seed, id, prediction",
        1,
        None,
    ),
    ("missing-column", HIV, None, "seed,prediction\n0,1\n", "Missing required column 'id'", 1, None),
    (
        "same-column-twice",
        HIV,
        None,
        "seed,id,label,prediction\n0,m1,1,1\n",
        'Columns "label" and "prediction" mean the same thing',
        1,
        None,
    ),
    (
        "too-many-fields",
        HIV,
        None,
        "seed,id,prediction\n0,m1,1\n0,m2,1,extra\n",
        "Line 3 has 4 fields but the header has 3 (comma-separated).",
        3,
        None,
    ),
    (
        "too-few-fields",
        HIV,
        None,
        "seed\tid\tprediction\n0\tm1\n",
        "Line 2 has 2 fields but the header has 3 (tab",
        2,
        None,
    ),
    (
        "not-a-number",
        PAIR,
        None,
        CHEMICALX_PREDICTION.replace("0.1", "abc"),
        'Line 4, column "prediction": "abc" is not a number.',
        4,
        None,
    ),
    (
        "empty-number",
        PAIR,
        None,
        CHEMICALX_PREDICTION.replace("0.1", ""),
        'Line 4, column "prediction" is empty.',
        4,
        None,
    ),
    (
        "infinite-number",
        PAIR,
        None,
        CHEMICALX_PREDICTION.replace("0.1", "inf"),
        'Line 4, column "prediction": inf is not a finite number.',
        4,
        None,
    ),
    (
        "propensity-above-one",
        PAIR,
        None,
        CHEMICALX_PREDICTION.replace("0.9", "1.5"),
        'Line 3, column "prediction": 1.5 is not a propensity (it must be between 0 and 1).',
        3,
        None,
    ),
    (
        "probability-below-zero",
        HIV,
        None,
        "id,prediction,prob_inactive,prob_active\nm1,0,1.1,-0.1\n",
        'Line 2, column "prob_inactive": 1.1 is not a probability',
        2,
        None,
    ),
    (
        "partial-probabilities",
        USPTO,
        "id,label\nr1,0\n",
        "id,prediction,prob_0,prob_1\nr1,0,0.5,0.5\n",
        "Probability columns must cover every class or be left out entirely; missing 8 of 10",
        1,
        None,
    ),
    (
        "score-and-probabilities",
        HIV,
        None,
        "seed,id,prediction,score,prob_0,prob_1\n0,m1,0,0.1,0.9,0.1\n",
        'Give either a "score" column or prob_ columns, not both.',
        1,
        None,
    ),
    (
        "unknown-class",
        HIV,
        None,
        HIV_PREDICTION.replace("0,m1,inactive", "0,m1,maybe"),
        'Line 3, column "prediction": "maybe" is not a class of this task; use a class name (inactive, active)',
        3,
        None,
    ),
    (
        "unknown-mudi-label",
        "mudi",
        MUDI_OK,
        MUDI_OK.replace("DB001,Synergism", "DB001,Synergy"),
        '"Synergy" is not a MUDI class; expected one of Synergism, Antagonism, New Effect, No Interaction.',
        2,
        None,
    ),
    (
        "mudi-repeated-pair",
        "mudi",
        MUDI_OK,
        MUDI_OK + "DB001,Antagonism,DB002\n",
        "Line 5 repeats the pair (DB001, DB002) already predicted on line 2.",
        5,
        None,
    ),
    (
        "mudi-pair-not-in-truth",
        "mudi",
        MUDI_OK,
        MUDI_OK + "DB001,Synergism,DB004\n",
        "1 predicted pair is not in the truth in either orientation, e.g. line 5 (DB001, DB004).",
        5,
        None,
    ),
    (
        "mudi-missing-pair",
        "mudi",
        MUDI_OK,
        MUDI_OK.replace("DB003,Antagonism,DB004\n", ""),
        "The predictions miss 1 of the truth's 3 drug pairs (a pair may be predicted in either orientation), "
        "e.g. (DB003, DB004). To fix it, add a line for every missing pair; for a pair you do not want to score, "
        'write "No Interaction" as its class.',
        None,
        None,
    ),
    (
        "repeated-key",
        HIV,
        None,
        HIV_PREDICTION + "0,m1,active\n",
        'Line 8 repeats the prediction for (seed 0, id "m1") already given on line 3.',
        8,
        None,
    ),
    (
        "key-not-in-truth",
        HIV,
        None,
        HIV_PREDICTION + "0,m9,active\n",
        '1 prediction row is not in the truth, e.g. line 8 (seed 0, id "m9").',
        8,
        None,
    ),
    (
        "missing-key",
        HIV,
        None,
        HIV_PREDICTION.replace("1,m4,0\n", ""),
        'The predictions miss 1 of the truth\'s 6 keys, e.g. (seed 1, id "m4").',
        None,
        None,
    ),
    (
        "seed-not-in-truth",
        HIV,
        None,
        HIV_PREDICTION + "5,m1,active\n",
        "Seed 5 (1 row, first on line 8) is not in the truth; the truth has seeds 0, 1.",
        8,
        None,
    ),
    (
        "seed-not-a-number",
        HIV,
        None,
        HIV_PREDICTION.replace("1,m5,1", "x,m5,1"),
        'Line 2, column "seed": "x" is not a seed (a whole number >= 0).',
        2,
        None,
    ),
    (
        "no-seed-column",
        HIV,
        None,
        "id,prediction\nm1,0\n",
        'The prediction file has no "seed" column but the truth has seeds 0, 1',
        1,
        None,
    ),
    (
        "regression-not-finite",
        REGRESSION,
        None,
        "seed,id,prediction\n0,a,1\n0,b,nan\n1,a,2\n",
        'Line 3, column "prediction": "nan" is not a number.',
        3,
        None,
    ),
    ("row-cap", HIV, None, HIV_PREDICTION, "The prediction file has 6 rows; the limit is 5.", None, Limits(max_rows=5)),
    (
        "byte-cap",
        HIV,
        None,
        HIV_PREDICTION,
        "The prediction file is larger than the limit of 20 bytes (uncompressed).",
        None,
        Limits(max_bytes=20),
    ),
]

TRUTH_CASES = [
    (
        "truth-no-interaction",
        "mudi",
        MUDI_TRUTH + "DB007,No Interaction,DB008\n",
        'Line 6, column "Interaction": "No Interaction" is not allowed in the truth',
        6,
    ),
    (
        "truth-conflicting-classes",
        "mudi",
        MUDI_TRUTH + "Compound::DB003,Synergism,Compound::DB004\n",
        "Line 6 gives the pair (DB003, DB004) the class Synergism, but line 4 gave it Antagonism.",
        6,
    ),
    (
        "truth-repeated-id",
        HIV,
        HIV_TRUTH + "0,m2,active\n",
        'Line 8 repeats the key (seed 0, id "m2") of line 3; each id must appear once per seed.',
        8,
    ),
    ("truth-label-not-binary", PAIR, CHEMICALX_TRUTH + "0,D1,D4,C1,2\n", 'Line 8, column "label": 2 is not 0 or 1.', 8),
    (
        "truth-seed-outside-task",
        HIV,
        HIV_TRUTH + "7,m1,active\n",
        "Line 8: seed 7 is not one of this task's seeds (0, 1, 2).",
        8,
    ),
    (
        "truth-continuous-regression-label",
        REGRESSION,
        "seed,id,y\n0,a,high\n",
        'Line 2, column "y": "high" is not a number.',
        2,
    ),
]

DEFAULT_TRUTH = {HIV: HIV_TRUTH, PAIR: CHEMICALX_TRUTH, REGRESSION: "seed,id,y\n0,a,1\n0,b,2\n1,a,3\n"}


@pytest.mark.parametrize(
    "task, truth, prediction, message, line, limits",
    [case[1:] for case in PREDICTION_CASES],
    ids=[case[0] for case in PREDICTION_CASES],
)
def test_a_malformed_prediction_gets_its_specific_message(write, task, truth, prediction, message, line, limits):
    truth_path = write("truth.csv", truth if truth is not None else DEFAULT_TRUTH[task])
    pred_path = write("prediction.csv", prediction)
    with pytest.raises(ScoringError) as caught:
        score_files(task, truth_path, pred_path, limits=limits)
    first = caught.value.problems[0]
    assert message in first.message, str(caught.value)
    assert first.line == line


@pytest.mark.parametrize(
    "task, truth, message, line", [case[1:] for case in TRUTH_CASES], ids=[case[0] for case in TRUTH_CASES]
)
def test_a_malformed_truth_gets_its_specific_message(write, task, truth, message, line):
    with pytest.raises(ScoringError) as caught:
        load_truth(task, write("truth.csv", truth))
    first = caught.value.problems[0]
    assert message in first.message, str(caught.value)
    assert first.line == line


def test_the_corpus_has_at_least_25_distinct_cases():
    messages = {case[4] for case in PREDICTION_CASES} | {case[3] for case in TRUTH_CASES}
    assert len(PREDICTION_CASES) + len(TRUTH_CASES) >= 25
    assert len(messages) >= 25


def test_every_bad_row_is_reported_and_counted_beyond_the_display_cap(write):
    rows = "".join(f"0,D1,D2,C{i},oops\n" for i in range(120))
    truth = "drug_1,drug_2,context,label\n" + "".join(f"D1,D2,C{i},1\n" for i in range(120))
    with pytest.raises(ScoringError) as caught:
        score_files(PAIR, write("t.csv", truth), write("p.csv", "seed,drug_1,drug_2,context,prediction\n" + rows))
    assert caught.value.total == 120
    assert len(caught.value.problems) == 50
    assert caught.value.to_dict()["error_count"] == 120
    assert "... and 70 more problems." in str(caught.value)


def test_a_missing_file_is_a_scoring_error_naming_it(tmp_path, write):
    with pytest.raises(ScoringError, match="does not exist"):
        score_files(HIV, write("t.csv", HIV_TRUTH), tmp_path / "nope.csv")


def test_a_gzipped_malformed_file_still_reports_the_line(write):
    data = gzip.compress(b"seed,id,prediction\n0,m1,1\n0,m2\n")
    with pytest.raises(ScoringError) as caught:
        score_files(HIV, write("t.csv", HIV_TRUTH), write("p.bin", data))
    assert caught.value.problems[0].line == 3
