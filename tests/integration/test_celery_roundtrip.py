"""A real task through the configured broker to a real worker process, seen in the database.

Locally the broker is kombu's filesystem transport; with REDIS_URL set (always in
CI) it is Redis. Nothing runs eagerly.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from leaderboard.ops.models import WorkerHeartbeat
from leaderboard.ops.tasks import heartbeat
from tests.conftest import IN_CI, REPO, process_env, wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _rows_of(worker) -> list[WorkerHeartbeat]:
    prefix = worker.name.split("@")[0] + "@"
    return list(WorkerHeartbeat.objects.filter(hostname__startswith=prefix))


def test_a_task_sent_through_the_broker_is_run_by_the_worker_process_and_written_to_the_database(worker, settings):
    if IN_CI:
        # CI must exercise Redis, not the embedded broker.
        assert settings.CELERY_BROKER_URL.startswith("redis://")
    WorkerHeartbeat.objects.all().delete()
    heartbeat.delay()
    rows = wait_for(lambda: _rows_of(worker), timeout=30, message="the worker to run ops.heartbeat")
    # One row per worker (its start may add one per queue it consumes, named "<worker>/<queue>").
    assert len([row for row in rows if "/" not in row.hostname]) == 1
    assert "ops.heartbeat" in worker.log() and "succeeded" in worker.log()


def test_the_roundtrip_goes_through_redis_when_redis_url_is_set(redis_url, worker, settings):
    assert settings.CELERY_BROKER_URL == redis_url
    import redis

    WorkerHeartbeat.objects.all().delete()
    heartbeat.delay()
    wait_for(lambda: _rows_of(worker), timeout=30, message="the worker to run ops.heartbeat via Redis")
    # The message was consumed and acknowledged: the default (background) queue drains to empty.
    client = redis.Redis.from_url(redis_url)
    wait_for(lambda: client.llen("background") == 0, timeout=30, message="the Redis queue to drain")


def test_a_starting_worker_records_a_heartbeat_at_once(worker):
    assert _rows_of(worker), "worker_ready should have stored a heartbeat"


def test_beat_sends_the_registered_heartbeat_to_the_worker(worker, tmp_path):
    WorkerHeartbeat.objects.all().delete()
    log_path = tmp_path / "beat.log"
    with open(log_path, "wb") as log:
        beat = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "leaderboard",
                "beat",
                "--loglevel=INFO",
                f"--schedule={tmp_path / 'schedule'}",
            ],
            cwd=REPO,
            env=process_env({"OPS_HEARTBEAT_SECONDS": "1"}),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(lambda: _rows_of(worker), timeout=45, message="beat's heartbeat to reach the worker")
        assert "Sending due task ops.heartbeat" in log_path.read_text()
    finally:
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(timeout=20)
