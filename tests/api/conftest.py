"""Fixtures for the API tests: tokens for the cast, a MUDI phase with a small truth, a clean throttle."""

from __future__ import annotations

import pytest

from tests.boards.conftest import standing  # noqa: F401 (a fixture, shared with the board tests)
from tests.submissions.helpers import mudi_truth_csv, standing_phase_with_truth


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    # The rate-limit counters live in the cache, which outlives a test's database.
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def mudi_phase(db):
    return standing_phase_with_truth("mudi", mudi_truth_csv())


@pytest.fixture
def sent(monkeypatch):
    """Record enqueued submission ids instead of publishing to the broker."""
    from leaderboard.submissions import queueing

    ids: list[str] = []
    monkeypatch.setattr(queueing, "enqueue", lambda submission_id: ids.append(str(submission_id)) or True)
    return ids


@pytest.fixture
def make_token(db):
    from leaderboard.api.tokens import create_token

    def make(user, scope: str = "submit", name: str = "script", expires_at=None) -> str:
        return create_token(user, name, scope, expires_at)[1]

    return make
