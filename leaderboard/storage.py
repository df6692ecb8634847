"""File storages. Private storage is never served by the web server.

Two backends, chosen by ``STORAGE_URL`` (settings.file_storages): local folders
(the default) or an S3-compatible bucket. Code reads stored files only through
the storage API (``field_file.open("rb")``), never through a local path, so web
and workers on different machines need nothing shared on disk. The bucket backend
is in ``leaderboard.s3storage`` (imported only when configured: boto3 is slow to load).
"""

from __future__ import annotations

from typing import cast

from django.core.files.storage import Storage, storages
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.functional import LazyObject, empty


class _PrivateStorage(LazyObject):
    # Resolved on first use and again after STORAGES changes (tests switch to a bucket),
    # although model fields keep the object they got at import time.
    _wrapped: object  # the storage, or ``empty`` until first use

    def _setup(self) -> None:
        self._wrapped = storages["private"]


_private = _PrivateStorage()


def private_storage() -> Storage:
    # The lazy object stands in for the storage it wraps (every attribute is forwarded).
    return cast(Storage, _private)


@receiver(setting_changed)
def _storages_changed(*, setting: str, **kwargs) -> None:
    if setting == "STORAGES":
        _private._wrapped = empty
