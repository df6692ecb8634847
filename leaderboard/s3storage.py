"""The S3-compatible backend of private storage (STORAGE_URL=s3://bucket/prefix)."""

from __future__ import annotations

from django.core.files.base import File
from storages.backends.s3 import S3Storage
from storages.utils import clean_name


class S3ReadStream(File):
    """An object's bytes streamed as they are read: no local copy, not seekable.

    django-storages' own S3File downloads the whole object into memory before the
    first read; a 200 MB submission then costs 200 MB before scoring starts.
    """

    def __init__(self, obj, name: str) -> None:
        self._obj = obj
        self._closed = True
        super().__init__(None, name)
        self.open()

    def open(self, mode: str | None = None) -> S3ReadStream:
        if mode not in (None, "rb"):
            raise ValueError(f"stored files are opened for reading in binary mode, not {mode!r}")
        if not self._closed:
            self.file.close()
        response = self._obj.get()
        self.file = response["Body"]
        self.size = response["ContentLength"]
        self._closed = False
        return self

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self.file.close()
            self._closed = True

    def seekable(self) -> bool:
        return False

    def readable(self) -> bool:
        return True


class PrivateS3Storage(S3Storage):
    """An S3-compatible bucket that holds private files only.

    Objects get no ACL (a bucket is private unless its owner opens it) and every
    URL is signed and short-lived; our views stream files instead of linking.
    Names never overwrite each other, as on the local filesystem.
    """

    def get_default_settings(self) -> dict:
        return {
            **super().get_default_settings(),
            "default_acl": None,
            "querystring_auth": True,
            "file_overwrite": False,
            "signature_version": "s3v4",
        }

    def __init__(self, **settings) -> None:
        super().__init__(**settings)
        if self.default_acl and "public" in self.default_acl:
            raise ValueError("private storage refuses a public ACL")
        self.querystring_auth = True

    def _open(self, name: str, mode: str = "rb") -> File:
        if mode != "rb":
            return super()._open(name, mode)
        key = self._normalize_name(clean_name(name))
        try:
            return S3ReadStream(self.bucket.Object(key), name)
        except self.connection.meta.client.exceptions.NoSuchKey as exc:
            raise FileNotFoundError(f"File does not exist: {name}") from exc
