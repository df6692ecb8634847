"""Fixtures for the organizer pages: an organized MUDI challenge, its organizers and scored entries.

The cast of tests/conftest.py plus two organizers who are not staff: oscar runs
"mudi-2027" (with olga, staff, who may manage everything), and otto runs another
challenge, so "organizer of another challenge" is tested too.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import tempfile
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.utils import timezone

from tests.conftest import PASSWORD
from tests.submissions.helpers import mudi_truth_csv

# The value a test's private score is given: a number no public value of these tests has.
PRIVATE_VALUE = 0.4321


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def oscar(db):
    from leaderboard.accounts.services import create_user

    return create_user("oscar", "oscar@example.org", PASSWORD, email_verified=True)


@pytest.fixture
def otto(db):
    from leaderboard.accounts.services import create_user

    return create_user("otto", "otto@example.org", PASSWORD, email_verified=True)


@pytest.fixture
def challenge(db, oscar, otto):
    from leaderboard.challenges.models import Challenge

    challenge = Challenge.objects.create(
        slug="mudi-2027", title="MUDI held-out pairs 2027", kind="organized", is_published=True,
        registration_mode=Challenge.Registration.APPROVAL, contact_email="organizers@example.org",
    )  # fmt: skip
    challenge.organizers.add(oscar)
    other = Challenge.objects.create(slug="other-2027", title="Another challenge", kind="organized")
    other.organizers.add(otto)
    return challenge


@pytest.fixture
def phase(challenge):
    """An open MUDI phase of the challenge, with the twelve-pair truth of the submission tests."""
    from leaderboard.challenges.models import Phase
    from leaderboard.challenges.services import import_truth

    phase = Phase.objects.create(
        challenge=challenge, slug="test", title="Test phase", task_slug="mudi", order=1,
        starts_at=timezone.now() - dt.timedelta(days=1), ends_at=timezone.now() + dt.timedelta(days=10),
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "truth.csv"
        path.write_bytes(mudi_truth_csv())
        import_truth(phase, path, synthetic=True, label="test truth")
    phase.refresh_from_db()
    return phase


@pytest.fixture
def dev_phase(challenge):
    from leaderboard.challenges.models import Phase

    return Phase.objects.create(
        challenge=challenge, slug="dev", title="Development phase", task_slug="mudi", order=0,
        starts_at=timezone.now() - dt.timedelta(days=20), ends_at=timezone.now() - dt.timedelta(days=2),
    )  # fmt: skip


def register(challenge, team, user, status="approved", **fields):
    from leaderboard.challenges.models import Registration

    return Registration.objects.create(challenge=challenge, team=team, user=user, status=status, **fields)


@pytest.fixture
def alice_registered(challenge, alice, alice_lab):
    return register(challenge, alice_lab, alice, accepted_terms_at=timezone.now())


def make_submission(
    phase,
    team,
    method: str,
    *,
    status: str = "scored",
    public: float | None = 0.7,
    private: float | None = PRIVATE_VALUE,
    all_rows: float | None = 0.6,
    user=None,
    **fields,
):
    """A submission stored as the worker stores a split phase's score: public, private and all-row results."""
    from leaderboard.submissions.models import Result, Submission

    user = user or team.members.first()
    content = f"{method}\n".encode()
    submission = Submission(
        phase=phase, team=team, user=user, method_name=method, file_name="predictions.csv",
        file_size=len(content), sha256=hashlib.sha256(content).hexdigest(), status=status,
        **fields,
    )  # fmt: skip
    submission.file.save("predictions.csv", ContentFile(content), save=False)
    if status == "scored":
        submission.primary_value, submission.private_primary_value = public, private
        submission.finished_at = timezone.now()
    if status == "failed":
        submission.error_kind, submission.error_message = "platform", "The worker was lost."
    submission.save(force_insert=True)
    if status == "scored":
        primary = phase.task.primary
        rows = []
        for part, value in (("public", public), ("private", private), ("all", all_rows)):
            if value is not None:
                rows += Result.rows_for(submission, {primary: value}, part=part)
        Result.objects.bulk_create(rows)
    return submission


def rebuild(phase) -> None:
    from leaderboard.boards.recompute import recompute_phase

    recompute_phase(phase)


def board_submission_ids(phase) -> set[str]:
    """The submissions on the phase's boards (any direction), as strings."""
    from leaderboard.boards.models import BoardRow

    return {str(i) for i in BoardRow.objects.filter(board__phase=phase).values_list("submission_id", flat=True)}


@pytest.fixture
def board_updates_run_at_once(monkeypatch):
    """Run the board-update task in-process when it is enqueued (production sends it to a worker)."""
    from leaderboard.boards import tasks

    def run(args, **options):
        tasks.refresh_boards.apply(args=args, throw=True)

    monkeypatch.setattr(tasks.refresh_boards, "apply_async", run)


@pytest.fixture
def tasks_run_at_once(monkeypatch, board_updates_run_at_once):
    """The moderation tasks (re-run a phase, e-mails) run in-process when enqueued; submissions are not scored."""
    from leaderboard.organize import moderation
    from leaderboard.submissions import queueing

    queued: list[str] = []
    monkeypatch.setattr(queueing, "enqueue", lambda submission_id: queued.append(str(submission_id)) or True)
    for task in (moderation.rerun_phase_task, moderation.email_decision_task, moderation.email_announcement_task):
        monkeypatch.setattr(task, "delay", lambda *args, _task=task: _task.apply(args=args, throw=True))
    return queued


def login(client, user) -> None:
    client.force_login(user)
