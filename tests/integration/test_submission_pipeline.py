"""Upload -> real Celery worker -> scored, and every way a worker or broker can fail on the way.

Runs against whatever the settings point at: SQLite and the filesystem broker
locally, PostgreSQL and Redis in CI (DATABASE_URL, REDIS_URL).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from kombu.exceptions import OperationalError as BrokerError

from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import import_truth, sync_standing_challenges
from leaderboard.submissions import queueing, sweeping
from leaderboard.submissions.models import Result, Submission
from leaderboard.submissions.tasks import score_submission
from tests.conftest import REPO, wait_for
from tests.submissions.helpers import (
    as_post_file,
    invalid_mudi_csv,
    make_submission,
    mudi_prediction_csv,
    mudi_truth_csv,
    post_data,
    standing_phase_with_truth,
)

pytestmark = [pytest.mark.storage, pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def status_of(submission) -> str:
    return Submission.objects.filter(pk=submission.pk).values_list("status", flat=True).get()


def wait_until(submission, status: str, timeout: float = 60) -> Submission:
    wait_for(lambda: status_of(submission) == status, timeout=timeout, message=f"status {status}")
    submission.refresh_from_db()
    return submission


def upload(client, user, content: bytes, slug: str = "mudi"):
    client.force_login(user)
    data = post_data(user.personal_team)
    data["file"] = as_post_file(content)
    return client.post(f"/tasks/{slug}/submit/", data)


def stored_metrics(submission) -> dict[str, float]:
    """Result rows back in scoring's flat key format."""
    flat = {}
    for key, seed, value in Result.objects.filter(submission=submission).values_list("key", "seed", "value"):
        flat[key if seed is None else f"seed/{seed}/{key}"] = value
    return flat


def mudi_with_known_errors(truth_path) -> bytes:
    """The real test set's pairs with deliberate mistakes of every kind scoring distinguishes."""
    gold = pd.read_csv(truth_path).drop_duplicates(subset=["Drug1", "Drug2"], ignore_index=True)
    ordered = set(zip(gold["Drug1"], gold["Drug2"], strict=True))
    labels = gold["Interaction"].to_numpy(dtype=object).copy()
    swap = {"Synergism": "Antagonism", "Antagonism": "New Effect", "New Adverse": "Synergism"}
    for i in range(0, len(labels), 7):
        labels[i] = swap.get(labels[i], "Synergism")  # wrong class
    labels[3::11] = "No Interaction"  # a gold pair predicted negative: a false negative
    d1 = gold["Drug1"].to_numpy(dtype=object).copy()
    d2 = gold["Drug2"].to_numpy(dtype=object).copy()
    for i in range(5, len(gold), 13):  # the other orientation (agnostic: right, aware: wrong)
        if (d2[i], d1[i]) not in ordered:
            d1[i], d2[i] = d2[i], d1[i]
    frame = pd.DataFrame({"Drug1": d1, "Interaction": labels, "Drug2": d2})
    taken = set(zip(d1, d2, strict=True))
    extra = gold.iloc[1::17]
    extra = extra[
        [(b, a) not in taken and (b, a) not in ordered for a, b in zip(extra["Drug1"], extra["Drug2"], strict=True)]
    ]
    both = pd.DataFrame({"Drug1": extra["Drug2"], "Interaction": "Synergism", "Drug2": extra["Drug1"]})
    return pd.concat([frame, both], ignore_index=True).to_csv(index=False).encode()


@pytest.fixture
def tiny_phase(transactional_db):
    return standing_phase_with_truth("mudi", mudi_truth_csv())


def test_a_real_mudi_submission_is_scored_with_exactly_the_numbers_of_the_cli(
    worker, client, alice, shared_data, tmp_path
):
    truth_path = shared_data / "mudi" / "test.csv"
    sync_standing_challenges()
    phase = Phase.objects.get(task_slug="mudi")
    import_truth(phase, truth_path)
    content = mudi_with_known_errors(truth_path)
    pred_path = tmp_path / "pred.csv"
    pred_path.write_bytes(content)

    started = time.monotonic()
    response = upload(client, alice, content)
    assert response.status_code == 302, response.content[:2000]
    submission = wait_until(Submission.objects.get(), "scored", timeout=90)
    elapsed = time.monotonic() - started

    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "scoring",
            "score",
            "mudi",
            "--truth",
            str(truth_path),
            "--pred",
            str(pred_path),
            "--json",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    expected = {k: v for k, v in json.loads(cli.stdout)["metrics"].items() if v is not None}
    assert stored_metrics(submission) == expected  # exact equality, not approximate
    assert submission.primary_value == expected["aware/macro/f1"]
    assert 0 < expected["aware/macro/f1"] < 1 and expected["agnostic/micro/f1"] != expected["aware/micro/f1"]
    assert submission.attempts == 1
    print(f"89k-row MUDI upload to scored: {elapsed:.2f} s")


def test_a_worker_killed_mid_scoring_leads_to_one_set_of_results(worker_factory, tiny_phase, alice):
    worker = worker_factory(LEADERBOARD_TEST_SCORING_DELAY="3")
    submission = make_submission(tiny_phase, alice.personal_team, alice)
    queueing.enqueue(submission.pk)
    submission = wait_until(submission, "running", timeout=30)
    pid = int(re.search(r"pid (\d+)", submission.worker_host).group(1))
    assert pid != worker.process.pid  # the pool process doing the work, not the supervisor
    os.kill(pid, signal.SIGKILL)

    try:
        submission = wait_until(submission, "scored", timeout=30)
    except BaseException:
        print(worker.log())
        raise
    assert submission.attempts == 2
    n_metrics = Result.objects.filter(submission=submission).count()
    assert n_metrics == len({k for k in stored_metrics(submission)})
    import scoring

    with submission.file.open("rb") as handle:
        expected = scoring.score_files("mudi", mudi_truth_csv(), handle).metrics
    assert stored_metrics(submission) == pytest.approx(expected)
    assert n_metrics == len(expected)


def test_a_message_delivered_twice_does_not_double_the_results(worker, tiny_phase, alice):
    submission = make_submission(tiny_phase, alice.personal_team, alice)
    score_submission.apply_async(args=[str(submission.pk)])
    score_submission.apply_async(args=[str(submission.pk)])
    submission = wait_until(submission, "scored")
    # Count the scoring task's lines only: the board update it enqueues logs "succeeded in" too.
    wait_for(
        lambda: sum("score_submission[" in line and "succeeded in" in line for line in worker.log().splitlines()) >= 2,
        timeout=30,
        message="both deliveries handled",
    )
    assert "'duplicate'" in worker.log()
    submission.refresh_from_db()
    assert submission.attempts == 1
    import scoring

    with submission.file.open("rb") as handle:
        expected = scoring.score_files("mudi", mudi_truth_csv(), handle).metrics
    assert Result.objects.filter(submission=submission).count() == len(expected)


def test_an_upload_while_the_broker_is_down_is_accepted_and_scored_after_the_sweep(
    worker, client, tiny_phase, alice, monkeypatch
):
    def broker_down(*args, **kwargs):
        raise BrokerError("[Errno 111] Connection refused")

    monkeypatch.setattr(queueing.current_app, "send_task", broker_down)
    response = upload(client, alice, mudi_prediction_csv())
    assert response.status_code == 302
    submission = Submission.objects.get()
    time.sleep(1.5)
    assert status_of(submission) == "queued"  # nothing reached the worker

    monkeypatch.undo()  # the broker is back
    report = sweeping.sweep(requeue_after=0)
    assert report.requeued == [submission.pk]
    wait_until(submission, "scored")


# Uploads one file as alice through the real view, in a process of its own whose
# broker is a closed port: the publish fails with a real "connection refused".
UPLOAD_THROUGH_DEAD_BROKER = """
import sys
sys.path.insert(0, {repo!r})
import django
django.setup()
from django.test import Client
from leaderboard.accounts.models import User
from tests.submissions.helpers import as_post_file, mudi_prediction_csv, post_data
alice = User.objects.get(username="alice")
client = Client()
client.force_login(alice)
data = post_data(alice.personal_team)
data["file"] = as_post_file(mudi_prediction_csv())
response = client.post("/tasks/mudi/submit/", data)
print("status", response.status_code)
"""


def test_an_upload_to_an_unreachable_broker_is_accepted_and_scored_after_the_sweep(worker, tiny_phase, alice, tmp_path):
    from tests.conftest import process_env

    script = tmp_path / "upload.py"
    script.write_text(UPLOAD_THROUGH_DEAD_BROKER.format(repo=str(REPO)))
    env = process_env({"CELERY_BROKER_URL": "redis://127.0.0.1:9/0", "DJANGO_SETTINGS_MODULE": "leaderboard.settings"})
    done = subprocess.run([sys.executable, str(script)], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert "status 302" in done.stdout, done.stdout + done.stderr
    assert "could not enqueue submission" in done.stderr  # the real publish failed and was logged
    submission = Submission.objects.get()
    time.sleep(1.5)
    assert status_of(submission) == "queued"  # nothing reached the worker

    report = sweeping.sweep(requeue_after=0)  # this process's broker is the real one
    assert report.requeued == [submission.pk]
    assert wait_until(submission, "scored").attempts == 1


def test_an_invalid_upload_never_reaches_the_queue(worker, client, tiny_phase, alice):
    response = upload(client, alice, invalid_mudi_csv())
    assert response.status_code == 400
    assert b"Friendship" in response.content and b"problems found" in response.content
    assert Submission.objects.count() == 0
    time.sleep(1.0)
    assert "Received task" not in worker.log()


def test_a_lost_worker_is_failed_by_the_sweep_uncharged_and_an_organizer_can_rerun_it(
    worker_factory, client, tiny_phase, alice, olga, settings
):
    doomed = worker_factory(LEADERBOARD_TEST_SCORING_DELAY="3")
    submission = make_submission(tiny_phase, alice.personal_team, alice)
    queueing.enqueue(submission.pk)
    wait_until(submission, "running", timeout=30)
    doomed.kill()  # the whole worker, supervisor included: nobody will report back

    settings.SUBMISSION_MAX_ATTEMPTS = 1  # no attempt left: failed (the recovery test below has attempts left)
    settings.CELERY_TASK_TIME_LIMIT = 1
    settings.SUBMISSION_LEASE_MARGIN_SECONDS = 0
    time.sleep(1.2)
    assert sweeping.sweep().failed == [submission.pk]
    submission = wait_until(submission, "failed")
    assert submission.error_kind == Submission.ErrorKind.PLATFORM
    assert "worker lost" in submission.error_message
    assert not Submission.objects.charged().filter(pk=submission.pk).exists()

    worker_factory()
    client.force_login(olga)
    assert client.post(f"/submissions/{submission.pk}/rerun").status_code == 302
    wait_until(submission, "scored")


def test_a_whole_worker_loss_mid_score_ends_scored_after_the_lease_and_one_sweep(
    worker_factory, tiny_phase, alice, settings
):
    # A SIGKILL of the worker's process group must not leave the row failed: the sweep re-scores it.
    doomed = worker_factory(LEADERBOARD_TEST_SCORING_DELAY="3")
    submission = make_submission(tiny_phase, alice.personal_team, alice)
    queueing.enqueue(submission.pk)
    wait_until(submission, "running", timeout=30)
    doomed.kill()

    settings.CELERY_TASK_TIME_LIMIT = 1
    settings.SUBMISSION_LEASE_MARGIN_SECONDS = 0
    time.sleep(1.2)
    worker_factory()
    report = sweeping.sweep()  # one sweep after the lease: no operator
    assert report.recovered == [submission.pk] and report.failed == []
    submission = wait_until(submission, "scored", timeout=60)
    assert submission.attempts == 2
    assert Result.objects.filter(submission=submission).exists()
