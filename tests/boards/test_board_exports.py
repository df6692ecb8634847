"""/tasks/<slug>/leaderboard.csv and .json: every column of the view, exact numbers, no private leaks."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import numpy as np
import pytest

import scoring
from tests.boards.conftest import PASSWORD, mudi_metrics, pair_metrics, phase_for, scored, with_truth
from tests.conftest import REPO

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def csv_rows(response) -> list[dict]:
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.getvalue().decode())))


@pytest.fixture
def board(standing, alice_lab, charlie):
    phase = phase_for("mudi")
    scored(phase, alice_lab, "GraphOnly", mudi_metrics(0.7, 0.6), declarations={"modalities": ["graph"]})
    scored(phase, charlie.personal_team, "TextGraph", mudi_metrics(0.6, 0.9), minutes=1,
           declarations={"modalities": ["text", "graph"]})  # fmt: skip
    scored(phase, alice_lab, "Secret", mudi_metrics(0.95), minutes=2, is_public=False)
    return phase


def test_the_csv_has_every_column_of_the_view_and_the_scoring_version(client, board):
    rows = csv_rows(client.get("/tasks/mudi/leaderboard.csv"))
    assert [r["method"] for r in rows] == ["GraphOnly", "TextGraph"]
    first = rows[0]
    for column in ("rank", "team", "submission_id", "submitted_at", "declarations", "baseline", "paper_url"):
        assert column in first
    for key in ("aware/macro/f1", "aware/micro/precision", "aware/macro/f1_mean", "agnostic/macro/f1",
                "aware/synergism/f1", "aware/new_effect/f1"):  # fmt: skip
        assert key in first
    assert first["scoring_version"] == scoring.__version__
    assert first["declarations"] == "modalities=graph"
    assert float(first["aware/macro/f1"]) == 0.7


def test_the_csv_follows_the_controls_of_the_page(client, board):
    rows = csv_rows(client.get("/tasks/mudi/leaderboard.csv?direction=agnostic"))
    assert [r["method"] for r in rows] == ["TextGraph", "GraphOnly"]
    assert "agnostic/synergism/f1" in rows[0] and "aware/synergism/f1" not in rows[0]
    assert [r["method"] for r in csv_rows(client.get("/tasks/mudi/leaderboard.csv?modalities=text"))] == ["TextGraph"]
    sorted_rows = csv_rows(client.get("/tasks/mudi/leaderboard.csv?sort=agnostic/macro/f1"))
    assert [(r["method"], r["rank"]) for r in sorted_rows] == [("TextGraph", "1"), ("GraphOnly", "2")]


def test_the_json_export_documents_its_columns_and_ranking(client, board):
    response = client.get("/tasks/mudi/leaderboard.json?direction=agnostic")
    assert response["Content-Type"] == "application/json"
    data = json.loads(response.getvalue())
    assert data["scoring_version"] == scoring.__version__
    assert data["task"]["slug"] == "mudi"
    assert data["view"]["key"] == "agnostic"
    assert data["ranking"]["metric"] == "agnostic/macro/f1"
    assert data["ranking"]["significance"] == "bootstrap"
    keys = [m["key"] for m in data["metrics"]]
    assert keys[0] == "agnostic/macro/f1"
    assert all({"name", "higher_is_better", "description"} <= set(m) for m in data["metrics"])
    assert [r["method"] for r in data["rows"]] == ["TextGraph", "GraphOnly"]
    assert set(data["columns"]) == set(data["rows"][0])
    assert data["rows"][0]["declarations"] == {"modalities": ["text", "graph"]}


def test_spreads_are_exported_next_to_their_metric(client, standing, alice_lab):
    scored(phase_for("chemicalx-twosides"), alice_lab, "DeepSynergy", pair_metrics(0.8, spread=0.0125))
    row = csv_rows(client.get("/tasks/chemicalx-twosides/leaderboard.csv"))[0]
    assert float(row["auroc/stderr"]) == 0.0125
    data = json.loads(client.get("/tasks/chemicalx-twosides/leaderboard.json").getvalue())
    names = {m["key"]: m["name"] for m in data["metrics"]}
    assert names["auroc/stderr"] == "AUROC (stderr)"


@pytest.mark.parametrize("who", [None, "charlie"])
def test_private_rows_never_appear_in_exports_for_others(client, board, who):
    if who:
        client.login(username=who, password=PASSWORD)
    for url in ("/tasks/mudi/leaderboard.csv?private=1", "/tasks/mudi/leaderboard.json?private=1"):
        assert b"Secret" not in client.get(url).getvalue()


def test_team_members_can_export_their_private_rows_uncached_by_proxies(client, board, bob):
    client.login(username="bob", password=PASSWORD)
    assert b"Secret" not in client.get("/tasks/mudi/leaderboard.csv").getvalue()
    response = client.get("/tasks/mudi/leaderboard.csv?private=1")
    rows = csv_rows(response)
    assert [(r["method"], r["visibility"]) for r in rows][0] == ("Secret", "private")
    assert "no-store" in response["Cache-Control"]


def test_the_exports_of_an_empty_board_have_a_header(client, standing):
    assert client.get("/tasks/chemicalx-twosides/leaderboard.csv").getvalue().decode().startswith("rank,position,")
    assert json.loads(client.get("/tasks/chemicalx-twosides/leaderboard.json").getvalue())["rows"] == []


def cli_metrics(task: str, truth, pred) -> dict[str, float]:
    """What `python -m scoring score --json` prints for these files."""
    out = subprocess.run(
        [sys.executable, "-m", "scoring", "score", task, "--truth", str(truth), "--pred", str(pred), "--json"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)["metrics"]


def assert_exports_equal_cli(client, task_slug: str, submission, expected: dict[str, float], query: str = ""):
    from leaderboard.boards.exports import metric_columns
    from leaderboard.boards.spec import direction_spec

    row = next(r for r in csv_rows(client.get(f"/tasks/{task_slug}/leaderboard.csv{query}"))
               if r["submission_id"] == str(submission.pk))  # fmt: skip
    document = json.loads(client.get(f"/tasks/{task_slug}/leaderboard.json{query}").getvalue())
    json_row = next(r for r in document["rows"] if r["submission_id"] == str(submission.pk))
    direction = query.split("direction=")[1] if "direction=" in query else None
    checked = 0
    for column, key in metric_columns(direction_spec(scoring.get_task(task_slug), direction)):
        if key not in expected:
            continue
        assert float(row[column]) == expected[key], column  # CSV: exact, not approximately
        assert json_row[column] == expected[key], column
        checked += 1
    assert checked >= 3


@pytest.mark.slow
def test_mudi_exports_equal_the_command_line_scorer_on_the_real_test_set(
    client, standing, alice_lab, charlie, shared_data, tmp_path
):
    truth = shared_data / "mudi" / "test.csv"
    gold = truth.read_text().splitlines()
    rng = np.random.default_rng(5)
    labels = ["Synergism", "Antagonism", "New Adverse", "No Interaction"]
    predictions = {}
    for name, noise in (("Noisy", 0.4), ("Noisier", 0.7)):
        lines = [gold[0]]
        seen = set()
        for line in gold[1:]:
            a, label, b = line.split(",")
            if (a, b) in seen:  # one prediction per ordered pair
                continue
            seen.add((a, b))
            if rng.random() < noise:
                label = labels[rng.integers(0, 4)]
            lines.append(f"{a},{label},{b}")
        path = tmp_path / f"{name}.csv"
        path.write_text("\n".join(lines) + "\n")
        predictions[name] = path
    phase = with_truth("mudi", truth.read_bytes())
    subs = {
        name: scored(phase, team, name, file=path.read_bytes(), minutes=i)
        for i, ((name, path), team) in enumerate(
            zip(predictions.items(), (alice_lab, charlie.personal_team), strict=True)
        )
    }
    for name, path in predictions.items():
        expected = cli_metrics("mudi", truth, path)
        assert_exports_equal_cli(client, "mudi", subs[name], expected)
        assert_exports_equal_cli(client, "mudi", subs[name], expected, "?direction=agnostic")


@pytest.mark.slow
def test_chemicalx_exports_equal_the_command_line_scorer_including_spreads(
    client, standing, alice_lab, shared_data, tmp_path
):
    triples = shared_data / "chemicalx" / "oncopolypharmacology" / "labeled_triples.csv"
    truth_path = tmp_path / "truth.csv"
    truth = scoring.make_chemicalx_truth(triples, threshold=0.0, out=truth_path)
    inputs = scoring.test_inputs("chemicalx-oncolypharm", truth_path)
    rng = np.random.default_rng(1)
    # A weak signal: the label (of the first matching row) plus noise.
    labels = truth.drop_duplicates(["seed", "drug_1", "drug_2", "context"])["label"].to_numpy()
    inputs["score"] = np.clip(0.3 * labels + rng.random(len(inputs)) * 0.7, 0, 1).round(6)
    pred_path = tmp_path / "pred.csv"
    inputs.to_csv(pred_path, index=False)
    phase = with_truth("chemicalx-oncolypharm", truth_path.read_bytes())
    sub = scored(phase, alice_lab, "Noise", file=pred_path.read_bytes())
    expected = cli_metrics("chemicalx-oncolypharm", truth_path, pred_path)
    assert "auroc/stderr" in expected
    assert_exports_equal_cli(client, "chemicalx-oncolypharm", sub, expected)


def test_both_exports_say_which_truth_they_were_scored_against(client, board):
    from tests.boards.conftest import mudi_truth_csv

    phase = with_truth("mudi", mudi_truth_csv())
    first = csv_rows(client.get("/tasks/mudi/leaderboard.csv"))[0]
    assert first["truth_sha256"] == phase.truth_sha256 and first["truth_synthetic"] == "yes"
    truth = json.loads(client.get("/tasks/mudi/leaderboard.json").getvalue())["truth"]
    assert truth["sha256"] == phase.truth_sha256
    assert truth["kind"] == "synthetic demo labels" and truth["source"] == "test truth"
