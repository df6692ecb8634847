"""The size cap holds while the body streams in, and concurrent uploads per user are limited.

Checked only at the end, a 1 GiB body would be written to the temporary directory before the 400.
"""

from __future__ import annotations

import os

import pytest
from django.core.files import uploadhandler

from leaderboard.submissions.models import Submission
from leaderboard.submissions.uploads import acquire_slot, release_slot
from tests.api.helpers import bearer
from tests.submissions.helpers import as_post_file, mudi_prediction_csv, post_data

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

BIG = b"Drug1,Interaction,Drug2\n" + b"Compound::DB00001,Synergism,Compound::DB00002\n" * 20_000  # ~1 MB


def spy_on_temporary_files(monkeypatch) -> list:
    """Bytes the temporary-file handler was given, and whether its file still exists afterwards."""
    written: list = []
    real_receive = uploadhandler.TemporaryFileUploadHandler.receive_data_chunk

    def receive(self, raw_data, start):
        written.append((len(raw_data), self.file.temporary_file_path()))
        return real_receive(self, raw_data, start)

    monkeypatch.setattr(uploadhandler.TemporaryFileUploadHandler, "receive_data_chunk", receive)
    return written


def test_a_file_past_the_cap_is_cut_off_while_streaming_and_its_temporary_file_removed(
    client, alice, mudi_phase, sent, settings, tmp_path, monkeypatch
):
    settings.SUBMISSION_MAX_BYTES = 200 * 1024
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 0  # every upload goes to a temporary file
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    written = spy_on_temporary_files(monkeypatch)
    client.force_login(alice)
    data = post_data(alice.personal_team)
    data["file"] = as_post_file(BIG)
    response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 400
    assert "the limit is 0.195312 MB. Nothing was stored." in response.content.decode()
    assert sum(n for n, _ in written) <= settings.SUBMISSION_MAX_BYTES  # never the whole body
    assert written and not any(os.path.exists(path) for _, path in written)
    assert os.listdir(tmp_path) == []
    assert not Submission.objects.exists()


def test_a_declared_length_past_the_request_cap_writes_nothing(
    client, alice, mudi_phase, sent, settings, tmp_path, monkeypatch
):
    settings.MAX_UPLOAD_BYTES = 100 * 1024
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 0
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    written = spy_on_temporary_files(monkeypatch)
    client.force_login(alice)
    data = post_data(alice.personal_team)
    data["file"] = as_post_file(BIG)
    response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 400 and b"Nothing was stored" in response.content
    assert written == [] and os.listdir(tmp_path) == []


def test_the_api_answers_413(client, alice, mudi_phase, sent, settings):
    from leaderboard.api.tokens import create_token

    settings.SUBMISSION_MAX_BYTES = 200 * 1024
    token = create_token(alice, "script", "submit")[1]
    data = {"method_name": "GraphDDI", "modalities": ["graph"], "file": as_post_file(BIG)}
    response = client.post("/api/v1/tasks/mudi/submissions", data, **bearer(token))
    assert response.status_code == 413
    assert response.json()["type"].endswith("/file-too-large")
    assert not Submission.objects.exists()


def test_a_third_concurrent_upload_of_one_user_is_refused(client, alice, bob, mudi_phase, sent):
    client.force_login(alice)
    # Two uploads of alice's are in progress (the slots they hold).
    assert acquire_slot(f"user:{alice.pk}") and acquire_slot(f"user:{alice.pk}")
    data = post_data(alice.personal_team)
    data["file"] = as_post_file(mudi_prediction_csv())
    response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 429
    assert b"You already have 2 uploads in progress" in response.content
    # Another user is not affected; a finished upload frees its slot.
    client.force_login(bob)
    data = post_data(bob.personal_team)
    data["file"] = as_post_file(mudi_prediction_csv())
    assert client.post("/tasks/mudi/submit/", data).status_code == 302
    release_slot(f"user:{alice.pk}")
    client.force_login(alice)
    data = post_data(alice.personal_team)
    data["file"] = as_post_file(mudi_prediction_csv())
    assert client.post("/tasks/mudi/submit/", data).status_code == 302


def test_an_api_client_past_its_concurrent_uploads_gets_problem_json(client, alice, mudi_phase, sent):
    from leaderboard.api.tokens import create_token

    token = create_token(alice, "script", "submit")[1]
    assert acquire_slot(f"user:{alice.pk}") and acquire_slot(f"user:{alice.pk}")  # two uploads in progress
    data = {"method_name": "GraphDDI", "modalities": ["graph"], "file": as_post_file(mudi_prediction_csv())}
    response = client.post("/api/v1/tasks/mudi/submissions", data, **bearer(token))
    assert response.status_code == 429
    assert response.json()["type"] == "/api/v1/problems/rate-limited"
    assert "You already have 2 uploads in progress" in response.json()["detail"]
    assert response["Retry-After"] == "10"


def test_the_slots_belong_to_the_user_whatever_token_or_spelling_of_the_header(client, alice, mudi_phase, sent):
    """The site and every token of one user share the user's slots; rewording the header gives no new ones."""
    from leaderboard.api.tokens import create_token

    first = create_token(alice, "laptop", "submit")[1]
    second = create_token(alice, "cluster", "submit")[1]
    client.force_login(alice)
    assert acquire_slot(f"user:{alice.pk}") and acquire_slot(f"user:{alice.pk}")  # e.g. two browser uploads
    client.logout()
    for header in (f"Bearer {first}", f"bearer   {first}", f"Bearer {second}"):
        data = {"method_name": "GraphDDI", "modalities": ["graph"], "file": as_post_file(mudi_prediction_csv())}
        response = client.post("/api/v1/tasks/mudi/submissions", data, HTTP_AUTHORIZATION=header)
        assert response.status_code == 429, header
    assert not Submission.objects.exists()
    release_slot(f"user:{alice.pk}")
    data = {"method_name": "GraphDDI", "modalities": ["graph"], "file": as_post_file(mudi_prediction_csv())}
    assert client.post("/api/v1/tasks/mudi/submissions", data, **bearer(second)).status_code == 202
