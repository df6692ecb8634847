"""At truth upload, a hidden truth that shares rows with a public test set hosted on the site gets a warning."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from pytest_django.asserts import assertContains, assertNotContains

from tests.api.helpers import bearer
from tests.submissions.helpers import MUDI_TRUTH_ROWS, as_post_file, mudi_truth_csv, standing_phase_with_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

URL = "/challenges/mudi-2027/manage/phases/development/truth/"


def truth(rows) -> SimpleUploadedFile:
    lines = ["Drug1,Interaction,Drug2"] + [f"{b},{label},{a}" for a, label, b in rows]  # reversed, no prefix
    return SimpleUploadedFile("truth.csv", ("\n".join(lines) + "\n").encode(), content_type="text/csv")


def held_out_rows():
    return [(f"DB09{i:03d}", "Synergism", f"DB08{i:03d}") for i in range(9)]


def test_a_truth_taken_from_the_public_test_set_gets_a_warning_with_the_numbers(client, olga, phase):
    standing_phase_with_truth("mudi", mudi_truth_csv(), synthetic=False)
    client.force_login(olga)
    response = client.post(URL, {"file": truth(MUDI_TRUTH_ROWS[:9] + held_out_rows()[:3])}, follow=True)
    assertContains(response, "Stored the truth (12 rows")
    assertContains(response, "9 of this truth&#x27;s 12 test keys (75%) are in the public test set of MUDI (mudi)")


def test_held_out_rows_get_no_warning(client, olga, phase):
    standing_phase_with_truth("mudi", mudi_truth_csv(), synthetic=False)
    client.force_login(olga)
    response = client.post(URL, {"file": truth(held_out_rows())}, follow=True)
    assertContains(response, "Stored the truth (9 rows")
    assertNotContains(response, "public test set")


def test_the_api_answers_the_warning_too(client, olga, phase):
    from leaderboard.api.tokens import create_token

    standing_phase_with_truth("mudi", mudi_truth_csv(), synthetic=False)
    token = create_token(olga, "truth", "organize")[1]
    data = {"file": as_post_file(truth(MUDI_TRUTH_ROWS[:2] + held_out_rows()).read())}
    response = client.put(
        "/api/v1/challenges/mudi-2027/phases/development/truth",
        encode_multipart(BOUNDARY, data),
        content_type=MULTIPART_CONTENT,
        **bearer(token),
    )
    assert response.status_code in (200, 201), response.content
    (warning,) = response.json()["warnings"]
    assert warning.startswith("2 of this truth's 11 test keys (18%) are in the public test set of MUDI (mudi)")
