"""/challenges/import/: a host uploads a bundle .zip; each malformed bundle shows its message and creates nothing."""

from __future__ import annotations

import html

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pytest_django.asserts import assertContains

from leaderboard.challenges.models import AuditEntry, Challenge, Phase, TruthVersion
from tests.challenges.test_import_challenge import MALFORMED, SLUG, example_files, zip_bytes


def bundle(files: dict[str, bytes] | None = None, name: str = "bundle.zip", **kwargs) -> SimpleUploadedFile:
    data = zip_bytes(example_files() if files is None else files, **kwargs)
    return SimpleUploadedFile(name, data, content_type="application/zip")


@pytest.mark.storage
def test_a_host_imports_the_documented_example(client, olga):
    client.force_login(olga)
    response = client.post("/challenges/import/", {"bundle": bundle()})
    assert response.status_code == 302 and response["Location"] == f"/challenges/{SLUG}/manage/"
    challenge = Challenge.objects.get(slug=SLUG)
    assert olga in challenge.organizers.all() and challenge.phases.count() == 2
    assert AuditEntry.objects.filter(challenge=challenge, action="challenge.import", actor=olga).exists()


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_bundle_shows_its_specific_message_and_creates_nothing(client, olga, case):
    files, message = MALFORMED[case]
    client.force_login(olga)
    response = client.post("/challenges/import/", {"bundle": bundle(files)})
    assert response.status_code == 400
    assert html.escape(message) in response.content.decode(), case
    assertContains(response, "Nothing was imported", status_code=400)
    assert not Challenge.objects.exists() and not Phase.objects.exists() and not TruthVersion.objects.exists()


def test_a_zip_slip_entry_is_refused(client, olga):
    client.force_login(olga)
    response = client.post("/challenges/import/", {"bundle": bundle({**example_files(), "../evil.csv": b"x"})})
    assertContains(response, "&quot;..&quot; in a path is not allowed", status_code=400)
    assert not Challenge.objects.exists()


def test_a_file_that_is_not_a_zip_is_refused(client, olga):
    client.force_login(olga)
    response = client.post("/challenges/import/", {"bundle": SimpleUploadedFile("b.zip", b"not a zip")})
    assertContains(response, "the bundle is not a readable .zip file", status_code=400)
    wrong_name = client.post("/challenges/import/", {"bundle": SimpleUploadedFile("b.tar", b"x")})
    assertContains(wrong_name, "Upload the bundle as a .zip file.", status_code=400)


@pytest.mark.storage
def test_an_exported_bundle_imports_again_under_another_slug(client, olga, phase_with_truth):
    client.force_login(olga)
    exported = client.get("/challenges/mudi-2027/manage/bundle.zip").content
    again = client.post("/challenges/import/", {"bundle": SimpleUploadedFile("b.zip", exported)})
    assertContains(again, "challenge.slug: &quot;mudi-2027&quot; already exists on this site", status_code=400)
    phase_with_truth.challenge.delete()
    again = client.post("/challenges/import/", {"bundle": SimpleUploadedFile("b.zip", exported)})
    assert again.status_code == 302
    copy = Challenge.objects.get(slug="mudi-2027").phases.get()
    assert copy.truth_sha256 == phase_with_truth.truth_sha256
