"""Every test that stores or reads files carries the `storage` marker.

CI runs the tests marked `storage` once more with every stored file in a bucket (STORAGE_URL).
A test that saves or opens a file through the site's storages (or a bucket storage of
its own) without the marker would silently miss that pass: tests/conftest.py fails it here,
naming the marker. Static files (collectstatic) do not count: STORAGE_URL never moves them.
"""

from __future__ import annotations

import os

import pytest

# What the running test did through a site storage ("save path", "open path").
touched: list[str] = []


def is_site_storage(storage) -> bool:
    from django.core.files.storage import storages

    if type(storage).__module__.startswith(("storages.", "leaderboard.s3storage")):
        return True
    return any(storage is s for alias, s in storages._storages.items() if alias != "staticfiles")


def install() -> None:
    """Note every save and open through a site storage in `touched` (once per process).

    Every backend inherits these two from Storage (each implements its own _save and _open).
    """
    from django.core.files.storage import Storage

    def watched(method):
        def call(self, name, *args, **kwargs):
            if is_site_storage(self):
                touched.append(f"{method.__name__} {name}")
            return method(self, name, *args, **kwargs)

        call.__wrapped__ = method
        return call

    for name in ("open", "save"):
        if not hasattr(getattr(Storage, name), "__wrapped__"):
            setattr(Storage, name, watched(getattr(Storage, name)))


def check(item, touched_by_it: list[str]) -> None:
    """Fail `item` if it touched a site storage without the marker.

    With STORAGE_MARKER_SURVEY=<file>, append its node id to that file instead (to mark many at once).
    """
    if not touched_by_it or item.get_closest_marker("storage") is not None:
        return
    if survey := os.environ.get("STORAGE_MARKER_SURVEY"):
        with open(survey, "a") as f:
            f.write(item.nodeid + "\n")
        return
    pytest.fail(
        f"{item.nodeid} stores or reads files ({touched_by_it[0]}) but is not marked storage: "
        "add @pytest.mark.storage (or the module's pytestmark) so that CI runs it against a bucket too",
        pytrace=False,
    )
