"""The board's model-family filter and the method metadata in the CSV and JSON exports."""

from __future__ import annotations

import csv
import io

import pytest

from tests.boards.conftest import mudi_metrics, phase_for, scored
from tests.boards.test_board_page import methods

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

COMMIT = "https://github.com/alice/ddi/commit/1a2b3c4"


@pytest.fixture
def families(standing, alice_lab, charlie):
    phase = phase_for("mudi")
    scored(
        phase, alice_lab, "GraphNet", mudi_metrics(0.70), model_family="gnn", n_parameters=1_200_000,
        training_hardware="1x A100, 6 h", code_commit_url=COMMIT,
    )  # fmt: skip
    scored(phase, charlie.personal_team, "ChemBERT", mudi_metrics(0.60), minutes=1, model_family="language-model")
    scored(phase, charlie.personal_team, "Untold", mudi_metrics(0.50), minutes=2)
    return phase


def test_the_family_filter_keeps_the_entries_of_that_family(client, families):
    assert methods(client.get("/tasks/mudi/")) == ["GraphNet", "ChemBERT", "Untold"]
    assert methods(client.get("/tasks/mudi/?family=gnn")) == ["GraphNet"]
    assert methods(client.get("/tasks/mudi/?family=language-model")) == ["ChemBERT"]


def test_an_unknown_family_is_ignored_not_an_error(client, families):
    response = client.get("/tasks/mudi/?family=quantum")
    assert response.status_code == 200
    assert methods(response) == ["GraphNet", "ChemBERT", "Untold"]


def test_the_board_offers_the_families_by_name(client, families):
    html = client.get("/tasks/mudi/?family=gnn").content.decode()
    assert '<option value="gnn" selected>GNN</option>' in html
    assert '<option value="fingerprints-ml">Fingerprints + classical ML</option>' in html


def test_the_csv_export_carries_the_metadata_and_follows_the_filter(client, families):
    body = client.get("/tasks/mudi/leaderboard.csv").getvalue().decode()
    rows = {row["method"]: row for row in csv.DictReader(io.StringIO(body))}
    assert rows["GraphNet"]["model_family"] == "gnn" and rows["GraphNet"]["n_parameters"] == "1200000"
    assert rows["GraphNet"]["training_hardware"] == "1x A100, 6 h"
    assert rows["GraphNet"]["code_commit_url"] == COMMIT
    assert rows["Untold"]["model_family"] == "" and rows["Untold"]["n_parameters"] == ""
    filtered = client.get("/tasks/mudi/leaderboard.csv?family=language-model").getvalue().decode()
    assert [row["method"] for row in csv.DictReader(io.StringIO(filtered))] == ["ChemBERT"]


def test_the_json_export_carries_the_metadata(client, families):
    import json

    body = json.loads(client.get("/tasks/mudi/leaderboard.json").getvalue())
    rows = body["rows"] if isinstance(body, dict) else body
    graph = next(row for row in rows if row["method"] == "GraphNet")
    assert graph["model_family"] == "gnn" and graph["n_parameters"] == 1_200_000
    assert graph["code_commit_url"] == COMMIT
