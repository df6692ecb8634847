"""No board job, page, export, API call or compare request opens a stored prediction file.

Scores, replicates and per-seed values are stored by the scoring worker; everything after it
reads those. Here the storage refuses every open once the submissions are scored.
"""

from __future__ import annotations

import pytest

from leaderboard.boards import matrix
from leaderboard.boards.recompute import recompute_phase, update_board
from leaderboard.storage import private_storage
from tests.boards.conftest import mudi_prediction_csv, mudi_truth_csv, pair_metrics, phase_for, scored, with_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def files_refused(monkeypatch):
    opened = []

    def refuse(self, name, *args, **kwargs):
        opened.append(name)
        raise AssertionError(f"a stored file was opened: {name}")

    storage = private_storage()
    storage.exists("resolve-the-lazy-storage")
    monkeypatch.setattr(type(storage._wrapped), "open", refuse)
    return opened


@pytest.fixture
def mudi_entries(standing, alice_lab, charlie, olga):
    phase = with_truth("mudi", mudi_truth_csv())
    subs = [
        scored(phase, alice_lab, "Perfect", file=mudi_prediction_csv(wrong=0)),
        scored(phase, charlie.personal_team, "OneWrong", file=mudi_prediction_csv(wrong=1), minutes=1),
        scored(phase, olga.personal_team, "Swapped", file=mudi_prediction_csv(wrong=3, swap=4), minutes=2),
    ]
    return phase, subs


def test_board_jobs_never_open_a_prediction_file(mudi_entries, files_refused):
    phase, subs = mudi_entries
    recompute_phase(phase)
    for sub in subs:
        update_board(phase, sub.pk)
    assert matrix.refresh_phase(phase.pk) == 2
    assert files_refused == []


def test_pages_exports_the_api_and_compare_never_open_a_prediction_file(client, mudi_entries, files_refused):
    phase, subs = mudi_entries
    matrix.refresh_phase(phase.pk)
    ids = ",".join(str(s.pk) for s in subs)
    for url in (
        "/tasks/mudi/",
        "/tasks/mudi/?direction=agnostic",
        "/tasks/mudi/leaderboard.csv",
        "/tasks/mudi/leaderboard.json",
        "/api/v1/tasks/mudi/leaderboard",
        f"/compare/?ids={ids}",
        f"/submissions/{subs[1].pk}/",
    ):
        response = client.get(url)
        assert response.status_code in (200, 404), url
    assert files_refused == []


def test_a_multi_seed_board_reads_per_seed_values_only(client, standing, alice_lab, charlie, files_refused):
    phase = phase_for("chemicalx-twosides")
    a = scored(phase, alice_lab, "A", pair_metrics(0.8, 0.01))
    b = scored(phase, charlie.personal_team, "B", pair_metrics(0.7, 0.02), minutes=1)
    matrix.refresh_phase(phase.pk)
    assert client.get(f"/compare/?ids={a.pk},{b.pk}").status_code == 200
    assert files_refused == []
