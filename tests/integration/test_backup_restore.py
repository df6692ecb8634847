"""The backup and restore drill (docs/operations.md): pg_dump plus a copy of the storage, restored elsewhere.

PostgreSQL only (skips locally without DATABASE_URL, runs in CI). The drill backs up the
test database with ``pg_dump --format=custom`` and copies the two storage folders, restores
both into a fresh database and fresh folders, and checks that the restored site shows the
same boards: the leaderboard JSON of the original and of the restored copy (served by a
``manage.py shell`` on the restored database and folders) are identical, and every stored
file is there with its recorded sha256.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from tests.boards.conftest import mudi_prediction_csv, mudi_truth_csv, scored, with_truth
from tests.conftest import REPO, process_env

pytestmark = [pytest.mark.storage, pytest.mark.services]

BOARD_URLS = ["/tasks/mudi/leaderboard.json", "/tasks/mudi/leaderboard.json?direction=agnostic"]

# Run in the restored copy: the same board exports, and each stored file's sha256 against its row.
RESTORED_CHECK = """
import hashlib, json
from django.test import Client
from leaderboard.submissions.models import Submission
client = Client()
out = {"boards": [b"".join(client.get(url).streaming_content).decode() for url in %r], "files": {}}
for s in Submission.objects.order_by("pk"):
    with s.file.open("rb") as handle:
        out["files"][str(s.pk)] = [s.sha256, hashlib.sha256(handle.read()).hexdigest()]
print("RESULT" + json.dumps(out))
"""


def _pg_args(settings_dict: dict) -> tuple[list[str], dict]:
    args = ["-h", settings_dict.get("HOST") or "127.0.0.1", "-p", str(settings_dict.get("PORT") or 5432)]
    args += ["-U", settings_dict.get("USER") or "postgres"]
    env = dict(os.environ)
    if settings_dict.get("PASSWORD"):
        env["PGPASSWORD"] = settings_dict["PASSWORD"]
    return args, env


def _run(command: list[str], env: dict) -> str:
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{command[0]} failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    return result.stdout


@pytest.fixture
def board(transactional_db, postgres, alice_lab, charlie, olga):
    from leaderboard.boards.recompute import recompute_phase
    from leaderboard.challenges.services import sync_standing_challenges

    sync_standing_challenges()
    phase = with_truth("mudi", mudi_truth_csv())
    for i, (team, method) in enumerate(
        [(alice_lab, "GraphDDI"), (charlie.personal_team, "TextDDI"), (olga.personal_team, "Baseline")]
    ):
        scored(phase, team, method, file=mudi_prediction_csv(wrong=i * 2, swap=i), minutes=i)
    recompute_phase(phase)
    return phase


def test_a_dump_and_a_storage_copy_restore_to_identical_boards(board, tmp_path):
    if os.environ.get("STORAGE_URL"):
        # CI's bucket pass: the files are not in the folders this drill copies (the local-folder pass runs it).
        pytest.skip("the drill copies the local storage folders; with STORAGE_URL the bucket is copied instead")
    db = connection.settings_dict
    pg, env = _pg_args(db)
    original = [b"".join(Client().get(url).streaming_content).decode() for url in BOARD_URLS]
    assert all(json.loads(body) for body in original)

    # Back up: the database, then the storage (uploads and hidden truths), as docs/operations.md says.
    dump = tmp_path / "backup" / "leaderboard.dump"
    dump.parent.mkdir()
    _run(["pg_dump", *pg, "--format=custom", "--no-owner", "--file", str(dump), db["NAME"]], env)
    media_copy, private_copy = tmp_path / "backup" / "media", tmp_path / "backup" / "private"
    for source, copy in ((settings.MEDIA_ROOT, media_copy), (settings.PRIVATE_STORAGE_ROOT, private_copy)):
        Path(source).mkdir(parents=True, exist_ok=True)  # a site with no public upload yet has no media folder
        shutil.copytree(source, copy)

    # Restore into a fresh database and fresh folders.
    restored = f"{db['NAME']}_restore_{uuid.uuid4().hex[:6]}"
    _run(["createdb", *pg, restored], env)
    try:
        _run(["pg_restore", *pg, "--no-owner", "--exit-on-error", "--dbname", restored, str(dump)], env)
        site = tmp_path / "restored"
        shutil.copytree(media_copy, site / "media")
        shutil.copytree(private_copy, site / "private")
        restored_env = process_env(
            {
                "DATABASE_URL": _database_url(db, restored),
                "MEDIA_ROOT": str(site / "media"),
                "PRIVATE_STORAGE_ROOT": str(site / "private"),
                "VAR_DIR": str(site / "var"),
                "CACHE_DIR": str(site / "cache"),
            }
        )
        restored_env.pop("PYTEST_VERSION", None)
        output = _run(
            [sys.executable, "manage.py", "shell", "-c", RESTORED_CHECK % (BOARD_URLS,)],
            {**restored_env, "PWD": str(REPO)},
        )
        result = json.loads(output.split("RESULT", 1)[1])
    finally:
        _run(["dropdb", *pg, "--if-exists", "--force", restored], env)

    assert result["boards"] == original
    assert len(result["files"]) == 3
    for recorded, actual in result["files"].values():
        assert recorded == actual


def _database_url(settings_dict: dict, name: str) -> str:
    user = settings_dict.get("USER") or "postgres"
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    host = settings_dict.get("HOST") or "127.0.0.1"
    return f"postgres://{user}{password}@{host}:{settings_dict.get('PORT') or 5432}/{name}"
