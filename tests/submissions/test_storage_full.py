"""An upload that cannot be stored (a full disk) is refused with a sentence: nothing kept, nothing charged."""

from __future__ import annotations

import errno

import pytest

from leaderboard.storage import private_storage
from leaderboard.submissions.models import Submission
from tests.api.helpers import bearer
from tests.submissions.helpers import as_post_file, mudi_prediction_csv, post_data

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def full_disk(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    storage = private_storage()
    storage.exists("resolve-the-lazy-storage")
    monkeypatch.setattr(type(storage._wrapped), "save", refuse)  # the folder or the bucket backend alike


def test_the_form_says_the_file_could_not_be_stored(client, alice, mudi_phase, full_disk):
    client.force_login(alice)
    data = post_data(alice.personal_team)
    data["file"] = as_post_file(mudi_prediction_csv())
    response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code < 500
    assert "could not store your file" in response.content.decode()
    assert not Submission.objects.exists()


def test_the_api_answers_503_with_retry_after_and_charges_nothing(client, alice, mudi_phase, full_disk):
    from leaderboard.api.tokens import create_token

    data = {"method_name": "GraphDDI", "modalities": ["graph"], "file": as_post_file(mudi_prediction_csv())}
    response = client.post("/api/v1/tasks/mudi/submissions", data, **bearer(create_token(alice, "script", "submit")[1]))
    assert response.status_code == 503
    assert response["Retry-After"] == "60"
    body = response.json()
    assert body["type"] == "/api/v1/problems/storage-unavailable" and "nothing counts" in body["detail"]
    assert not Submission.objects.exists()
