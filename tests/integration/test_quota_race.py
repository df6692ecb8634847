"""Twenty simultaneous uploads against a daily limit of five leave exactly five (PostgreSQL)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client

from leaderboard.submissions.models import Submission
from tests.submissions.helpers import (
    as_post_file,
    mudi_prediction_csv,
    mudi_truth_csv,
    post_data,
    standing_phase_with_truth,
)

pytestmark = [pytest.mark.storage, pytest.mark.services, pytest.mark.django_db(transaction=True)]

UPLOADS = 20
LIMIT = 5


def test_twenty_concurrent_uploads_against_a_limit_of_five_leave_exactly_five(postgres, alice, monkeypatch, settings):
    from leaderboard.challenges.truth_cache import phase_truth
    from leaderboard.submissions import queueing

    # The per-uploader slots would turn most of these away at the door (429); this test is about the quota lock.
    settings.MAX_CONCURRENT_UPLOADS = UPLOADS
    monkeypatch.setattr(queueing, "enqueue", lambda submission_id: True)  # no worker needed here
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    phase.daily_limit = LIMIT
    phase.save()
    phase_truth(phase)  # parse once up front so the threads race on the quota, not on parsing
    team = alice.personal_team
    start = threading.Barrier(UPLOADS)
    statuses: list[int] = []
    lock = threading.Lock()

    def one_upload() -> None:
        client = Client()
        client.force_login(alice)
        data = post_data(team)
        data["file"] = as_post_file(mudi_prediction_csv())
        try:
            start.wait()
            response = client.post("/tasks/mudi/submit/", data)
            with lock:
                statuses.append(response.status_code)
        finally:
            connection.close()  # each thread had its own connection

    threads = [threading.Thread(target=one_upload) for _ in range(UPLOADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(statuses) == [302] * LIMIT + [400] * (UPLOADS - LIMIT)
    assert Submission.objects.filter(phase=phase, team=team).count() == LIMIT
