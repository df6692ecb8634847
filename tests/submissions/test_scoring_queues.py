"""Scoring queues: large uploads wait apart, the queue position is counted in the submission's own queue."""

from __future__ import annotations

from leaderboard.submissions import outcomes, queueing
from leaderboard.submissions.models import Submission
from tests.submissions.helpers import make_submission


def position(client, submission) -> int | None:
    return client.get(f"/submissions/{submission.pk}/status.json").json()["queue_position"]


def test_the_scoring_task_goes_to_the_queue_of_the_uploads_size(mudi_phase, alice, settings, monkeypatch):
    calls = []
    monkeypatch.setattr(queueing.current_app, "send_task", lambda name, **options: calls.append((name, options)))
    small = make_submission(mudi_phase, alice.personal_team, alice)
    settings.SCORING_LARGE_UPLOAD_BYTES = small.file_size - 1
    queueing.enqueue(small.pk)
    settings.SCORING_LARGE_UPLOAD_BYTES = small.file_size
    queueing.enqueue(small.pk)
    assert [(name, options["queue"]) for name, options in calls] == [
        ("submissions.score_submission", "scoring-large"),
        ("submissions.score_submission", "scoring"),
    ]


def test_the_queue_position_counts_only_the_submissions_own_queue(client, mudi_phase, alice, settings, sent):
    first = make_submission(mudi_phase, alice.personal_team, alice)
    big = make_submission(mudi_phase, alice.personal_team, alice)
    last = make_submission(mudi_phase, alice.personal_team, alice)
    Submission.objects.filter(pk=big.pk).update(file_size=settings.SCORING_LARGE_UPLOAD_BYTES + 1)
    assert [position(client, s) for s in (first, big, last)] == [1, 1, 2]


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
