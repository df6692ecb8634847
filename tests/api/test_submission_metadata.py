"""Model family, training hardware and code commit through the API's submission create."""

from __future__ import annotations

import pytest

from leaderboard.submissions.models import Submission
from tests.api.helpers import bearer
from tests.submissions.helpers import as_post_file, mudi_prediction_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

COMMIT = "https://github.com/alice/ddi/commit/1a2b3c4"


def test_the_api_creates_a_submission_with_the_metadata_and_returns_it(client, alice, make_token, mudi_phase, sent):
    token = make_token(alice, "submit")
    data = {
        "method_name": "GraphDDI",
        "modalities": ["graph"],
        "file": as_post_file(mudi_prediction_csv()),
        "model_family": "language-model",
        "training_hardware": "8x H100",
        "code_commit_url": COMMIT,
    }
    response = client.post("/api/v1/tasks/mudi/submissions", data, **bearer(token))
    assert response.status_code == 202, response.json()["errors"]
    body = response.json()
    assert body["model_family"] == "language-model" and body["training_hardware"] == "8x H100"
    assert body["code_commit_url"] == COMMIT
    assert Submission.objects.get().model_family == "language-model"


def test_the_api_refuses_an_unknown_model_family_naming_the_field(client, alice, make_token, mudi_phase, sent):
    token = make_token(alice, "submit")
    data = {"method_name": "x", "modalities": ["graph"], "file": as_post_file(mudi_prediction_csv())}
    data["model_family"] = "quantum"
    response = client.post("/api/v1/tasks/mudi/submissions", data, **bearer(token))
    assert response.status_code == 422
    assert [e["field"] for e in response.json()["errors"]] == ["model_family"]
    assert not Submission.objects.exists()
