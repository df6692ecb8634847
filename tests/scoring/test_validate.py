"""``scoring.validate_prediction`` and ``python -m scoring validate``: the server's verdict without the labels."""

from __future__ import annotations

import json

import pytest

from scoring import ScoringError, align, load_truth, test_inputs, validate_prediction
from scoring.cli import main
from tests.scoring.conftest import HIV_PREDICTION, HIV_TRUTH
from tests.scoring.test_malformed_corpus import DEFAULT_TRUTH, PREDICTION_CASES


def _verdict(call) -> dict | None:
    try:
        call()
    except ScoringError as error:
        return error.to_dict()
    return None


@pytest.mark.parametrize(
    "task, truth, prediction, limits",
    [(c[1], c[2], c[3], c[6]) for c in PREDICTION_CASES],
    ids=[c[0] for c in PREDICTION_CASES],
)
def test_validate_with_the_inputs_gives_the_servers_verdict_on_every_corpus_file(
    write, task, truth, prediction, limits
):
    truth_path = write("truth.csv", truth if truth is not None else DEFAULT_TRUTH[task])
    pred_path = write("prediction.csv", prediction)
    inputs_path = write("inputs.csv", test_inputs(task, truth_path).to_csv(index=False))
    server = _verdict(lambda: align(task, load_truth(task, truth_path), pred_path, limits=limits))
    local = _verdict(lambda: validate_prediction(task, pred_path, inputs=inputs_path, limits=limits))
    assert server is not None
    assert local == server


def test_a_valid_file_is_valid_with_and_without_the_inputs(write):
    truth = write("truth.csv", HIV_TRUTH)
    pred = write("pred.csv", HIV_PREDICTION)
    inputs = write("inputs.csv", test_inputs("imdrug-hiv-random", truth).to_csv(index=False))
    n = validate_prediction("imdrug-hiv-random", pred)
    assert n > 0
    assert validate_prediction("imdrug-hiv-random", pred, inputs=inputs) == n


def test_the_cli_prints_the_rows_or_the_errors_as_score_does(write, capsys):
    truth = write("truth.csv", HIV_TRUTH)
    inputs = write("inputs.csv", test_inputs("imdrug-hiv-random", truth).to_csv(index=False))
    pred = write("pred.csv", HIV_PREDICTION)
    assert main(["validate", "imdrug-hiv-random", str(pred), "--inputs", str(inputs)]) == 0
    assert "Valid:" in capsys.readouterr().out
    bad = write("bad.csv", "seed,id,prediction,confidence\n0,m1,1,0.3\n")
    assert main(["validate", "imdrug-hiv-random", str(bad), "--inputs", str(inputs), "--json"]) == 2
    validated = json.loads(capsys.readouterr().out)
    assert main(["score", "imdrug-hiv-random", "--truth", str(truth), "--pred", str(bad), "--json"]) == 2
    assert validated == json.loads(capsys.readouterr().out)
    assert validated["errors"][0]["line"] == 1
