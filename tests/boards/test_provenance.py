"""Every board, dataset page and compare page says which truth its numbers were scored against."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from leaderboard.challenges.models import Phase
from tests.boards.conftest import mudi_metrics, mudi_truth_csv, phase_for, scored, with_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_a_board_names_its_truth_source_sha256_prefix_and_kind(client, standing):
    phase = with_truth("mudi", mudi_truth_csv())
    html = client.get("/tasks/mudi/").content.decode()
    assert "Synthetic demo labels:" in html
    assert "test truth" in html and f">{phase.truth_sha256[:12]}</code>" in html


def test_a_board_scored_against_real_labels_says_so(client, standing):
    phase = with_truth("mudi", mudi_truth_csv())
    Phase.objects.filter(pk=phase.pk).update(truth_is_synthetic=False, truth_source="MUDI test.csv (published)")
    html = client.get("/tasks/mudi/").content.decode()
    assert "Real published labels." in html and "MUDI test.csv (published)" in html
    assert "Synthetic demo labels" not in html


def test_the_dataset_page_carries_the_synthetic_banner_and_each_splits_truth(client, standing):
    from leaderboard.challenges.services import import_truth

    truth = "seed,id,label\n0,m1,0\n0,m2,1\n"
    for split in ("random", "standard"):
        phase = phase_for(f"imdrug-hiv-{split}")
        with tempfile.TemporaryDirectory() as tmp:
            file = Path(tmp) / "truth.csv"
            file.write_text(truth)
            import_truth(phase, file, synthetic=True, label=f"demo {split}")
    html = client.get("/datasets/imdrug/hiv/").content.decode()
    assert 'id="synthetic-banner"' in html
    assert "demo random" in html and "demo standard" in html


def test_the_compare_page_names_the_truth(client, standing, alice_lab):
    phase = with_truth("mudi", mudi_truth_csv())
    a = scored(phase, alice_lab, "A", mudi_metrics(0.7))
    b = scored(phase, alice_lab, "B", mudi_metrics(0.6), minutes=1)
    html = client.get(f"/compare/?ids={a.pk},{b.pk}").content.decode()
    assert f">{phase.truth_sha256[:12]}</code>" in html


def test_an_organized_challenges_hidden_truth_is_named_by_its_version_never_as_published_labels(
    client, olga, alice, alice_lab, tmp_path
):
    from leaderboard.challenges.services import import_truth
    from tests.challenges.split_phase import make_split_phase, split_truth_csv, submit_scored

    phase = make_split_phase(olga)
    submission = submit_scored(phase, alice_lab, alice, {0})
    for url in (f"/submissions/{submission.pk}/", f"/compare/?ids={submission.pk},{submission.pk}"):
        html = client.get(url).content.decode()
        if "provenance" not in html:
            continue
        assert "Hidden labels" in html and "truth version 1," in html
        assert "published labels" not in html and phase.truth_sha256[:12] not in html
    # A fixed truth is version 2 for everyone.
    path = tmp_path / "fixed.csv"
    path.write_bytes(split_truth_csv().replace(b"Synergism,Compound::DB00002", b"Antagonism,Compound::DB00002"))
    import_truth(phase, path, uploaded_by=olga, label="fixed")
    phase.refresh_from_db()
    assert phase.truth_provenance["version"] == 2 and phase.truth_provenance["sha256"] == ""
    assert "truth version 2," in client.get(f"/submissions/{submission.pk}/").content.decode()
