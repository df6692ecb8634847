"""/healthz: database and broker reachability as JSON, 200 when both are ok, 503 otherwise."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import OperationalError

from leaderboard.ops.models import WorkerHeartbeat

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_it_reports_ok_when_database_and_broker_are_reachable(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == "ok" and body["database"] == "ok" and body["broker"] == "ok"
    assert body["broker_transport"] in {"filesystem", "redis"}
    assert body["worker_last_seen"] is None
    assert "errors" not in body


def test_it_is_never_cached(client, db):
    assert "no-cache" in client.get("/healthz")["Cache-Control"]


def test_it_answers_503_when_the_broker_is_unreachable(client, db, settings):
    # Nothing listens on port 1: the connection is refused at once.
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error" and body["broker"] == "error" and body["database"] == "ok"
    assert body["errors"]["broker"] == "ConnectionError"


def test_it_answers_503_when_the_filesystem_broker_folders_are_missing(client, db, settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    missing = str(tmp_path / "gone")
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": missing,
        "data_folder_out": missing,
        "control_folder": missing,
    }
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["errors"]["broker"] == "BrokerFolderMissing"


def test_it_checks_the_filesystem_broker_folders(client, db, settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path)}
    assert client.get("/healthz").status_code == 200


class _BrokenConnection:
    def cursor(self):
        raise OperationalError("could not connect to server: Connection refused (secret-host:5432)")


def test_it_answers_503_when_the_database_is_unreachable_without_leaking_details(client, db, monkeypatch):
    monkeypatch.setattr("leaderboard.ops.health.connection", _BrokenConnection())
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["database"] == "error" and body["broker"] == "ok"
    assert body["errors"] == {"database": "OperationalError"}
    assert "secret-host" not in response.content.decode()


def test_it_reports_when_a_worker_was_last_seen(client, db):
    seen = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    WorkerHeartbeat.objects.create(hostname="celery@old", last_seen=seen - dt.timedelta(hours=1))
    WorkerHeartbeat.objects.create(hostname="celery@new", last_seen=seen)
    assert client.get("/healthz").json()["worker_last_seen"] == "2026-01-02T03:04:05+00:00"


def test_it_only_answers_get_and_head(client, db):
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405


@pytest.mark.services
def test_it_reaches_a_real_redis_broker(client, db, settings, redis_url):
    settings.CELERY_BROKER_URL = redis_url
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["broker_transport"] == "redis"


@pytest.mark.services
def test_it_reaches_a_real_postgresql_database(client, db, postgres):
    assert client.get("/healthz").json()["database"] == "ok"


def _refuse_writes(execute, sql, params, many, context):
    # What a read-only database (a hot standby, default_transaction_read_only) answers to a write.
    if sql.lstrip().split(None, 1)[0].upper() in {"INSERT", "UPDATE", "DELETE"}:
        raise OperationalError("cannot execute UPDATE in a read-only transaction")
    return execute(sql, params, many, context)


def test_it_answers_503_naming_the_database_when_it_takes_no_writes(client, db):
    from django.db import connection

    with connection.execute_wrapper(_refuse_writes):
        response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["database"] == "error" and body["broker"] == "ok" and body["storage"] == "ok"
    assert body["errors"] == {"database": "OperationalError"}


def test_its_database_write_is_not_taken_for_a_worker(client, db):
    assert client.get("/healthz").status_code == 200
    assert client.get("/healthz").json()["worker_last_seen"] is None


def test_it_answers_503_naming_the_storage_that_takes_no_writes(client, db, settings, tmp_path):
    # A regular file where the folder should be: no file can be created under it, even as root.
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    settings.STORAGES = {
        **settings.STORAGES,
        "private": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(blocker)}},
    }
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["storage"] == "error" and body["storages"] == {"default": "ok", "private": "error"}
    assert body["database"] == "ok" and body["broker"] == "ok"
    assert set(body["errors"]) == {"storage"}


def test_it_leaves_no_probe_file_in_the_storages(client, db, settings):
    from pathlib import Path

    assert client.get("/healthz").status_code == 200
    for root in (settings.MEDIA_ROOT, settings.PRIVATE_STORAGE_ROOT):
        assert not list(Path(root).glob("healthz/*"))


def test_it_answers_503_naming_the_broker_when_its_disk_is_full(client, db, settings, tmp_path, monkeypatch):
    import errno

    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path)}

    def no_space(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("leaderboard.ops.health.os.fsync", no_space)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["broker"] == "error" and body["errors"] == {"broker": "OSError"}
    assert list(tmp_path.iterdir()) == []  # the probe file is removed even when the write fails


def test_it_answers_503_when_redis_refuses_writes(client, db, settings, monkeypatch):
    import redis

    # What a replica, or a Redis out of memory or failing its snapshots, answers to a write
    # while PING still works. Simulated: the Redis shared by the suite must not turn read-only.
    def refuse(self, *args, **kwargs):
        raise redis.exceptions.ReadOnlyError("You can't write against a read only replica.")

    monkeypatch.setattr(redis.Redis, "set", refuse)
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["errors"] == {"broker": "ReadOnlyError"}


def test_it_is_degraded_when_a_queues_workers_heartbeat_is_older_than_the_bound(client, db, settings):
    from django.utils import timezone

    now = timezone.now()
    WorkerHeartbeat.objects.create(hostname="scoring@a/scoring", last_seen=now)
    WorkerHeartbeat.objects.create(
        hostname="background@a/background",
        last_seen=now - dt.timedelta(seconds=settings.HEALTH_MAX_HEARTBEAT_AGE_SECONDS + 30),
    )
    response = client.get("/healthz")
    assert response.status_code == settings.HEALTH_DEGRADED_STATUS == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["lagging"] == [
        f"the background workers' last heartbeat is {settings.HEALTH_MAX_HEARTBEAT_AGE_SECONDS + 30} s old "
        f"(bound {settings.HEALTH_MAX_HEARTBEAT_AGE_SECONDS} s)"
    ]
    assert body["queues"]["scoring"]["worker_last_seen"] is not None


def test_it_is_degraded_when_the_oldest_queued_submission_waited_longer_than_the_bound(client, db, settings, alice):
    from django.utils import timezone

    from leaderboard.submissions.models import Submission
    from tests.submissions.helpers import make_submission, mudi_truth_csv, standing_phase_with_truth

    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    submission = make_submission(phase, alice.personal_team, alice)
    assert client.get("/healthz").json()["status"] == "ok"
    waited = settings.HEALTH_MAX_QUEUE_WAIT_SECONDS + 60
    Submission.objects.filter(pk=submission.pk).update(queued_at=timezone.now() - dt.timedelta(seconds=waited))
    settings.HEALTH_DEGRADED_STATUS = 503
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded" and "errors" not in body
    assert body["queues"]["scoring"]["oldest_queued_seconds"] >= waited
    assert "the oldest queued submission has waited" in body["lagging"][0]
