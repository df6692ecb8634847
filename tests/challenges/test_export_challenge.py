"""manage.py export_challenge SLUG: a bundle that imports back to an equal definition."""

from __future__ import annotations

import zipfile

import pytest
from django.core.management import CommandError, call_command

from leaderboard.challenges.bundles import definition_of
from leaderboard.challenges.models import Challenge
from tests.challenges.test_import_challenge import SLUG, write_bundle

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_an_exported_challenge_reimports_to_an_equal_definition(db, tmp_path, alice, capsys):
    call_command("import_challenge", str(write_bundle(tmp_path)), "--organizer", "alice")
    original = Challenge.objects.get(slug=SLUG)
    out = tmp_path / "exported.zip"
    call_command("export_challenge", SLUG, "--out", str(out))
    assert f"wrote {out}" in capsys.readouterr().out
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["challenge.yaml", "truth/development.csv", "truth/test.csv"]
    exported = definition_of(original)
    truths = {p.slug: p.truth_file.read() for p in original.phases.all()}

    original.delete()
    call_command("import_challenge", str(out))
    again = Challenge.objects.get(slug=SLUG)
    assert definition_of(again) == exported
    assert {p.slug: p.truth_file.read() for p in again.phases.all()} == truths


def test_a_copy_under_another_slug_has_the_same_definition(db, tmp_path):
    call_command("import_challenge", str(write_bundle(tmp_path)))
    out = tmp_path / "exported.zip"
    call_command("export_challenge", SLUG, "--out", str(out))
    call_command("import_challenge", str(out), "--slug", "copy")
    first, copy = definition_of(Challenge.objects.get(slug=SLUG)), definition_of(Challenge.objects.get(slug="copy"))
    first["challenge"].pop("slug")
    copy["challenge"].pop("slug")
    assert first == copy


def test_only_organized_challenges_are_exported(db):
    call_command("load_benchmarks")
    with pytest.raises(CommandError, match="no organized challenge 'mudi'"):
        call_command("export_challenge", "mudi")
