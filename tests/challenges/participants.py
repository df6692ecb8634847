"""An organized MUDI challenge to take part in, shared by the participant-page tests.

Import the fixtures into a test module (``from tests.challenges.participants import ...``):
``mudi_2027`` is published, open, with an open "dev" phase that has a truth (the twelve
pairs of tests.submissions.helpers), a "test" phase that opens in 10 days, and olga
(staff) as its organizer.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import pytest
from django.utils import timezone

from tests.submissions.helpers import as_post_file, mudi_prediction_csv, mudi_truth_csv, post_data


def organized_challenge(slug: str = "mudi-2027", **fields):
    from leaderboard.challenges.models import Challenge, Phase
    from leaderboard.challenges.services import import_truth

    now = timezone.now()
    challenge = Challenge.objects.create(
        slug=slug, title="MUDI held-out pairs 2027", kind="organized", is_published=True, **fields
    )
    dev = Phase.objects.create(
        challenge=challenge,
        slug="dev",
        title="Development",
        task_slug="mudi",
        order=1,
        starts_at=now - dt.timedelta(days=2),
        ends_at=now + dt.timedelta(days=3, hours=1),
        final_selection_allowed=True,
    )
    Phase.objects.create(
        challenge=challenge,
        slug="test",
        title="Test",
        task_slug="mudi",
        order=2,
        starts_at=now + dt.timedelta(days=10),
        ends_at=now + dt.timedelta(days=20),
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "truth.csv"
        path.write_bytes(mudi_truth_csv())
        import_truth(dev, path, synthetic=True, label="test truth")
    return challenge


@pytest.fixture
def mudi_2027(db, olga):
    challenge = organized_challenge()
    challenge.organizers.add(olga)
    return challenge


@pytest.fixture
def sent(monkeypatch):
    """Record enqueued submission ids instead of publishing to the broker."""
    from leaderboard.submissions import queueing

    ids: list[str] = []
    monkeypatch.setattr(queueing, "enqueue", lambda submission_id: ids.append(str(submission_id)) or True)
    return ids


def register(team, user, challenge, status: str = "approved", **fields):
    """A registration written directly (the register page has its own tests)."""
    from leaderboard.challenges.models import Registration

    return Registration.objects.create(challenge=challenge, team=team, user=user, status=status, **fields)


def submit_to(client, team, slug: str = "mudi-2027", phase: str = "dev", content: bytes | None = None, **overrides):
    data = post_data(team, **overrides)
    data["file"] = as_post_file(content or mudi_prediction_csv())
    return client.post(f"/challenges/{slug}/{phase}/submit/", data)
