"""The S3-compatible backend of private storage (STORAGE_URL=s3://bucket/prefix)."""

from __future__ import annotations

import io
from typing import Any

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from django.core.files.base import File
from storages.backends.s3 import S3Storage
from storages.utils import clean_name


class StorageUnavailable(ConnectionError):
    """The bucket could not be reached or refused to answer: an OSError, so the worker retries."""


def _unavailable(exc: Exception, name: str | None) -> OSError:
    if isinstance(exc, ClientError) and exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
        return FileNotFoundError(f"File does not exist: {name}")
    return StorageUnavailable(f"object storage failed on {name}: {exc}")


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

    def open(self, mode: str | None = None, *args: Any, **kwargs: Any) -> S3ReadStream:
        if mode not in (None, "rb"):
            raise ValueError(f"stored files are opened for reading in binary mode, not {mode!r}")
        if not self._closed:
            self._body.close()
        try:
            response = self._obj.get()
        except (BotoCoreError, ClientError) as exc:
            raise _unavailable(exc, self.name) from exc
        # botocore's StreamingBody; File's proxied methods (readline, ...) reach it as self.file.
        self._body: Any = response["Body"]
        self.file = self._body
        self.size = response["ContentLength"]
        self._closed = False
        self._position = 0
        return self

    def read(self, size: int | None = -1) -> bytes:
        try:
            data = self._body.read(None if size is None or size < 0 else size)
        except (BotoCoreError, OSError) as exc:  # the connection dropped mid-file
            raise _unavailable(exc, self.name) from exc
        self._position += len(data)
        return data

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        # Rewinding fetches the object again (uploads and hashing rewind); nothing else moves a stream.
        if whence == io.SEEK_SET and offset == 0:
            if self._position:
                self.open()
            return 0
        if whence == io.SEEK_CUR and offset == 0:
            return self._position
        raise io.UnsupportedOperation("a file streamed from the bucket can only be rewound to its start")

    def tell(self) -> int:
        return self._position

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self._body.close()
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
        if settings.get("client_config") is None:
            # Fail fast and retry a little: a dead bucket must not hang /healthz or a worker.
            settings["client_config"] = Config(
                s3={"addressing_style": settings.get("addressing_style")},
                signature_version="s3v4",
                connect_timeout=5,
                read_timeout=60,
                retries={"mode": "standard", "max_attempts": 3},
            )
        super().__init__(**settings)
        if self.default_acl and "public" in self.default_acl:
            raise ValueError("private storage refuses a public ACL")
        self.querystring_auth = True

    def _open(self, name: str, mode: str = "rb") -> File:
        if mode != "rb":
            return super()._open(name, mode)
        return S3ReadStream(self.bucket.Object(self._normalize_name(clean_name(name))), name)
