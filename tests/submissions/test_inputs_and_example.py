"""/tasks/<slug>/inputs.csv and /tasks/<slug>/example.csv: keys only, and an example that scores."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import pandas as pd
import pytest

import scoring
from leaderboard.challenges.demo_truths import demo_truth
from tests.submissions.helpers import standing_phase_with_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_the_inputs_file_has_keys_and_no_labels(client, mudi_phase):
    response = client.get("/tasks/mudi/inputs.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    frame = pd.read_csv(io.BytesIO(response.content))
    assert list(frame.columns) == ["Drug1", "Drug2"]
    assert len(frame) == 12
    assert b"Synergism" not in response.content


def test_the_example_file_is_a_valid_prediction(client, mudi_phase):
    response = client.get("/tasks/mudi/example.csv")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    score = scoring.score_files("mudi", mudi_phase.truth_file.read(), response.content)
    assert score.n_rows == 12


@pytest.mark.parametrize(
    "slug", ["imdrug-hiv-random", "imdrug-uspto50k-standard", "imdrug-sbap-regression", "chemicalx-twosides"]
)
def test_the_example_file_scores_for_every_kind_of_task(client, db, slug):
    with tempfile.TemporaryDirectory() as tmp:
        truth = demo_truth(scoring.get_task(slug), Path(tmp))
        phase = standing_phase_with_truth(slug, truth.path.read_bytes())
    inputs = client.get(f"/tasks/{slug}/inputs.csv").content
    assert b"label" not in inputs.splitlines()[0] and b",y" not in inputs.splitlines()[0]
    example = client.get(f"/tasks/{slug}/example.csv").content
    score = scoring.score_files(slug, phase.truth_file.read(), example)
    assert score.n_rows > 0


def test_inputs_of_a_task_without_truth_are_404(client, mudi_phase):
    assert client.get("/tasks/imdrug-hiv-random/inputs.csv").status_code == 404
    assert client.get("/tasks/imdrug-hiv-random/example.csv").status_code == 404
