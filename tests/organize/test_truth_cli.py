"""ddi-leaderboard truth upload CHALLENGE PHASE FILE, against a live test server."""

from __future__ import annotations

import pytest
from ddi_leaderboard.cli import main

from leaderboard.api.tokens import create_token
from tests.organize.test_class_groups import GROUPED_TRUTH, MAPPING, TRUTH
from tests.submissions.helpers import invalid_mudi_csv, mudi_truth_csv

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("DDI_LEADERBOARD_TOKEN", raising=False)


def upload(live_server, token: str, path) -> int:
    return main(["--url", live_server.url, "--token", token, "truth", "upload", "mudi-2027", "development", str(path)])


@pytest.mark.storage
def test_an_organizer_uploads_truth_from_the_command_line(live_server, home, olga, phase, tmp_path, capsys):
    token = create_token(olga, "cli", "organize")[1]
    path = tmp_path / "truth.csv"
    path.write_bytes(mudi_truth_csv())
    assert upload(live_server, token, path) == 0
    phase.refresh_from_db()
    assert f"Stored the truth of mudi-2027/development: 12 rows, sha256 {phase.truth_sha256[:12]}." in (
        capsys.readouterr().out
    )
    assert upload(live_server, token, path) == 0
    assert "Unchanged: truth.csv already is the truth" in capsys.readouterr().out


def test_an_invalid_truth_prints_located_problems_and_exits_2(live_server, home, olga, phase, tmp_path, capsys):
    token = create_token(olga, "cli", "organize")[1]
    path = tmp_path / "truth.csv"
    path.write_bytes(invalid_mudi_csv())
    assert upload(live_server, token, path) == 2
    err = capsys.readouterr().err
    assert "The truth file is not valid for this task" in err and "[line 2" in err and "Traceback" not in err
    phase.refresh_from_db()
    assert not phase.has_truth


def test_a_submit_token_exits_3_and_an_outsider_gets_not_found(
    live_server, home, olga, charlie, phase, tmp_path, capsys
):
    path = tmp_path / "truth.csv"
    path.write_bytes(mudi_truth_csv())
    assert upload(live_server, create_token(olga, "cli", "submit")[1], path) == 3
    assert "'organize' scope" in capsys.readouterr().err
    assert upload(live_server, create_token(charlie, "cli", "organize")[1], path) == 2
    assert "Error:" in capsys.readouterr().err


@pytest.mark.storage
def test_groups_store_the_truth_with_a_group_column_and_a_bad_mapping_is_located(
    live_server, home, olga, uspto, tmp_path, capsys
):
    token = create_token(olga, "cli", "organize")[1]
    truth, groups = tmp_path / "truth.csv", tmp_path / "groups.csv"
    truth.write_bytes(TRUTH)
    groups.write_bytes(MAPPING.replace(b"3,middle", b"3,torso"))
    args = ["--url", live_server.url, "--token", token, "truth", "upload", "uspto-2027", "development", str(truth)]
    assert main([*args, "--groups", str(groups)]) == 2
    err = capsys.readouterr().err
    assert "The class groups are not valid for this task" in err and "[line 5" in err and "torso" in err
    uspto.refresh_from_db()
    assert not uspto.has_truth
    groups.write_bytes(MAPPING)
    assert main([*args, "--groups", str(groups)]) == 0
    assert "Stored the truth of uspto-2027/development: 20 rows" in capsys.readouterr().out
    uspto.refresh_from_db()
    with uspto.truth_file.open("rb") as handle:
        assert handle.read() == GROUPED_TRUTH
