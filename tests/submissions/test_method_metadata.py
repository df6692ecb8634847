"""Model family, training hardware and code commit: on the submit form and the submission page (item 8)."""

from __future__ import annotations

import pytest

from leaderboard.submissions.models import Submission
from tests.submissions.helpers import as_post_file, mudi_prediction_csv, post_data

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

COMMIT = "https://github.com/alice/ddi/commit/1a2b3c4"


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def test_the_submit_form_stores_the_method_metadata_and_the_page_shows_it(alice_client, alice, mudi_phase, sent):
    data = post_data(alice.personal_team, model_family="gnn", training_hardware="1x A100, 6 h", code_commit_url=COMMIT)
    data["file"] = as_post_file(mudi_prediction_csv())
    response = alice_client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 302
    submission = Submission.objects.get()
    assert (submission.model_family, submission.training_hardware) == ("gnn", "1x A100, 6 h")
    assert submission.code_commit_url == COMMIT
    page = alice_client.get(f"/submissions/{submission.pk}/").content.decode()
    assert '<dd id="model-family">GNN</dd>' in page
    assert f'href="{COMMIT}"' in page and "1x A100, 6 h" in page


def test_the_form_refuses_an_unknown_model_family_and_stores_nothing(alice_client, alice, mudi_phase, sent):
    data = post_data(alice.personal_team, model_family="quantum")
    data["file"] = as_post_file(mudi_prediction_csv())
    response = alice_client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 400  # the form again, with the error on the field
    assert "Select a valid choice" in response.content.decode()
    assert not Submission.objects.exists()


def test_the_metadata_is_optional(alice_client, alice, mudi_phase, sent):
    data = post_data(alice.personal_team)
    data["file"] = as_post_file(mudi_prediction_csv())
    assert alice_client.post("/tasks/mudi/submit/", data).status_code == 302
    submission = Submission.objects.get()
    assert (submission.model_family, submission.training_hardware, submission.code_commit_url) == ("", "", "")
