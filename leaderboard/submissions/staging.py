"""A prediction file kept across a submit-form error.

When the form fails on another field (a missing declaration, a bad URL, the
quota), a file that passed its own checks is saved in private storage under
``staged/<user id>/`` and the form carries a signed token naming it. The token
is tied to the user and expires after ``MAX_AGE`` seconds, so nobody else can
submit it and stale files are swept on the next staging.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.core import signing
from django.core.files import File
from django.utils.text import get_valid_filename

from leaderboard.storage import private_storage

MAX_AGE = 3600  # seconds a kept file stays usable
SALT = "leaderboard.submissions.staged-file"
ROOT = "staged"  # in private storage: staged/<user id>/<random>-<file name>


@dataclass(frozen=True)
class Staged:
    token: str
    storage_name: str
    name: str  # the file name as the user chose it
    size: int


def _folder(user) -> str:
    return f"{ROOT}/{user.pk}"


def stage(user, upload) -> Staged:
    """Save ``upload`` for ``user`` and return its token (the user's expired files are removed)."""
    sweep(user)
    storage = private_storage()
    upload.seek(0)
    safe = get_valid_filename(upload.name or "predictions.csv")[:100] or "predictions.csv"
    stored = storage.save(f"{_folder(user)}/{secrets.token_hex(8)}-{safe}", upload)
    upload.seek(0)
    payload = {"user": user.pk, "file": stored, "name": upload.name, "size": upload.size}
    return Staged(signing.dumps(payload, salt=SALT), stored, upload.name, upload.size)


def load(user, token: str) -> Staged | None:
    """The file a token names, if it is this user's, not expired and still stored."""
    if not token or not user.is_authenticated:
        return None
    try:
        payload = signing.loads(token, salt=SALT, max_age=MAX_AGE)
    except signing.BadSignature:  # includes SignatureExpired
        return None
    stored = payload.get("file", "")
    if payload.get("user") != user.pk or PurePosixPath(stored).parent != PurePosixPath(_folder(user)):
        return None
    if not private_storage().exists(stored):
        return None
    return Staged(token, stored, payload["name"], payload["size"])


def open_file(staged: Staged) -> File:
    """The staged file as an upload-like object carrying the user's file name."""
    handle = private_storage().open(staged.storage_name, "rb")
    upload = File(handle, name=staged.name)
    upload.size = staged.size
    return upload


def discard(staged: Staged) -> None:
    private_storage().delete(staged.storage_name)


def _sweep_folder(folder: str, cutoff: float) -> int:
    storage = private_storage()
    try:
        names = storage.listdir(folder)[1]
    except FileNotFoundError:  # nothing staged yet (a bucket has no folders: it lists nothing instead)
        return 0
    removed = 0
    for name in names:
        path = f"{folder}/{name}"
        try:
            if storage.get_modified_time(path).timestamp() < cutoff:
                storage.delete(path)
                removed += 1
        except (OSError, NotImplementedError):
            continue
    return removed


def sweep(user) -> None:
    """Delete this user's staged files older than MAX_AGE."""
    _sweep_folder(_folder(user), time.time() - MAX_AGE)


def sweep_all() -> int:
    """Delete every user's expired staged files (the periodic sweep runs this); returns how many."""
    try:
        user_folders = private_storage().listdir(ROOT)[0]
    except FileNotFoundError:
        return 0
    cutoff = time.time() - MAX_AGE
    return sum(_sweep_folder(f"{ROOT}/{user_folder}", cutoff) for user_folder in user_folders)
