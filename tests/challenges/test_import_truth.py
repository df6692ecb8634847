"""manage.py import_truth TASK PATH_OR_URL: validate with scoring, store privately, idempotent."""

from __future__ import annotations

import hashlib
import http.server
import threading
from functools import partial

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from leaderboard.challenges.models import Phase

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

TRUTH = "seed,id,label\n0,m1,0\n0,m2,1\n1,m1,1\n1,m3,0\n2,m1,0\n2,m4,1\n"


@pytest.fixture
def truth_file(tmp_path):
    path = tmp_path / "hiv-truth.csv"
    path.write_text(TRUTH)
    return path


def test_it_validates_and_stores_the_truth_privately(db, truth_file, capsys):
    call_command("import_truth", "imdrug-hiv-random", str(truth_file))
    phase = Phase.objects.get(task_slug="imdrug-hiv-random")
    assert phase.truth_sha256 == hashlib.sha256(TRUTH.encode()).hexdigest()
    assert phase.truth_file.path.startswith(str(settings.PRIVATE_STORAGE_ROOT))
    assert phase.truth_file.read().decode() == TRUTH
    assert phase.truth_source == str(truth_file) and not phase.truth_is_synthetic
    assert "truth imported; 6 rows" in capsys.readouterr().out


def test_importing_the_same_file_again_changes_nothing(db, truth_file, capsys):
    call_command("import_truth", "imdrug-hiv-random", str(truth_file))
    updated = Phase.objects.get(task_slug="imdrug-hiv-random").truth_updated_at
    call_command("import_truth", "imdrug-hiv-random", str(truth_file))
    assert Phase.objects.get(task_slug="imdrug-hiv-random").truth_updated_at == updated
    assert "unchanged" in capsys.readouterr().out


def test_an_invalid_truth_is_refused_with_its_problems_and_nothing_is_stored(db, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("seed,id,label\n0,m1,0\n0,m1,zebra\n")
    with pytest.raises(CommandError, match="invalid truth file") as raised:
        call_command("import_truth", "imdrug-hiv-random", str(bad))
    assert "Line 3" in str(raised.value)
    assert not Phase.objects.get(task_slug="imdrug-hiv-random").has_truth


def test_an_unknown_task_is_refused(db, truth_file):
    with pytest.raises(CommandError, match="unknown task"):
        call_command("import_truth", "nope", str(truth_file))


def test_it_downloads_a_truth_from_a_url(db, truth_file):
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(truth_file.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/{truth_file.name}"
        call_command("import_truth", "imdrug-hiv-random", url)
    finally:
        server.shutdown()
    phase = Phase.objects.get(task_slug="imdrug-hiv-random")
    assert phase.truth_file.read().decode() == TRUTH and phase.truth_source == url


def test_it_builds_a_chemicalx_truth_from_labeled_triples(db, tmp_path):
    triples = tmp_path / "labeled_triples.csv"
    rows = [f"d{i},d{i + 1},c{i % 3},{(i * 7) % 50}" for i in range(40)]
    triples.write_text("drug_1,drug_2,context,label\n" + "\n".join(rows) + "\n")
    call_command("import_truth", "chemicalx-drugcomb", str(triples), "--from-triples", "--threshold", "30")
    phase = Phase.objects.get(task_slug="chemicalx-drugcomb")
    header, *lines = phase.truth_file.read().decode().splitlines()
    assert header == "seed,drug_1,drug_2,context,label"
    assert len(lines) == 10 * 8  # 20% of 40 rows per split, 10 splits
    assert "label > 30 positive" in phase.truth_source


def test_it_stores_the_truths_row_counts_per_seed_at_import(db, truth_file):
    call_command("import_truth", "imdrug-hiv-random", str(truth_file))
    phase = Phase.objects.get(task_slug="imdrug-hiv-random")
    assert phase.truth_counts == {"rows": 6, "per_seed": {"0": 2, "1": 2, "2": 2}}
    assert phase.truth_provenance["sha256_prefix"] == phase.truth_sha256[:12]
    assert phase.truth_provenance["kind"] == "real published labels"
