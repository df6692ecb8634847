"""The parsed truth is cached per (phase, truth sha256) in each process."""

from __future__ import annotations

import pytest

import scoring
from leaderboard.challenges import truth_cache
from tests.submissions.helpers import MUDI_TRUTH_ROWS, mudi_truth_csv, standing_phase_with_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


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


def test_a_split_phase_reads_its_usage_column_truth_and_caches_the_split(db, tmp_path):
    from leaderboard.challenges.models import Challenge, Phase
    from leaderboard.challenges.services import import_truth

    challenge = Challenge.objects.create(slug="split-2027", title="Split", kind="organized")
    phase = Phase.objects.create(
        challenge=challenge, slug="test", title="Test", task_slug="imdrug-hiv-random", split={"usage": True}
    )
    path = tmp_path / "truth.csv"
    path.write_text("seed,id,label,usage\n0,m1,0,public\n0,m2,1,private\n1,m1,1,private\n1,m3,0,public\n")
    import_truth(phase, path)
    truth_cache.clear_cache()
    truth = truth_cache.phase_truth(phase)
    split = truth_cache.phase_split(phase)
    assert truth.n_rows == 4 and split.counts() == {"public": 2, "private": 2}
    assert truth_cache.phase_split(phase) is split
    assert list(scoring.test_inputs(phase.task, truth).columns) == ["seed", "id"]

    phase.split = {"fraction": 0.5, "seed": 1}  # a changed spec is a new cache entry, not a stale split
    assert not truth_cache.is_cached(phase)


def test_a_standing_phase_has_no_split(db):
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    assert truth_cache.phase_split(phase) is None
