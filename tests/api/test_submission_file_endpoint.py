"""/api/v1/submissions/<id>/file: your team's uploaded file back, byte for byte, with a token."""

from __future__ import annotations

import hashlib

import pytest

from tests.api.helpers import bearer
from tests.submissions.helpers import make_submission, mudi_prediction_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

CONTENT = mudi_prediction_csv(wrong=3).replace(b"\n", b"\r\n")  # CRLF kept as sent


def url(submission) -> str:
    return f"/api/v1/submissions/{submission.pk}/file"


def test_the_team_gets_its_file_streamed_byte_for_byte_with_its_sha256(client, alice, make_token, mudi_phase):
    submission = make_submission(mudi_phase, alice.personal_team, alice, CONTENT)
    response = client.get(url(submission), **bearer(make_token(alice, "read")))
    assert response.status_code == 200
    assert response.streaming and b"".join(response.streaming_content) == CONTENT
    assert response["ETag"] == f'"{hashlib.sha256(CONTENT).hexdigest()}"'
    assert 'attachment; filename="predictions.csv"' in response["Content-Disposition"]
    listed = client.get(f"/api/v1/submissions/{submission.pk}", **bearer(make_token(alice, "read"))).json()
    assert listed["links"]["file"] == f"http://testserver{url(submission)}"


def test_a_teammate_may_download_and_an_outsider_may_not_even_when_public(
    client, alice, bob, alice_lab, charlie, make_token, mudi_phase
):
    submission = make_submission(mudi_phase, alice_lab, alice, CONTENT)
    assert client.get(url(submission), **bearer(make_token(bob, "read"))).status_code == 200
    outsider = client.get(url(submission), **bearer(make_token(charlie, "read")))
    assert outsider.status_code in (403, 404) and outsider["Content-Type"] == "application/problem+json"


def test_no_token_is_a_401_problem_not_the_login_page(client, alice, mudi_phase):
    submission = make_submission(mudi_phase, alice.personal_team, alice, CONTENT)
    response = client.get(url(submission))
    assert response.status_code == 401
    assert response.json()["type"] == "/api/v1/problems/token-required"


def test_errors_stay_problem_documents_when_the_file_is_asked_for(client, alice, charlie, make_token, mudi_phase):
    submission = make_submission(mudi_phase, alice.personal_team, alice, CONTENT)
    response = client.get(url(submission), HTTP_ACCEPT="application/octet-stream")
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["type"] == "/api/v1/problems/token-required"
