"""STORAGE_URL=s3://bucket/prefix: uploads and hidden truth live in a private bucket.

Against a real S3-compatible server (moto's, started by .ci/run): the site stores an
upload, a worker that shares no disk with it scores it from the bucket, truth imports
land in the bucket, and downloads go through our views, never a public URL.
"""

from __future__ import annotations

import gzip
import io
import urllib.error
import urllib.request

import pytest
from django.core.management import call_command

import scoring
from leaderboard.challenges.models import Phase
from leaderboard.challenges.truth_cache import clear_cache, is_cached, phase_truth
from leaderboard.storage import private_storage
from leaderboard.submissions.models import Submission
from tests.conftest import wait_for
from tests.submissions.helpers import (
    as_post_file,
    make_submission,
    mudi_prediction_csv,
    mudi_truth_csv,
    post_data,
    standing_phase_with_truth,
)
from tests.submissions.helpers import upload as as_uploaded

# Every test here stores or reads files in a bucket.
pytestmark = pytest.mark.storage

HIV_TRUTH = b"seed,id,label\n0,m1,0\n0,m2,1\n1,m1,1\n1,m3,0\n2,m1,0\n2,m4,1\n"


def local_files(root) -> set:
    return {p for p in root.rglob("*") if p.is_file()} if root.exists() else set()


@pytest.mark.services
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_upload_through_the_site_is_scored_by_a_worker_from_the_bucket(
    bucket, worker_factory, client, alice, settings, tmp_path
):
    on_disk = local_files(settings.PRIVATE_STORAGE_ROOT)  # other tests' files, on local folders
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    # The worker gets an empty folder of its own: nothing is shared on disk.
    worker = worker_factory(STORAGE_URL=bucket.url, PRIVATE_STORAGE_ROOT=str(tmp_path / "worker-disk"))
    client.force_login(alice)
    data = post_data(alice.personal_team)
    data["file"] = as_post_file(mudi_prediction_csv(wrong=3))
    response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 302, response.content[:2000]

    submission = Submission.objects.get()
    wait_for(
        lambda: Submission.objects.filter(pk=submission.pk, status__in=["scored", "failed"]).exists(),
        timeout=60,
        message="the worker to finish",
    )
    submission.refresh_from_db()
    assert submission.status == "scored", (submission.error_message, worker.log()[-3000:])
    expected = scoring.score_files("mudi", mudi_truth_csv(), mudi_prediction_csv(wrong=3))
    assert submission.primary_value == expected.metrics["aware/macro/f1"]

    keys = bucket.keys()
    assert f"{bucket.prefix}/private/{submission.file.name}" in keys
    assert f"{bucket.prefix}/private/{phase.truth_file.name}" in keys
    assert local_files(settings.PRIVATE_STORAGE_ROOT) == on_disk
    assert local_files(tmp_path / "worker-disk") == set()


@pytest.mark.django_db
def test_import_truth_stores_the_labels_in_the_bucket_and_scoring_streams_them(bucket, tmp_path, capsys):
    path = tmp_path / "hiv-truth.csv"
    path.write_bytes(HIV_TRUTH)
    call_command("load_benchmarks")
    call_command("import_truth", "imdrug-hiv-random", str(path))
    phase = Phase.objects.get(task_slug="imdrug-hiv-random")
    first_key = f"{bucket.prefix}/private/{phase.truth_file.name}"
    assert bucket.keys() == [first_key]
    assert bucket.read(first_key) == HIV_TRUTH

    # The worker's read: a stream from the bucket, parsed without a local copy.
    with phase.truth_file.open("rb") as handle:
        assert not handle.seekable()
    clear_cache()
    truth = phase_truth(phase)
    assert is_cached(phase) and truth.n_rows == 6

    # A new truth is a second object (the first stays as an earlier version); the same one again adds none.
    path.write_bytes(HIV_TRUTH.replace(b"2,m4,1", b"2,m4,0"))
    call_command("import_truth", "imdrug-hiv-random", str(path))
    call_command("import_truth", "imdrug-hiv-random", str(path))
    phase.refresh_from_db()
    second_key = f"{bucket.prefix}/private/{phase.truth_file.name}"
    assert second_key != first_key and bucket.keys() == sorted([first_key, second_key])
    assert phase_truth(phase).n_rows == 6 and bucket.read(second_key) == path.read_bytes()


@pytest.mark.django_db
def test_a_gzipped_upload_is_scored_straight_from_its_stream(bucket, alice):
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    content = gzip.compress(mudi_prediction_csv(wrong=1))
    submission = make_submission(phase, alice.personal_team, alice, content)
    with submission.file.open("rb") as handle:
        score = scoring.score_files("mudi", phase_truth(phase), handle)
    assert score.metrics == scoring.score_files("mudi", mudi_truth_csv(), mudi_prediction_csv(wrong=1)).metrics
    # Reopening a closed stored file fetches it again (the board's significance pass does this).
    with submission.file.open("rb") as handle:
        assert handle.read() == content


@pytest.mark.django_db
def test_downloads_go_through_the_site_and_never_a_public_url(bucket, client, alice, charlie, settings):
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    content = mudi_prediction_csv()
    submission = make_submission(phase, alice.personal_team, alice, content)
    endpoint = settings.AWS_S3_ENDPOINT_URL

    client.force_login(alice)
    page = client.get(f"/submissions/{submission.pk}/")
    assert page.status_code == 200 and endpoint not in page.content.decode()
    response = client.get(f"/submissions/{submission.pk}/file")
    assert response.status_code == 200 and "Location" not in response
    assert b"".join(response.streaming_content) == content

    client.force_login(charlie)
    assert client.get(f"/submissions/{submission.pk}/file").status_code in (403, 404)  # an outsider

    # The objects themselves: no public grant, and an unsigned request is refused.
    key = f"{bucket.prefix}/private/{submission.file.name}"
    for name in (key, f"{bucket.prefix}/private/{phase.truth_file.name}"):
        grants = bucket.client.get_object_acl(Bucket=bucket.name, Key=name)["Grants"]
        assert all("URI" not in g["Grantee"] for g in grants), grants  # no AllUsers / AuthenticatedUsers
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{endpoint}/{bucket.name}/{name}", timeout=10)
        assert refused.value.code == 403

    # A link, where one is made (the admin), is signed and short-lived.
    url = private_storage().url(submission.file.name)
    assert "X-Amz-Signature=" in url and "X-Amz-Expires=300" in url
    with urllib.request.urlopen(url, timeout=10) as signed:
        assert signed.read() == content


def test_the_bucket_stream_reads_in_pieces(bucket):
    name = private_storage().save("probe/stream.bin", io.BytesIO(b"abcdef" * 1000))
    with private_storage().open(name) as handle:
        assert handle.size == 6000 and handle.read(4) == b"abcd" and len(handle.read()) == 5996
        # Rewinding fetches the object again (an upload from a kept file rewinds); nothing else moves.
        assert handle.seek(0) == 0 and handle.read(6) == b"abcdef" and handle.tell() == 6
        with pytest.raises(io.UnsupportedOperation):
            handle.seek(3)
    private_storage().delete(name)
    assert not private_storage().exists(name)


def test_a_missing_object_is_file_not_found_and_an_unreachable_bucket_is_a_transient_os_error(bucket):
    from botocore.config import Config

    from leaderboard.s3storage import PrivateS3Storage, StorageUnavailable

    with pytest.raises(FileNotFoundError):
        private_storage().open("submissions/none/predictions.csv")
    down = PrivateS3Storage(
        bucket_name=bucket.name,
        endpoint_url="http://127.0.0.1:9",  # nothing listens there
        client_config=Config(retries={"max_attempts": 1}, connect_timeout=2),
    )
    with pytest.raises(StorageUnavailable) as caught:
        down.open("submissions/any/predictions.csv")
    # An OSError: the scoring task's TRANSIENT_ERRORS retries it instead of failing the upload.
    assert isinstance(caught.value, OSError)


@pytest.mark.django_db
def test_healthz_reports_a_bucket_it_cannot_reach(bucket, client, settings):
    body = client.get("/healthz").json()
    assert body["storage"] == "ok"
    private = settings.STORAGES["private"]
    dead = {**private["OPTIONS"], "endpoint_url": "http://127.0.0.1:9"}  # nothing listens there
    settings.STORAGES = {**settings.STORAGES, "private": {**private, "OPTIONS": dead}}
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["storage"] == "error" and body["errors"]["storage"] == "EndpointConnectionError"


@pytest.mark.django_db
def test_kept_files_in_the_bucket_expire(bucket, alice, monkeypatch):
    from leaderboard.submissions import staging

    staged = staging.stage(alice, as_uploaded(mudi_prediction_csv()))
    assert private_storage().exists(staged.storage_name)
    monkeypatch.setattr(staging, "MAX_AGE", -60)  # everything is older than that
    staging.sweep(alice)
    assert not private_storage().exists(staged.storage_name)
