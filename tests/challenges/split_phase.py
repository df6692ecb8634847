"""An organized MUDI challenge with a public/private split, and submissions scored as the worker scores them.

Each test module makes its phase with ``make_split_phase`` in a fixture of its own. The truth
is the twelve pairs of the submission tests with a ``usage`` column: even rows public, odd rows
private, so a prediction's wrong rows choose its public and private scores independently.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

from django.utils import timezone

from tests.submissions.helpers import MUDI_TRUTH_ROWS, upload

WRONG = {"Synergism": "Antagonism", "Antagonism": "New Adverse", "New Adverse": "Synergism"}
PUBLIC_ROWS = [i for i in range(len(MUDI_TRUTH_ROWS)) if i % 2 == 0]
PRIVATE_ROWS = [i for i in range(len(MUDI_TRUTH_ROWS)) if i % 2 == 1]


def split_truth_csv() -> bytes:
    lines = ["Drug1,Interaction,Drug2,Usage"] + [
        f"Compound::{a},{label},Compound::{b},{'public' if i % 2 == 0 else 'private'}"
        for i, (a, label, b) in enumerate(MUDI_TRUTH_ROWS)
    ]
    return ("\n".join(lines) + "\n").encode()


def prediction_csv(wrong=()) -> bytes:
    """Every gold pair, with a wrong class on the rows numbered in ``wrong`` (see PUBLIC_ROWS, PRIVATE_ROWS)."""
    lines = ["Drug1,Interaction,Drug2"]
    for i, (a, label, b) in enumerate(MUDI_TRUTH_ROWS):
        lines.append(f"Compound::{a},{WRONG[label] if i in wrong else label},Compound::{b}")
    return ("\n".join(lines) + "\n").encode()


def make_split_phase(organizer, *, slug="mudi-2027", phase_slug="test", truth: bytes | None = None, **fields):
    """A published organized challenge with one open MUDI phase split by a usage column, truth imported.

    ``truth`` replaces the usage-column truth (``split=...`` then says how it is split).
    """
    from leaderboard.challenges.models import Challenge, Phase
    from leaderboard.challenges.services import import_truth

    challenge, _ = Challenge.objects.get_or_create(
        slug=slug, defaults={"title": "MUDI held-out pairs 2027", "kind": "organized", "is_published": True}
    )
    challenge.organizers.add(organizer)
    now = timezone.now()
    values = {
        "title": "Test phase",
        "task_slug": "mudi",
        "starts_at": now - dt.timedelta(days=1),
        "ends_at": now + dt.timedelta(days=7),
        "split": {"usage": True},
        "final_selection_allowed": True,
        "final_selection_count": 2,
        "daily_limit": 50,
        "total_limit": 100,
    }
    values.update(fields)
    phase = Phase.objects.create(challenge=challenge, slug=phase_slug, **values)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "truth.csv"
        path.write_bytes(split_truth_csv() if truth is None else truth)
        import_truth(phase, path, uploaded_by=organizer, label="split test truth")
    phase.refresh_from_db()
    return phase


def register(phase, team, user):
    from leaderboard.challenges.models import Registration

    Registration.objects.get_or_create(
        challenge=phase.challenge, team=team, defaults={"user": user, "status": Registration.Status.APPROVED}
    )


def submit_scored(phase, team, user, wrong=(), *, method="GraphDDI", is_public=True, minutes=None):
    """Upload a prediction through the service and score it as the worker does (claim, score, store, board update).

    ``minutes`` before now becomes its ``created_at`` (so tests order submissions without sleeping).
    """
    from django.db import transaction

    from leaderboard.boards.recompute import update_board
    from leaderboard.submissions import intake, outcomes, runs
    from leaderboard.submissions.models import Submission

    register(phase, team, user)
    submission = intake.create_submission(
        phase=phase,
        team=team,
        user=user,
        upload=upload(prediction_csv(wrong)),
        metadata=intake.Metadata(method_name=method, is_public=is_public, code_url="https://example.org/code"),
        enqueue=False,
    )
    if minutes is not None:
        Submission.objects.filter(pk=submission.pk).update(created_at=timezone.now() - dt.timedelta(minutes=minutes))
    token = outcomes.claim(submission.pk)
    with transaction.atomic():
        outcome = runs.score_claimed(str(submission.pk), token)
    assert outcome == "scored", Submission.objects.get(pk=submission.pk).error_message
    # In production the submission_scored receiver runs this after the commit; tests never commit.
    update_board(phase, submission.pk)
    submission.refresh_from_db()
    return submission
