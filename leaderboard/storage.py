"""File storages. Private storage is never served by the web server."""

from django.core.files.storage import Storage, storages


def private_storage() -> Storage:
    return storages["private"]
