"""Reading delimited truth and prediction files into pandas, with row-level problems.

Two steps, because which columns are legal depends on the header (MUDI has two
layouts; probability columns depend on the task's classes):

1. ``load_raw`` reads the bytes (gzip detected by magic bytes), checks size,
   encoding and binary content, and parses the header line.
2. ``parse_rows`` checks every line has the header's field count and parses the
   rows with pandas' C engine: key and label columns as ``category`` (fast, and
   hands us codes for vectorised matching), numeric columns as ``float64``.

Line numbers are 1-based file lines; the header is line 1.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from scoring.errors import Problems, ScoringError, fail

DEFAULT_MAX_BYTES = 200 * 1024 * 1024
DEFAULT_MAX_ROWS = 5_000_000

# Ragged-row and bad-value problems beyond this many are only counted, not located,
# so a completely wrong file does not cost a Python loop over millions of rows.
MAX_LOCATED = 50

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
DELIMITERS = ("\t", ",", ";")
DELIMITER_NAMES = {"\t": "tab", ",": "comma", ";": "semicolon"}

_NON_SPACE = re.compile(rb"\S")
# Below this size pandas parses the whole file in one pass (about twice as fast for
# categorical columns); above it, chunked parsing bounds memory.
ONE_PASS_MAX_BYTES = 64 * 1024 * 1024

Source = str | os.PathLike[str] | bytes | IO[bytes]


@dataclass(frozen=True)
class Limits:
    """Caps on one input file: uncompressed bytes read and data rows."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_rows: int = DEFAULT_MAX_ROWS


@dataclass
class RawFile:
    """A file's bytes with its header parsed; rows not yet parsed."""

    data: bytes  # without BOM, uncompressed
    delimiter: str
    header: tuple[str, ...]  # normalised names: stripped, lower case
    written: dict[str, str]  # normalised name -> name as written in the file
    what: str  # "truth file" / "prediction file", for messages


@dataclass
class Table:
    """Parsed rows of a delimited file: one DataFrame row per non-blank data line."""

    frame: pd.DataFrame  # columns named by normalised header names
    lines: np.ndarray  # int64, 1-based file line of each row
    written: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.frame)

    def label(self, column: str) -> str:
        """The column's name as written in the file, for messages."""
        return self.written.get(column, column)


def normalise_name(name: str) -> str:
    """Header names compare case-insensitively, ignoring surrounding whitespace and quotes."""
    return name.strip().strip('"').strip().lower()


def read_bytes(source: Source, *, max_bytes: int = DEFAULT_MAX_BYTES, what: str = "file") -> bytes:
    """Return the (decompressed) content of a path, bytes or binary file-like object.

    Raises ScoringError if the file is missing, unreadable, corrupt gzip or over ``max_bytes``.
    """
    try:
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source[: max_bytes + 1])
            if data[:2] == GZIP_MAGIC:
                data = _gunzip(io.BytesIO(data), max_bytes, what)
        elif isinstance(source, (str, os.PathLike)):
            path = Path(source)
            if not path.is_file():
                raise fail(f"The {what} {str(path)!r} does not exist.")
            with path.open("rb") as handle:
                data = _read_stream(handle, max_bytes, what)
        elif hasattr(source, "read"):
            data = _read_stream(source, max_bytes, what)
        else:
            raise fail(f"The {what} must be a path or a binary file object, not {type(source).__name__}.")
    except OSError as exc:
        raise fail(f"The {what} could not be read: {exc.strerror or exc}.") from exc
    if len(data) > max_bytes:
        raise fail(f"The {what} is larger than the limit of {_size(max_bytes)} (uncompressed).")
    return data


def _read_stream(handle: IO[bytes], max_bytes: int, what: str) -> bytes:
    head = handle.read(2)
    if isinstance(head, str):  # a text-mode handle: accept it, the content is checked later
        return (head + handle.read(max_bytes)).encode("utf-8")
    if head == GZIP_MAGIC:
        return _gunzip(_Prefixed(head, handle), max_bytes, what)
    seekable = getattr(handle, "seekable", None)
    if seekable is not None and seekable():
        # Re-read from the start rather than concatenating: saves a copy of a large file.
        handle.seek(-len(head), io.SEEK_CUR)
        return handle.read(max_bytes + 1)
    return head + handle.read(max_bytes + 1 - len(head))


def _gunzip(handle: IO[bytes] | _Prefixed, max_bytes: int, what: str) -> bytes:
    try:
        with gzip.GzipFile(fileobj=handle, mode="rb") as unzipped:
            # One byte past the limit tells "too big" from "exactly at the limit".
            return unzipped.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise fail(f"The {what} looks gzip-compressed but could not be decompressed ({exc}).") from exc


class _Prefixed(io.RawIOBase):
    """A read-only stream that replays bytes already consumed from ``handle``."""

    def __init__(self, prefix: bytes, handle: IO[bytes]) -> None:
        self._prefix = prefix
        self._handle = handle

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._prefix:
            if size is None or size < 0:
                out, self._prefix = self._prefix + self._handle.read(), b""
                return out
            out, self._prefix = self._prefix[:size], self._prefix[size:]
            if len(out) < size:
                out += self._handle.read(size - len(out))
            return out
        return self._handle.read(size)

    def readinto(self, buffer: Any) -> int:
        chunk = self.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):g} MB"
    return f"{n:,} bytes"


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def load_raw(source: Source, *, limits: Limits | None = None, what: str = "file") -> RawFile:
    """Read a file and its header; raise ScoringError for empty, binary, non-UTF-8 or headerless input."""
    limits = limits or Limits()
    data = read_bytes(source, max_bytes=limits.max_bytes, what=what)
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    if _NON_SPACE.search(data) is None:  # stops at the first visible byte; no copy
        raise fail(f"The {what} is empty.")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise fail(
            f"The {what} contains binary data (a NUL byte on line {_line_of(data, nul)}); "
            "upload a CSV or TSV text file (optionally gzip-compressed).",
            line=_line_of(data, nul),
        )
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = _line_of(data, exc.start)
            raise fail(
                f"Line {line} is not valid UTF-8 text (byte 0x{data[exc.start]:02x}); save the {what} as UTF-8.",
                line=line,
            ) from exc
    end = data.find(b"\n")
    header_line = (data if end < 0 else data[:end]).decode("utf-8").rstrip("\r")
    if not header_line.strip():
        raise fail(f"Line 1 of the {what} is empty; it must be the header naming the columns.", line=1)
    delimiter = detect_delimiter(header_line)
    names = [name.strip().strip('"').strip() for name in header_line.split(delimiter)]
    header = tuple(normalise_name(name) for name in names)
    return RawFile(
        data=data, delimiter=delimiter, header=header, written=dict(zip(header, names, strict=True)), what=what
    )


def detect_delimiter(header_line: str) -> str:
    """The delimiter occurring most often in the header line (tab, comma or semicolon); comma if none."""
    counts = {d: header_line.count(d) for d in DELIMITERS}
    best = max(DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def parse_rows(
    raw: RawFile,
    *,
    categorical: list[str],
    numeric: list[str],
    limits: Limits | None = None,
) -> Table:
    """Parse the data rows of ``raw``; every header column must be listed in exactly one argument.

    Categorical columns come back as pandas categoricals with stripped string
    categories; numeric ones as float64 (NaN/inf are kept: callers decide what is
    finite). Raises ScoringError for ragged rows, row caps and unparseable numbers.
    """
    limits = limits or Limits()
    physical = _physical_lines(raw.data)
    if physical - 1 > limits.max_rows:
        _data_lines(raw, limits)  # exact count (blank lines do not count); raises if over
    header = list(raw.header)
    dtypes = {name: ("float64" if name in numeric else "category") for name in header}
    try:
        frame = _read_csv(raw, header, dtypes)
    except _TooManyFields as exc:
        _data_lines(raw, limits)  # locates every ragged line and raises
        raise fail(f"The {raw.what} could not be read as delimited text: {exc}.") from exc
    if frame is None:
        # Some numeric value did not parse: read those columns as text to say which rows.
        frame = _read_csv(raw, header, {name: ("str" if name in numeric else "category") for name in header})
        lines = _lines_for(raw, frame, physical, limits)
        frame = _coerce_numeric(frame, numeric, lines, raw)
    else:
        lines = _lines_for(raw, frame, physical, limits)
    for name in categorical:
        frame[name] = _strip_categories(frame[name])
    return Table(frame=frame, lines=lines, written=raw.written)


def _physical_lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _lines_for(raw: RawFile, frame: pd.DataFrame, physical: int, limits: Limits) -> np.ndarray:
    """File line of each parsed row, checking that every line has the header's field count.

    Fast path (no quotes, no blank lines): pandas rejects lines with too many
    fields, so if the file holds exactly (columns - 1) delimiters per line no
    line can have too few either, and row i is line i + 2. Otherwise scan.
    """
    data = raw.data
    expected_delimiters = (len(raw.header) - 1) * physical
    if (
        len(frame) == physical - 1
        and len(frame) > 0
        and b'"' not in data
        and data.count(raw.delimiter.encode()) == expected_delimiters
    ):
        return np.arange(2, len(frame) + 2, dtype=np.int64)
    lines = _data_lines(raw, limits)
    if len(lines) != len(frame):
        raise _inconsistent(raw)
    return lines


def _inconsistent(raw: RawFile) -> ScoringError:
    return fail(f'The {raw.what} could not be split into rows consistently; check for unbalanced quotes (").')


class _TooManyFields(Exception):
    """pandas found a line with more fields than the header."""


def _read_csv(raw: RawFile, header: list[str], dtypes: dict[str, str]) -> pd.DataFrame | None:
    """pandas' C parser over the data rows; None if a float64 column held something else."""
    try:
        return pd.read_csv(
            io.BytesIO(raw.data),
            sep=raw.delimiter,
            header=None,
            skiprows=1,
            names=header,
            index_col=False,
            dtype=dtypes,
            engine="c",
            keep_default_na=False,
            skip_blank_lines=True,
            encoding="utf-8",
            low_memory=len(raw.data) > ONE_PASS_MAX_BYTES,
        )
    except (ValueError, TypeError) as exc:
        if isinstance(exc, pd.errors.ParserError):
            if "Expected" in str(exc) and "fields" in str(exc):
                raise _TooManyFields(str(exc)) from exc
            raise fail(f"The {raw.what} could not be read as delimited text: {exc}.") from exc
        if any(t == "float64" for t in dtypes.values()):
            return None
        raise fail(f"The {raw.what} could not be read: {exc}.") from exc


def _coerce_numeric(frame: pd.DataFrame, numeric: list[str], lines: np.ndarray, raw: RawFile) -> pd.DataFrame:
    problems = Problems()
    for name in numeric:
        text = frame[name].str.strip()
        values = pd.to_numeric(text, errors="coerce").astype("float64")
        # "nan" coerces to NaN too: it is reported as not a number, like any other junk.
        bad = np.flatnonzero(values.isna().to_numpy())
        for i in bad[:MAX_LOCATED]:
            token = text.iloc[i]
            column = raw.written.get(name, name)
            if token == "":
                message = f'Line {lines[i]}, column "{column}" is empty.'
            else:
                message = f'Line {lines[i]}, column "{column}": "{_shorten(token)}" is not a number.'
            problems.add(message, line=int(lines[i]), column=column)
        problems.total += max(0, len(bad) - MAX_LOCATED)
        frame[name] = values.to_numpy()
    problems.raise_if_any()
    return frame


def _strip_categories(column: pd.Series) -> pd.Series:
    categories = column.cat.categories
    if len(categories) == 0:
        return column
    stripped = categories.astype(str).str.strip()
    if stripped.equals(categories):
        return column
    # Stripping may merge categories (" a" and "a"): rebuild from codes.
    unique = pd.Index(stripped.unique())
    remap = unique.get_indexer(stripped)
    codes = remap[column.cat.codes.to_numpy()]
    return pd.Series(pd.Categorical.from_codes(codes, categories=unique), index=column.index)


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _data_lines(raw: RawFile, limits: Limits) -> np.ndarray:
    """File line numbers of the non-blank data lines; raises for ragged rows and the row cap."""
    expected = len(raw.header)
    if b'"' in raw.data:
        starts, counts, blank = _scan_quoted(raw)
    else:
        starts, counts, blank = _scan_plain(raw)
    # starts/counts/blank describe every physical record including the header (index 0).
    data_idx = np.flatnonzero(~blank)
    data_idx = data_idx[data_idx > 0]
    if len(data_idx) > limits.max_rows:
        raise fail(f"The {raw.what} has {len(data_idx):,} rows; the limit is {limits.max_rows:,}.")
    if len(data_idx) == 0:
        raise fail(f"The {raw.what} has a header but no data rows.")
    wrong = data_idx[counts[data_idx] != expected]
    if len(wrong):
        problems = Problems()
        for i in wrong[:MAX_LOCATED]:
            problems.add(
                f"Line {starts[i]} has {counts[i]} field{'s' if counts[i] != 1 else ''} "
                f"but the header has {expected} "
                f"({DELIMITER_NAMES[raw.delimiter]}-separated).",
                line=int(starts[i]),
            )
        problems.total += max(0, len(wrong) - MAX_LOCATED)
        problems.raise_if_any()
    return starts[data_idx].astype(np.int64)


def _scan_plain(raw: RawFile) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per physical line: 1-based number, field count, blank flag. Vectorised; no quotes present."""
    data = raw.data
    arr = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(arr == 10)
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [len(arr)]))
    if starts[-1] == len(arr):  # the file ends with a newline: no empty last line
        starts, ends = starts[:-1], ends[:-1]
    delims = np.flatnonzero(arr == ord(raw.delimiter))
    counts = np.searchsorted(delims, ends) - np.searchsorted(delims, starts) + 1
    blank = np.zeros(len(starts), dtype=bool)
    # Only a line without any delimiter can be blank; there are few of those in a sane file.
    for i in np.flatnonzero(counts == 1):
        blank[i] = not data[starts[i] : ends[i]].strip(b" \t\r")
    return np.arange(1, len(starts) + 1), counts, blank


def _scan_quoted(raw: RawFile) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Like ``_scan_plain`` but honours quoted fields (which may span lines); slower, pure Python."""
    text = raw.data.decode("utf-8")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=raw.delimiter)
    starts: list[int] = []
    counts: list[int] = []
    blank: list[bool] = []
    previous_end = 0
    try:
        for record in reader:
            starts.append(previous_end + 1)
            previous_end = reader.line_num
            counts.append(len(record))
            blank.append(not record or (len(record) == 1 and not record[0].strip()))
    except csv.Error as exc:
        raise fail(
            f"Line {previous_end + 1} of the {raw.what} could not be read: {exc}.", line=previous_end + 1
        ) from exc
    return np.array(starts, dtype=np.int64), np.array(counts, dtype=np.int64), np.array(blank, dtype=bool)


def category_values(column: pd.Series) -> tuple[pd.Index, np.ndarray]:
    """A categorical column's categories (as a string Index) and per-row integer codes."""
    return pd.Index(column.cat.categories.astype(str)), column.cat.codes.to_numpy()


def check_columns(
    raw: RawFile,
    *,
    required: list[str],
    optional: list[str] | None = None,
    display: list[str] | None = None,
) -> None:
    """Raise ScoringError listing missing, unknown or repeated header columns.

    ``display`` names the expected layout for messages (defaults to required + optional).
    """
    optional = optional or []
    allowed = set(required) | set(optional)
    expected = ", ".join(display or required + optional)
    header = raw.header
    problems = Problems()
    if not any(name in allowed for name in header):
        raise fail(
            f"The {raw.what} has no header line naming the columns (line 1 is "
            f"{_shorten(raw.delimiter.join(raw.written[h] for h in header), 80)!r}); "
            f"expected columns: {expected}.",
            line=1,
        )
    seen: set[str] = set()
    for name in header:
        if name in seen:
            problems.add(
                f'Column "{raw.written[name]}" appears more than once in the header.', line=1, column=raw.written[name]
            )
        seen.add(name)
    unknown = [raw.written[name] or "(empty)" for name in header if name not in allowed]
    if unknown:
        problems.add(
            f"Unknown column{'s' if len(unknown) > 1 else ''} {', '.join(repr(u) for u in unknown)} in the header; "
            f"expected columns: {expected}.",
            line=1,
        )
    missing = [name for name in required if name not in seen]
    if missing:
        problems.add(
            f"Missing required column{'s' if len(missing) > 1 else ''} {', '.join(repr(m) for m in missing)}; "
            f"expected columns: {expected}.",
            line=1,
        )
    problems.raise_if_any()
