"""/challenges/<slug>/manage/submissions.zip: every participant file and the scores, one streamed .zip."""

from __future__ import annotations

import csv
import io
import os
import zipfile

import pytest
from django.core.files.base import ContentFile

from leaderboard.challenges.models import AuditEntry
from leaderboard.organize import bulk_download
from tests.moderation.conftest import PRIVATE_VALUE, login, make_submission

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

URL = "/challenges/mudi-2027/manage/submissions.zip"


@pytest.fixture
def entries(phase, dev_phase, alice_lab, charlie):
    return [
        make_submission(phase, alice_lab, "GraphDDI"),
        make_submission(phase, charlie.personal_team, "Solo", status="failed"),
        make_submission(dev_phase, charlie.personal_team, "EarlyBird", private=None, all_rows=None),
    ]


def unzip(response) -> zipfile.ZipFile:
    assert response.streaming
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def test_it_holds_every_participants_file_and_the_scores(client, oscar, entries):
    login(client, oscar)
    response = client.get(URL)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith('attachment; filename="mudi-2027-submissions-')
    assert response["Cache-Control"] == "private, no-store"
    archive = unzip(response)
    assert archive.testzip() is None
    names = archive.namelist()
    assert names[0] == "scores.csv"
    for s in entries:
        name = f"files/{s.phase.slug}/{s.team.slug}/{s.pk}-predictions.csv"
        assert name in names
        assert archive.read(name) == f"{s.method_name}\n".encode()
    rows = list(csv.DictReader(io.StringIO(archive.read("scores.csv").decode())))
    assert len(rows) == 3 and float(rows[0]["private:aware/macro/f1"]) == PRIVATE_VALUE
    entry = AuditEntry.objects.get(action="challenge.download")
    assert entry.actor == oscar


def test_a_file_lost_by_the_storage_is_listed_and_the_rest_still_comes(client, oscar, entries):
    entries[1].file.storage.delete(entries[1].file.name)
    login(client, oscar)
    archive = unzip(client.get(URL))
    assert "predictions.csv is missing from storage" in archive.read("missing.txt").decode()
    assert len([n for n in archive.namelist() if n.startswith("files/")]) == 2


def test_the_zip_is_streamed_in_pieces_never_whole(client, oscar, entries, monkeypatch):
    # A large, barely compressible file: the response arrives in pieces of about PIECE bytes each.
    monkeypatch.setattr(bulk_download, "PIECE", 64 * 1024)
    big = os.urandom(3 * 1024 * 1024)
    entries[0].file.save("predictions.csv", ContentFile(big), save=True)
    login(client, oscar)
    pieces = list(client.get(URL).streaming_content)
    assert len(pieces) > 40
    assert max(len(p) for p in pieces) < 256 * 1024
    archive = zipfile.ZipFile(io.BytesIO(b"".join(pieces)))
    assert archive.read(bulk_download.entry_name(entries[0])) == big


def test_the_moderation_pages_link_it(client, oscar, challenge):
    login(client, oscar)
    assert (
        'href="/challenges/mudi-2027/manage/submissions.zip"'
        in client.get("/challenges/mudi-2027/manage/submissions/").content.decode()
    )


def test_nobody_but_the_organizers_gets_it(client, alice, charlie, otto, entries):
    assert client.get(URL).status_code == 302  # log in first
    for user in (alice, charlie, otto):
        login(client, user)
        assert client.get(URL).status_code == 404
    assert not AuditEntry.objects.filter(action="challenge.download").exists()
