"""Fixtures for the submission tests: a MUDI phase with a twelve-pair truth, and no broker."""

from __future__ import annotations

import pytest

from tests.submissions.helpers import make_submission, mudi_truth_csv, score_now, standing_phase_with_truth


@pytest.fixture
def mudi_phase(db):
    return standing_phase_with_truth("mudi", mudi_truth_csv())


@pytest.fixture
def sent(monkeypatch):
    """Record enqueued submission ids instead of publishing to the broker."""
    from leaderboard.submissions import queueing

    ids: list[str] = []

    def fake_enqueue(submission_id) -> bool:
        ids.append(str(submission_id))
        return True

    monkeypatch.setattr(queueing, "enqueue", fake_enqueue)
    return ids


@pytest.fixture
def public_scored(mudi_phase, alice, sent):
    submission = make_submission(
        mudi_phase, alice.personal_team, alice, description="Uses <script>x()</script> **bold**"
    )
    score_now(submission)
    return submission


@pytest.fixture
def private_lab(mudi_phase, alice, alice_lab, sent):
    return make_submission(mudi_phase, alice_lab, alice, is_public=False, method_name="Secret")
