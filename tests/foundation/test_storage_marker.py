"""A test that stores or reads files without the storage marker fails (CI's bucket pass would miss it)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, default_storage, storages

from leaderboard.storage import private_storage
from tests import storage_marker


def an_item(*markers: str):
    return SimpleNamespace(
        nodeid="tests/x/test_y.py::test_z", get_closest_marker=lambda name: name if name in markers else None
    )


@pytest.mark.storage
def test_saving_and_opening_through_the_site_storages_is_noticed(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.STORAGES = {
        **settings.STORAGES,
        "private": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": tmp_path}},
    }
    storage_marker.touched.clear()
    name = default_storage.save("note.txt", ContentFile(b"public"))
    private = private_storage().save("truth.csv", ContentFile(b"hidden"))
    with private_storage().open(private) as f:
        assert f.read() == b"hidden"
    assert storage_marker.touched == [f"save {name}", f"save {private}", f"open {private}"]


def test_static_files_and_a_storage_of_a_tests_own_are_not_counted(tmp_path):
    storage_marker.touched.clear()
    FileSystemStorage(location=tmp_path).save("own.txt", ContentFile(b"x"))
    assert not storage_marker.is_site_storage(storages["staticfiles"])
    assert storage_marker.touched == []


def test_an_unmarked_test_that_touched_a_storage_fails_naming_the_marker(monkeypatch):
    monkeypatch.delenv("STORAGE_MARKER_SURVEY", raising=False)
    with pytest.raises(pytest.fail.Exception, match=r"test_z stores or reads files \(save a\.csv\).*storage"):
        storage_marker.check(an_item(), ["save a.csv"])


def test_a_marked_test_or_one_that_touched_nothing_passes():
    storage_marker.check(an_item("storage"), ["save a.csv"])
    storage_marker.check(an_item(), [])
