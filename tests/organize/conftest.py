"""The organizer pages' cast and a challenge to manage.

Here olga is what the issue calls an organizer: a host (granted "can host challenges")
who organizes the "mudi-2027" challenge, and not staff; ``staff`` is a separate staff
user. alice is a participant, charlie an outsider, otto organizes another challenge.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tests.conftest import PASSWORD
from tests.submissions.helpers import mudi_truth_csv

NOW = timezone.now().replace(second=0, microsecond=0)  # the forms take minutes


def grant_host(user) -> None:
    from django.contrib.auth.models import Permission

    user.user_permissions.add(Permission.objects.get(codename="host_challenges"))


@pytest.fixture
def olga(db):
    from leaderboard.accounts.services import create_user

    olga = create_user("olga", "olga@example.org", PASSWORD, email_verified=True)
    grant_host(olga)
    return olga


@pytest.fixture
def staff(db):
    from leaderboard.accounts.services import create_user

    return create_user("stella", "stella@example.org", PASSWORD, is_staff=True, email_verified=True)


@pytest.fixture
def otto(db):
    """The organizer of another challenge."""
    from leaderboard.accounts.services import create_user
    from leaderboard.challenges.models import Challenge

    otto = create_user("otto", "otto@example.org", PASSWORD, email_verified=True)
    other = Challenge.objects.create(slug="other-2027", title="Other challenge", kind="organized")
    other.organizers.add(otto)
    return otto


@pytest.fixture
def challenge(olga):
    from leaderboard.challenges.models import Challenge, Phase

    challenge = Challenge.objects.create(slug="mudi-2027", title="MUDI held-out pairs 2027", kind="organized")
    challenge.organizers.add(olga)
    Phase.objects.create(
        challenge=challenge,
        slug="development",
        title="Development",
        task_slug="mudi",
        starts_at=NOW - dt.timedelta(days=1),
        ends_at=NOW + dt.timedelta(days=10),
    )
    return challenge


@pytest.fixture
def phase(challenge):
    return challenge.phases.get(slug="development")


@pytest.fixture
def uspto(olga):
    """An ImDrug phase: USPTO-50K's ten reaction classes, with head / middle / tail groups."""
    from leaderboard.challenges.models import Challenge, Phase

    challenge = Challenge.objects.create(slug="uspto-2027", title="USPTO reactions 2027", kind="organized")
    challenge.organizers.add(olga)
    return Phase.objects.create(
        challenge=challenge,
        slug="development",
        title="Development",
        task_slug="imdrug-uspto50k-random",
        starts_at=NOW - dt.timedelta(days=1),
        ends_at=NOW + dt.timedelta(days=10),
    )


def truth_upload(content: bytes | None = None, name: str = "truth.csv"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, mudi_truth_csv() if content is None else content, content_type="text/csv")


@pytest.fixture
def phase_with_truth(phase, olga):
    from leaderboard.organize.services import replace_truth

    replace_truth(phase, truth_upload(), olga)
    phase.refresh_from_db()
    return phase


@pytest.fixture
def rescores(monkeypatch):
    """Record the re-scores handed to the worker instead of sending them to the broker."""
    from leaderboard.organize import services

    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(services, "enqueue_rescore", lambda phase_id, sha: sent.append((phase_id, sha)))
    return sent
