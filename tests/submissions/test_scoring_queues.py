"""Scoring queues: large and gzip uploads wait apart; the queue position counts the submission's own queue."""

from __future__ import annotations

import gzip

import pytest

from leaderboard.submissions import outcomes, queueing
from tests.submissions.helpers import make_submission, mudi_prediction_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def position(client, submission) -> int | None:
    return client.get(f"/submissions/{submission.pk}/status.json").json()["queue_position"]


def test_large_and_compressed_uploads_are_scored_from_the_large_queue(mudi_phase, alice, settings, monkeypatch):
    calls = []
    monkeypatch.setattr(queueing.current_app, "send_task", lambda name, **options: calls.append(options["queue"]))
    plain = make_submission(mudi_phase, alice.personal_team, alice)
    compressed = make_submission(mudi_phase, alice.personal_team, alice, content=gzip.compress(mudi_prediction_csv()))
    settings.SCORING_LARGE_UPLOAD_BYTES = len(mudi_prediction_csv()) - 1
    large = make_submission(mudi_phase, alice.personal_team, alice)
    for submission in (plain, compressed, large):
        queueing.enqueue(submission.pk)
    assert calls == ["scoring", "scoring-large", "scoring-large"]
    assert [s.scoring_queue for s in (plain, compressed, large)] == calls


def test_the_queue_position_counts_only_the_submissions_own_queue(client, mudi_phase, alice, sent):
    first = make_submission(mudi_phase, alice.personal_team, alice)
    compressed = make_submission(mudi_phase, alice.personal_team, alice, content=gzip.compress(mudi_prediction_csv()))
    last = make_submission(mudi_phase, alice.personal_team, alice)
    assert [position(client, s) for s in (first, compressed, last)] == [1, 1, 2]


def test_the_queue_position_falls_as_the_submissions_ahead_start(client, mudi_phase, alice, sent):
    first = make_submission(mudi_phase, alice.personal_team, alice)
    second = make_submission(mudi_phase, alice.personal_team, alice)
    third = make_submission(mudi_phase, alice.personal_team, alice)
    assert position(client, third) == 3
    outcomes.claim(first.pk)
    assert position(client, third) == 2
    outcomes.claim(second.pk)
    assert position(client, third) == 1
    assert position(client, second) is None
