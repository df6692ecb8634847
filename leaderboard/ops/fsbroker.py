"""kombu's filesystem broker, made safe against a full disk.

Two changes to kombu's transport, which settings.py selects for ``filesystem://``:

- A message is written under a hidden temporary name and renamed into the
  queue only once complete; a failed write (no space left) removes the partial
  file. kombu writes in place, so a full disk left 0-byte ``.msg`` files behind
  and a consumer could read a message while it was still being written.
- A message that cannot be decoded (0 bytes, truncated, garbage) is moved to
  the ``unreadable`` folder beside the queue and logged, and the next message is
  read. kombu raises, which kills the worker, and every restart died on the same
  file. The Submission row stays queued; the periodic sweep sends it again.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from queue import Empty

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

logger = logging.getLogger(__name__)

# Where unreadable messages go, beside the queue folder unless the option says otherwise.
UNREADABLE_FOLDER = "unreadable"


class Channel(filesystem.Channel):
    @property
    def unreadable_folder(self) -> Path:
        folder = self.transport_options.get("unreadable_folder")
        return Path(folder) if folder else Path(self.data_folder_in).parent / UNREADABLE_FOLDER

    # The same signature as kombu's filesystem.Channel._put, which kombu's own annotations already
    # find incompatible with AbstractChannel._put (payload there is called message).
    def _put(self, queue, payload, **kwargs) -> None:  # type: ignore[override]
        """Write the message under a name the consumer ignores, then rename it into the queue."""
        name = f"{int(round(time.monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # A leading dot: the consumer only takes names of the form "<id>.<queue>.msg".
        partial = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(partial, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            try:
                os.unlink(partial)
            except OSError:
                pass
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue):
        """The next decodable message of ``queue``; undecodable ones are moved aside, not raised."""
        wanted = f"{queue}.msg"
        for filename in sorted(os.listdir(self.data_folder_in)):
            if filename.partition(".")[2] != wanted:
                continue
            claimed_in = self.processed_folder if self.store_processed else tempfile.gettempdir()
            try:
                # The move is the claim: of two consumers, one wins, the other skips the file.
                shutil.move(os.path.join(self.data_folder_in, filename), claimed_in)
            except OSError:
                continue
            path = os.path.join(claimed_in, filename)
            try:
                with open(path, "rb") as handle:
                    payload = handle.read()
            except OSError as exc:
                raise ChannelError(f"Cannot read file {path!r} from queue.") from exc
            try:
                message = loads(bytes_to_str(payload))
                if not isinstance(message, dict):
                    raise ValueError(f"a message is a JSON object, not {type(message).__name__}")
            except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
                self._move_aside(path, filename, len(payload), exc)
                continue
            if not self.store_processed:
                os.remove(path)
            return message
        raise Empty()

    def _move_aside(self, path: str, filename: str, size: int, exc: Exception) -> None:
        folder = self.unreadable_folder
        try:
            folder.mkdir(parents=True, exist_ok=True)
            shutil.move(path, folder / filename)
            where = str(folder / filename)
        except OSError:
            # No room to keep it either (the disk is still full): drop it, the row is the truth.
            try:
                os.remove(path)
            except OSError:
                pass
            where = "nowhere (removed)"
        logger.error(
            "unreadable broker message %s (%d bytes: %s) moved to %s; the sweep re-sends its submission",
            filename,
            size,
            exc,
            where,
        )


class Transport(filesystem.Transport):
    Channel = Channel
