"""PUT /api/v1/challenges/<slug>/phases/<phase>/truth: organizers upload truth; 422 with scoring's errors."""

from __future__ import annotations

import pytest
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

import scoring
from leaderboard.challenges.models import AuditEntry, TruthVersion
from tests.api.helpers import bearer
from tests.organize.test_class_groups import GROUPED_TRUTH, MAPPING, TRUTH
from tests.organize.test_truth_upload_page import SECOND_TRUTH
from tests.submissions.helpers import as_post_file, invalid_mudi_csv, mudi_truth_csv

URL = "/api/v1/challenges/mudi-2027/phases/development/truth"


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    from django.core.cache import cache

    cache.clear()


def put(client, token, content: bytes | None, url: str = URL, name: str = "truth.csv"):
    data = {} if content is None else {"file": as_post_file(content, name)}
    return client.put(url, encode_multipart(BOUNDARY, data), content_type=MULTIPART_CONTENT, **bearer(token))


@pytest.fixture
def make_token(db):
    from leaderboard.api.tokens import create_token

    return lambda user, scope: create_token(user, "script", scope)[1]


@pytest.fixture
def organize_token(olga, make_token):
    return make_token(olga, "organize")


@pytest.mark.storage
def test_the_organizer_uploads_the_truth(client, olga, phase, organize_token):
    response = put(client, organize_token, mudi_truth_csv())
    assert response.status_code == 200, response.content
    body = response.json()
    phase.refresh_from_db()
    assert body["sha256"] == phase.truth_sha256 and body["rows"] == 12 and body["changed"] is True
    (version,) = body["versions"]
    assert version["sha256"] == phase.truth_sha256 and version["uploaded_by"] == "olga"
    assert (version["rows"], version["scores"], version["current"]) == (12, 0, True)
    assert AuditEntry.objects.filter(action="truth.upload", actor=olga).exists()


@pytest.mark.storage
def test_a_replacement_keeps_the_old_version(client, phase_with_truth, organize_token):
    body = put(client, organize_token, SECOND_TRUTH).json()
    assert len(body["versions"]) == 2 and [v["current"] for v in body["versions"]].count(True) == 1
    again = put(client, organize_token, SECOND_TRUTH).json()
    assert again["changed"] is False and TruthVersion.objects.count() == 2


def test_an_invalid_truth_is_422_with_scorings_errors_and_stores_nothing(client, phase, organize_token):
    response = put(client, organize_token, invalid_mudi_csv())
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["type"].endswith("/invalid-truth") and "Nothing was stored" in body["detail"]
    with pytest.raises(scoring.ScoringError) as expected:
        scoring.validate_truth("mudi", invalid_mudi_csv())
    assert body["errors"] == expected.value.to_dict()["errors"] and body["errors"][0]["line"] is not None
    phase.refresh_from_db()
    assert not phase.has_truth and not TruthVersion.objects.exists()


def test_a_missing_file_is_422_naming_the_field(client, phase, organize_token):
    response = put(client, organize_token, None)
    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "file"


def test_a_submit_token_is_403_insufficient_scope(client, olga, phase, make_token):
    response = put(client, make_token(olga, "submit"), mudi_truth_csv())
    assert response.status_code == 403 and response.json()["type"].endswith("/insufficient-scope")


def test_no_token_is_401(client, phase):
    response = client.put(URL, encode_multipart(BOUNDARY, {}), content_type=MULTIPART_CONTENT)
    assert response.status_code == 401


@pytest.mark.parametrize("who", ["alice", "charlie", "otto"])
def test_anyone_but_the_organizers_gets_404(client, phase, make_token, who, request):
    token = make_token(request.getfixturevalue(who), "organize")
    response = put(client, token, mudi_truth_csv())
    assert response.status_code == 404 and response.json()["type"].endswith("/not-found")
    assert put(client, token, mudi_truth_csv(), url="/api/v1/challenges/nope/phases/x/truth").status_code == 404
    phase.refresh_from_db()
    assert not phase.has_truth


@pytest.mark.storage
def test_staff_may_upload(client, phase, staff, make_token):
    assert put(client, make_token(staff, "organize"), mudi_truth_csv()).status_code == 200


def test_an_unknown_phase_of_a_managed_challenge_is_404(client, phase, organize_token):
    url = "/api/v1/challenges/mudi-2027/phases/nope/truth"
    assert put(client, organize_token, mudi_truth_csv(), url=url).status_code == 404


# --- class groups: an optional "groups" part beside the truth -----------------------------------------

USPTO_URL = "/api/v1/challenges/uspto-2027/phases/development/truth"


def put_with_groups(client, token, truth: bytes, groups: bytes, url: str = USPTO_URL):
    data = {"file": as_post_file(truth, "truth.csv"), "groups": as_post_file(groups, "groups.csv")}
    return client.put(url, encode_multipart(BOUNDARY, data), content_type=MULTIPART_CONTENT, **bearer(token))


@pytest.mark.storage
def test_a_groups_part_stores_the_truth_with_a_group_column(client, uspto, organize_token):
    response = put_with_groups(client, organize_token, TRUTH, MAPPING)
    assert response.status_code == 200, response.content
    body = response.json()
    uspto.refresh_from_db()
    assert body["sha256"] == uspto.truth_sha256 and body["rows"] == 20 and body["changed"] is True
    with uspto.truth_file.open("rb") as handle:
        assert handle.read() == GROUPED_TRUTH
    assert AuditEntry.objects.get(action="truth.upload").details["groups"] == "groups.csv"


def test_a_bad_mapping_is_422_with_its_located_errors_and_stores_nothing(client, uspto, organize_token):
    response = put_with_groups(client, organize_token, TRUTH, MAPPING.replace(b"3,middle", b"3,torso"))
    assert response.status_code == 422 and response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["type"].endswith("/invalid-groups") and "Nothing was stored" in body["detail"]
    assert client.get(body["type"]).json()["title"] == "Invalid class groups"
    (error,) = body["errors"]
    assert (error["line"], error["column"]) == (5, "group") and '"torso" is not a group' in error["message"]
    uspto.refresh_from_db()
    assert not uspto.has_truth and not TruthVersion.objects.exists()


def test_a_mapping_for_a_mudi_phase_is_refused_with_scorings_sentence(client, phase, organize_token):
    response = put_with_groups(client, organize_token, mudi_truth_csv(), b"class,group\n0,head\n", url=URL)
    assert response.status_code == 422
    (error,) = response.json()["errors"]
    assert error["message"] == "Task mudi has no class groups; a group mapping is for classification tasks."
    phase.refresh_from_db()
    assert not phase.has_truth
