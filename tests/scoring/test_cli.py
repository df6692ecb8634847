"""``python -m scoring`` run as a subprocess: exit codes, JSON shape, messages."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from scoring import TASKS
from tests.scoring.conftest import CHEMICALX_PREDICTION, CHEMICALX_TRUTH, HIV_TRUTH, REPO

TRIPLES = "drug_1,drug_2,context,label\n" + "".join(f"D{i % 7},D{i % 5},C{i % 3},{i % 2}\n" for i in range(40))


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scoring", *map(str, args)], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def test_tasks_lists_every_task_with_its_primary_metric():
    result = run("tasks")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["slug", "family", "dataset", "split", "primary"]
    assert len(lines) == 1 + len(TASKS)
    assert any(line.split()[0] == "mudi" and line.split()[-1] == "aware/macro/f1" for line in lines)


def test_score_prints_a_readable_report_with_the_primary_first(write):
    result = run(
        "score",
        "chemicalx-drugcomb",
        "--truth",
        write("t.csv", CHEMICALX_TRUTH),
        "--pred",
        write("p.csv", CHEMICALX_PREDICTION),
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Task     chemicalx-drugcomb")
    assert lines[2].startswith("Primary  auroc = ")
    assert "[summary]" in result.stdout


def test_score_json_is_one_object_with_task_primary_and_metrics(write):
    result = run(
        "score",
        "chemicalx-drugcomb",
        "--truth",
        write("t.csv", CHEMICALX_TRUTH),
        "--pred",
        write("p.csv", CHEMICALX_PREDICTION),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert set(payload) == {"task", "primary", "metrics"}
    assert payload["task"] == "chemicalx-drugcomb" and payload["primary"] == "auroc"
    assert 0 <= payload["metrics"]["auroc"] <= 1


def test_an_invalid_submission_exits_2_with_json_errors(write):
    bad = CHEMICALX_PREDICTION.replace("0.9", "1.9")
    result = run(
        "score",
        "chemicalx-drugcomb",
        "--truth",
        write("t.csv", CHEMICALX_TRUTH),
        "--pred",
        write("p.csv", bad),
        "--json",
    )
    assert result.returncode == 2
    payload = json.loads(result.stdout)
    assert payload["error_count"] == 1
    assert payload["errors"] == [
        {
            "line": 3,
            "column": "prediction",
            "message": 'Line 3, column "prediction": 1.9 is not a propensity (it must be between 0 and 1).',
        }
    ]


def test_an_invalid_submission_without_json_prints_the_problems(write):
    result = run(
        "score",
        "imdrug-hiv-random",
        "--truth",
        write("t.csv", HIV_TRUTH),
        "--pred",
        write("p.csv", "seed,id,prediction\n0,m1,maybe\n"),
    )
    assert result.returncode == 2
    assert '"maybe" is not a class of this task' in result.stderr


def test_an_unknown_task_exits_2_and_lists_the_slugs(write):
    result = run("score", "nope", "--truth", write("t.csv", HIV_TRUTH), "--pred", write("p.csv", HIV_TRUTH))
    assert result.returncode == 2
    assert "Unknown task 'nope'; valid tasks: mudi, " in result.stderr


def test_a_missing_file_exits_2_with_a_clear_message(tmp_path, write):
    result = run("score", "imdrug-hiv-random", "--truth", write("t.csv", HIV_TRUTH), "--pred", tmp_path / "gone.csv")
    assert result.returncode == 2
    assert "The prediction file" in result.stderr and "gone.csv' does not exist." in result.stderr


def test_inputs_writes_the_keys_without_labels(tmp_path, write):
    out = tmp_path / "inputs.csv"
    result = run("inputs", "imdrug-hiv-random", "--truth", write("t.csv", HIV_TRUTH), "--out", out)
    assert result.returncode == 0, result.stderr
    assert out.read_text().splitlines()[:2] == ["seed,id", "0,m1"]
    to_stdout = run("inputs", "imdrug-hiv-random", "--truth", write("t2.csv", HIV_TRUTH))
    assert to_stdout.stdout == out.read_text()


def test_make_truth_builds_chemicalx_seeds_and_refuses_continuous_labels(tmp_path, write):
    out = tmp_path / "truth.csv"
    result = run("make-truth", "chemicalx", "--triples", write("tr.csv", TRIPLES), "--seeds", "0-2", "--out", out)
    assert result.returncode == 0, result.stderr
    assert len(out.read_text().splitlines()) == 1 + 3 * 8
    continuous = write("c.csv", "drug_1,drug_2,context,label\nA,B,X,0.5\nA,C,X,40\n")
    refused = run("make-truth", "chemicalx", "--triples", continuous, "--out", tmp_path / "c-truth.csv")
    assert refused.returncode == 2
    assert "--threshold" in refused.stderr
    accepted = run(
        "make-truth",
        "chemicalx",
        "--triples",
        continuous,
        "--threshold",
        "30",
        "--seeds",
        "0,1",
        "--out",
        tmp_path / "c-truth.csv",
    )
    assert accepted.returncode == 0, accepted.stderr


@pytest.mark.slow
def test_the_benchmark_script_runs_on_a_tiny_input():
    result = subprocess.run(
        [sys.executable, "bench/scoring.py", "--rows", "1000", "--seeds", "3", "--repeat", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # Timings on a tiny input say nothing; only check the table is complete and the metrics agree.
    assert re.search(r"metrics agree with sklearn \(1e-9\)\s+True", result.stdout), result.stdout + result.stderr
    assert "Traceback" not in result.stderr


USAGE_TRUTH = """seed,drug_1,drug_2,context,label,usage
0,D1,D2,C1,1,public
0,D1,D3,C1,0,private
0,D1,D2,C1,0,public
0,D2,D3,C2,1,private
1,D1,D2,C1,1,private
1,D3,D1,C2,0,public
"""


@pytest.mark.parametrize("part", ["public", "private", "all"])
def test_score_split_reproduces_each_part_from_the_usage_column(write, part):
    from scoring import SplitSpec, score_parts

    truth, pred = write("t.csv", USAGE_TRUTH), write("p.csv", CHEMICALX_PREDICTION)
    result = run("score", "chemicalx-drugcomb", "--truth", truth, "--pred", pred, "--split", part, "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    expected = score_parts("chemicalx-drugcomb", truth, pred, SplitSpec.usage())[part]
    assert payload["split"] == part
    assert payload["metrics"] == pytest.approx({k: v for k, v in expected.metrics.items()})


def test_score_split_with_a_fraction_reproduces_the_hash_split(write):
    from scoring import SplitSpec, score_parts

    truth, pred = write("t.csv", CHEMICALX_TRUTH), write("p.csv", CHEMICALX_PREDICTION)
    args = ("score", "chemicalx-drugcomb", "--truth", truth, "--pred", pred, "--split", "private")
    result = run(*args, "--fraction", "0.5", "--split-seed", "1")
    assert result.returncode == 0, result.stderr
    assert "Part     private rows" in result.stdout
    expected = score_parts("chemicalx-drugcomb", truth, pred, SplitSpec.hashed(0.5, 1))["private"]
    assert f"Rows     {expected.n_rows:,} predictions" in result.stdout


def test_score_refuses_a_fraction_without_a_split(write):
    truth, pred = write("t.csv", CHEMICALX_TRUTH), write("p.csv", CHEMICALX_PREDICTION)
    result = run("score", "chemicalx-drugcomb", "--truth", truth, "--pred", pred, "--fraction", "0.5")
    assert result.returncode == 2
    assert "--fraction needs --split" in result.stderr


def test_inputs_of_a_truth_with_a_usage_column_leave_the_column_out(write):
    result = run("inputs", "chemicalx-drugcomb", "--truth", write("t.csv", USAGE_TRUTH))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "seed,drug_1,drug_2,context"
    assert "public" not in result.stdout and "private" not in result.stdout
