"""End to end with a real Celery worker: a scored upload reaches the board, then its bootstrap mark."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.boards.models import BoardRow
from leaderboard.submissions.intake import Metadata, create_submission
from tests.boards.conftest import mudi_prediction_csv, mudi_truth_csv, with_truth
from tests.conftest import wait_for

pytestmark = [pytest.mark.storage, pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def submit(phase, user, method: str, content: bytes):
    upload = SimpleUploadedFile("predictions.csv", content, content_type="text/csv")
    return create_submission(
        phase=phase, team=user.personal_team, user=user, upload=upload, metadata=Metadata(method_name=method)
    )


def test_a_submission_scored_by_the_worker_appears_on_the_board_with_its_mark(client, worker, alice, charlie):
    from leaderboard.challenges.services import sync_standing_challenges

    sync_standing_challenges()
    phase = with_truth("mudi", mudi_truth_csv())
    first = submit(phase, alice, "Perfect", mudi_prediction_csv())
    wait_for(lambda: BoardRow.objects.filter(submission=first).exists(), timeout=60, message="the first row")
    second = submit(phase, charlie, "Noisy", mudi_prediction_csv(wrong=7))
    wait_for(
        lambda: BoardRow.objects.filter(submission=second, board__direction="aware", low__isnull=False).exists(),
        timeout=90,
        message="the worker to score the file with its replicates and rebuild the board",
    )
    html = client.get("/tasks/mudi/").content.decode()
    assert html.index("Perfect") < html.index("Noisy")
    assert "p=0.0" in html or "p &lt; 0.0011" in html or "≈" in html
