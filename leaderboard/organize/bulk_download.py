"""Every participant file of a challenge, and the scores, as one .zip streamed while it is written.

The archive is written by ``zipfile`` into a sink that hands each compressed piece to the
response as soon as it exists (a non-seekable target: zipfile then writes data descriptors
after each entry), and each stored file is read in ``PIECE``-byte pieces, so neither the zip
nor any file sits in memory whatever the challenge's size. Organizers only: it holds private
scores before the reveal, like the scores export it contains.

Layout: ``scores.csv`` (``export_scores.export_lines``) at the top, then
``files/<phase>/<team slug>/<submission id>-<file name>``; a file missing from storage is
listed in ``missing.txt`` instead of stopping the download.
"""

from __future__ import annotations

import logging
import zipfile
from collections.abc import Iterator
from typing import IO, cast

from leaderboard.challenges.models import Challenge
from leaderboard.organize.export_scores import export_lines
from leaderboard.submissions.models import Submission

log = logging.getLogger(__name__)

# Bytes read from storage at a time; the response's pieces are about this size too.
PIECE = 256 * 1024


class _Sink:
    """A write-only file for zipfile: keeps what was written until ``drain`` hands it on."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def write(self, data: bytes) -> int:
        self._parts.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    @property
    def size(self) -> int:
        return sum(len(part) for part in self._parts)

    def drain(self) -> Iterator[bytes]:
        if self._parts:
            data = b"".join(self._parts)
            self._parts.clear()
            yield data


def _safe(name: str) -> str:
    """A file name for inside the zip: no folders, no leading dots."""
    return name.replace("/", "_").replace("\\", "_").lstrip(".") or "file"


def entry_name(submission: Submission) -> str:
    return f"files/{submission.phase.slug}/{submission.team.slug}/{submission.pk}-{_safe(submission.file_name)}"


def zip_pieces(challenge: Challenge) -> Iterator[bytes]:
    """The .zip of ``challenge``'s scores and participant files, in pieces of about ``PIECE`` bytes."""
    sink = _Sink()
    missing: list[str] = []
    # zipfile takes any object with write() and flush(); the stubs ask for IO[bytes].
    with zipfile.ZipFile(cast(IO[bytes], sink), "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("scores.csv", "w", force_zip64=True) as target:
            for line in export_lines(challenge):
                target.write(line.encode("utf-8"))
                if sink.size >= PIECE:
                    yield from sink.drain()
        yield from sink.drain()
        submissions = (
            Submission.objects.filter(phase__challenge=challenge)
            .select_related("phase", "team")
            .order_by("phase__order", "phase__slug", "created_at", "pk")
        )
        for submission in submissions.iterator(chunk_size=500):
            if not submission.file:
                missing.append(f"{submission.pk}: no file stored")
                continue
            try:
                source = submission.file.open("rb")
            except OSError as error:  # a file lost by the storage: say so, keep going
                log.warning("bulk download of %s: %s", submission.pk, error)
                missing.append(f"{submission.pk}: {submission.file_name} is missing from storage")
                continue
            with source, archive.open(entry_name(submission), "w", force_zip64=True) as target:
                while piece := source.read(PIECE):
                    target.write(piece)
                    yield from sink.drain()
            yield from sink.drain()
        if missing:
            archive.writestr("missing.txt", "\n".join(missing) + "\n")
    yield from sink.drain()
