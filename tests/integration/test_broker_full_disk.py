"""The filesystem broker on a full disk: unreadable messages are moved aside, never fatal; the sweep recovers.

Local runs only (the filesystem broker); under CI's Redis these tests skip.
"""

from __future__ import annotations

import errno
import os
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings

from leaderboard.submissions import queueing, sweeping
from leaderboard.submissions.models import Submission
from tests.conftest import IN_CI, wait_for
from tests.submissions.helpers import make_submission, mudi_truth_csv, standing_phase_with_truth

pytestmark = [pytest.mark.storage, pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def queue_folder() -> Path:
    if not settings.CELERY_BROKER_URL.startswith("filesystem://"):
        # Not a missing service: CI runs on Redis, where this transport is not in use.
        pytest.skip("the broker is not the filesystem broker")
    return Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])


@pytest.fixture
def tiny_phase(transactional_db):
    return standing_phase_with_truth("mudi", mudi_truth_csv())


def status_of(submission) -> str:
    return Submission.objects.filter(pk=submission.pk).values_list("status", flat=True).get()


def messages_in(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.msg"))


def test_unreadable_messages_are_moved_aside_and_the_sweep_scores_their_submission(
    worker, queue_folder, tiny_phase, alice
):
    # What a full disk left behind: an empty file and a truncated one, where the worker reads scoring messages.
    submission = make_submission(tiny_phase, alice.personal_team, alice)
    (queue_folder / "1_empty.scoring.msg").write_bytes(b"")
    (queue_folder / "2_truncated.scoring.msg").write_bytes(b'{"body": "eyJh')
    wait_for(lambda: not messages_in(queue_folder), timeout=30, message="the worker to take both files")
    time.sleep(0.5)

    assert worker.process.poll() is None, worker.log()  # still running
    unreadable = queue_folder.parent / "unreadable"
    assert sorted(p.name for p in unreadable.iterdir()) == ["1_empty.scoring.msg", "2_truncated.scoring.msg"]
    assert "unreadable broker message 1_empty.scoring.msg" in worker.log()
    assert status_of(submission) == "queued"

    assert sweeping.sweep(requeue_after=0).requeued == [submission.pk]
    wait_for(lambda: status_of(submission) == "scored", timeout=60, message="the submission to be scored")


def _mount_tmpfs(folder: Path, size: str) -> bool:
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True)
    return done.returncode == 0


def _fill(folder: Path) -> Path:
    filler = folder / ".filler"
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


def test_a_full_broker_disk_loses_no_submission_once_space_returns(
    worker_factory, queue_folder, tiny_phase, alice, client
):
    # A small filesystem made by the test over the queue folder, shared by this process and the worker.
    mounted = _mount_tmpfs(queue_folder, "256k")
    if not mounted:
        # As root in CI a tmpfs mount should work; elsewhere (no privileges) skip.
        if IN_CI and os.geteuid() == 0:
            pytest.fail("could not mount a tmpfs as root")
        pytest.skip("mounting a tmpfs is not permitted here")
    try:
        worker = worker_factory()
        filler = _fill(queue_folder)

        submission = make_submission(tiny_phase, alice.personal_team, alice)
        assert queueing.enqueue(submission.pk) is False  # the publish failed: no space left
        assert messages_in(queue_folder) == []  # and left no empty message behind
        assert client.get("/healthz").json()["errors"]["broker"] == "OSError"

        filler.unlink()  # space returns
        assert client.get("/healthz").status_code == 200
        assert worker.process.poll() is None, worker.log()
        assert sweeping.sweep(requeue_after=0).requeued == [submission.pk]
        wait_for(lambda: status_of(submission) == "scored", timeout=60, message="the submission to be scored")
    finally:
        subprocess.run(["umount", "-l", str(queue_folder)], capture_output=True)
