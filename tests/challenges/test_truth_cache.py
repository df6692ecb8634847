"""The parsed truth is cached per (phase, truth sha256) in each process."""

from __future__ import annotations

import scoring
from leaderboard.challenges import truth_cache
from tests.submissions.helpers import MUDI_TRUTH_ROWS, mudi_truth_csv, standing_phase_with_truth


def test_the_truth_is_parsed_once_per_phase_and_file(db, monkeypatch):
    truth_cache.clear_cache()
    calls = []
    real = scoring.load_truth
    monkeypatch.setattr(scoring, "load_truth", lambda *a, **k: calls.append(1) or real(*a, **k))
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    first = truth_cache.phase_truth(phase)
    assert truth_cache.phase_truth(phase) is first
    assert len(calls) == 1

    changed = mudi_truth_csv().replace(b"Synergism", b"Antagonism", 1)
    phase = standing_phase_with_truth("mudi", changed)
    assert truth_cache.phase_truth(phase) is not first
    assert len(calls) == 2
    assert first.n_rows == len(MUDI_TRUTH_ROWS)
