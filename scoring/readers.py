"""Reading delimited truth and prediction files into pandas, with row-level problems.

Two steps, because which columns are legal depends on the header (MUDI has two
layouts; probability columns depend on the task's classes):

1. ``load_raw`` reads the bytes (gzip detected by magic bytes), checks size,
   encoding and binary content, turns old Mac line ends (CR alone) into LF,
   and parses the header line.
2. ``parse_rows`` checks every line has the header's field count and parses the
   rows with pandas' C engine: key and label columns as ``category`` (fast, and
   hands us codes for vectorised matching), numeric columns as ``float64``.
   Lines with a wrong field count are reported and left out, so the values of
   the other lines are still checked in the same pass.

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
_CR, _LF, _QUOTE = ord("\r"), ord("\n"), ord('"')
_SCAN_CHUNK = 256 * 1024
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
    # Found while parsing (``parse_rows(keep_going=True)``): validators add theirs and raise all together.
    problems: Problems = field(default_factory=Problems)
    unreadable: dict[str, np.ndarray] = field(default_factory=dict)  # per numeric column: rows that were not numbers
    dropped: int = 0  # lines left out for a wrong field count: the rows do not cover the whole file

    def __len__(self) -> int:
        return len(self.frame)

    def label(self, column: str) -> str:
        """The column's name as written in the file, for messages."""
        return self.written.get(column, column)

    def start_problems(self) -> Problems:
        """A fresh Problems holding what parsing found, for a validator to add its own to."""
        problems = Problems()
        problems.items = list(self.problems.items)
        problems.total = self.problems.total
        return problems


def normalise_name(name: str) -> str:
    """Header names compare case-insensitively, ignoring surrounding whitespace and quotes."""
    return name.strip().strip('"').strip().lower()


def read_bytes(source: Source, *, max_bytes: int = DEFAULT_MAX_BYTES, what: str = "file") -> bytes:
    """Return the (decompressed) content of a path, bytes or binary file-like object.

    Raises ScoringError if the file is missing, unreadable, corrupt gzip or over ``max_bytes``.
    """
    if not isinstance(source, (bytes, bytearray, memoryview, str, os.PathLike)) and hasattr(source, "read"):
        # The caller's stream (a stored file, perhaps over the network): an I/O error while
        # reading it says nothing about the content, so it reaches the caller, who may retry.
        data = _read_stream(source, max_bytes, what)
    else:
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
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:  # corrupt content; other I/O errors propagate
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
    """Read a file and its header; raise ScoringError for empty, binary, non-UTF-8 or headerless input.

    Old Mac line ends (a carriage return alone) are read as LF; a file mixing them with LF or CRLF is refused.
    """
    limits = limits or Limits()
    data = read_bytes(source, max_bytes=limits.max_bytes, what=what)
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    if _NON_SPACE.search(data) is None:  # stops at the first visible byte; no copy
        raise fail(f"The {what} is empty.")
    data, lone_cr = _unify_line_ends(data)
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
    if lone_cr is not None:  # after the encoding checks: a binary file is named as such, not as mixed line ends
        raise _mixed_line_ends(data, lone_cr, what)
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


def _unify_line_ends(data: bytes) -> tuple[bytes, np.ndarray | None]:
    """``data`` with old Mac line ends (a carriage return alone) turned into LF; or, for a file that mixes them
    with LF or CRLF line ends, ``data`` unchanged and the offsets of its lone carriage returns.

    The common cases cost a byte search (LF files) or one vectorised pass (CRLF files); the rest runs only for a
    file holding a carriage return not followed by LF. A CR or LF inside a quoted field is part of a value, not a
    line end: it is left as it is and does not make a file mixed. So is a CR as the very last byte.
    """
    if b"\r" not in data:
        return data, None
    arr = np.frombuffer(data, dtype=np.uint8)
    if not _has_lone_cr(arr):
        return data, None
    cr = np.flatnonzero(arr == _CR)
    lf = np.flatnonzero(arr == _LF)
    if b'"' in data:
        # A quote toggles "inside a quoted field"; an escaped quote ("") toggles twice, so parity says where we are.
        quotes = np.flatnonzero(arr == _QUOTE)
        cr = cr[np.searchsorted(quotes, cr) % 2 == 0]
        lf = lf[np.searchsorted(quotes, lf) % 2 == 0]
    lone = cr[cr + 1 < len(arr)]  # a CR as the last byte ends the file whatever it is
    lone = lone[arr[lone + 1] != _LF]
    if len(lone) == 0:
        return data, None
    if len(lf):
        return data, lone
    unified = np.frombuffer(bytearray(data), dtype=np.uint8)  # writable copy
    unified[cr] = _LF
    return unified.tobytes(), None


def _has_lone_cr(arr: np.ndarray) -> bool:
    """Whether some byte but the last is a CR not followed by LF; in slices that stay in cache (5x faster)."""
    for start in range(0, len(arr) - 1, _SCAN_CHUNK):
        part = arr[start : start + _SCAN_CHUNK + 1]  # one byte of overlap: a CR may end a slice
        if ((part[:-1] == _CR) & (part[1:] != _LF)).any():
            return True
    return False


def _mixed_line_ends(data: bytes, lone_cr: np.ndarray, what: str) -> ScoringError:
    line = _line_of(data, int(lone_cr[0]))  # every line end before the first lone CR is an LF
    others = len(lone_cr) - 1
    more = "" if not others else ", as does 1 more line," if others == 1 else f", as do {others:,} more lines,"
    return fail(
        f"Line {line} of the {what} ends in a carriage return alone (an old Mac line ending){more} while other "
        "lines end in LF or CRLF; save the file with Unix (LF) or Windows (CRLF) line endings.",
        line=line,
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
    keep_going: bool = False,
) -> Table:
    """Parse the data rows of ``raw``; every header column must be listed in exactly one argument.

    Categorical columns come back as pandas categoricals with stripped string
    categories; numeric ones as float64 (NaN/inf are kept: callers decide what is
    finite). Lines with the wrong number of fields and values that are not numbers
    are all located in one pass. By default they raise a ScoringError at once;
    with ``keep_going`` the well-formed lines are parsed anyway and the problems
    travel in ``Table.problems``, so a validator adds the value problems of those
    lines and raises everything together. Row caps, undecodable text and
    unbalanced quotes always raise at once.
    """
    limits = limits or Limits()
    physical = _physical_lines(raw.data)
    if physical - 1 > limits.max_rows:
        _layout(raw, limits)  # exact count (blank lines do not count); raises if over
    header = list(raw.header)
    problems = Problems()
    frame = _read_frame(raw, raw.data, header, numeric)  # None: some line has too many fields
    lines = _fast_lines(raw, frame, physical) if frame is not None else None
    dropped = 0
    if lines is None:
        starts, ends, counts = _layout(raw, limits)
        wrong = counts != len(header)
        if wrong.any():
            _report_ragged(problems, raw, starts[wrong], counts[wrong])
            dropped = int(wrong.sum())
            if dropped == len(starts):
                problems.raise_if_any()  # not one line to read values from
            data = _without_lines(raw.data, starts[wrong], ends[wrong])
            frame = _read_frame(raw, data, header, numeric)
            if frame is None:
                raise _inconsistent(raw)
        elif frame is None:
            raise _inconsistent(raw)
        lines = starts[~wrong].astype(np.int64)
        if len(lines) != len(frame):
            raise _inconsistent(raw)
    assert frame is not None  # every path above either read a frame or raised
    unreadable = _coerce_numeric(frame, numeric, lines, raw, problems)
    for name in categorical:
        frame[name] = _strip_categories(frame[name])
    if not keep_going:
        problems.raise_if_any()
    return Table(
        frame=frame, lines=lines, written=raw.written, problems=problems, unreadable=unreadable, dropped=dropped
    )


def _physical_lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _read_frame(raw: RawFile, data: bytes, header: list[str], numeric: list[str]) -> pd.DataFrame | None:
    """Numeric columns as float64 or, when some value did not parse, as text; None if a line has too many fields."""
    dtypes = {name: ("float64" if name in numeric else "category") for name in header}
    try:
        frame = _read_csv(raw, data, header, dtypes)
        if frame is None:
            # Some numeric value did not parse: read those columns as text to say which rows.
            frame = _read_csv(raw, data, header, {name: ("str" if name in numeric else "category") for name in header})
    except _TooManyFields:
        return None
    return frame


def _fast_lines(raw: RawFile, frame: pd.DataFrame, physical: int) -> np.ndarray | None:
    """File line of each parsed row when that needs no scan, else None.

    No quotes, no blank lines: pandas rejects lines with too many fields, so if
    the file holds exactly (columns - 1) delimiters per line no line can have too
    few either, and row i is line i + 2.
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
    return None


def _report_ragged(problems: Problems, raw: RawFile, starts: np.ndarray, counts: np.ndarray) -> None:
    expected = len(raw.header)
    for line, count in zip(starts[:MAX_LOCATED].tolist(), counts[:MAX_LOCATED].tolist(), strict=True):
        problems.add(
            f"Line {line} has {count} field{'s' if count != 1 else ''} but the header has {expected} "
            f"({DELIMITER_NAMES[raw.delimiter]}-separated).",
            line=int(line),
        )
    problems.total += max(0, len(starts) - MAX_LOCATED)


def _without_lines(data: bytes, first: np.ndarray, last: np.ndarray) -> bytes:
    """``data`` without the physical lines ``first[i]..last[i]`` (1-based, inclusive). Vectorised."""
    arr = np.frombuffer(data, dtype=np.uint8)
    offsets = np.concatenate(([0], np.flatnonzero(arr == 10) + 1))
    if offsets[-1] != len(arr):
        offsets = np.concatenate((offsets, [len(arr)]))
    keep_line = np.ones(len(offsets) - 1, dtype=bool)
    change = np.zeros(len(keep_line) + 1, dtype=np.int64)
    np.add.at(change, first - 1, 1)
    np.add.at(change, last, -1)
    keep_line &= np.cumsum(change[:-1]) == 0
    kept: bytes = arr[np.repeat(keep_line, np.diff(offsets))].tobytes()
    return kept


def _inconsistent(raw: RawFile) -> ScoringError:
    return fail(f'The {raw.what} could not be split into rows consistently; check for unbalanced quotes (").')


class _TooManyFields(Exception):
    """pandas found a line with more fields than the header."""


def _read_csv(raw: RawFile, data: bytes, header: list[str], dtypes: dict[str, str]) -> pd.DataFrame | None:
    """pandas' C parser over the data rows; None if a float64 column held something else."""
    try:
        return pd.read_csv(
            io.BytesIO(data),
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
            low_memory=len(data) > ONE_PASS_MAX_BYTES,
        )
    except (ValueError, TypeError) as exc:
        if isinstance(exc, pd.errors.ParserError):
            if "Expected" in str(exc) and "fields" in str(exc):
                raise _TooManyFields(str(exc)) from exc
            if "EOF inside string" in str(exc):  # pandas' words for a quote that is never closed
                line = re.search(r"starting at row (\d+)", str(exc))  # 0-based, counting the header
                where = f" (it opens on line {int(line.group(1)) + 1})" if line else ""
                raise fail(
                    f"The {raw.what} has a double quote that is never closed{where}: every quoted field needs "
                    'its closing quote, and a quote inside a quoted field is written twice ("").'
                ) from exc
            raise fail(f"The {raw.what} could not be read as delimited text: {exc}.") from exc
        if any(t == "float64" for t in dtypes.values()):
            return None
        raise fail(f"The {raw.what} could not be read: {exc}.") from exc


def _coerce_numeric(
    frame: pd.DataFrame, numeric: list[str], lines: np.ndarray, raw: RawFile, problems: Problems
) -> dict[str, np.ndarray]:
    """Turn text-typed numeric columns into float64, locating values that are not numbers.

    Returns, per column, the rows whose value did not parse (NaN now, already reported).
    """
    unreadable: dict[str, np.ndarray] = {}
    for name in numeric:
        if frame[name].dtype == np.float64:
            continue
        text = frame[name].astype(str).str.strip()
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
        if len(bad):
            unreadable[name] = bad
    return unreadable


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


def _layout(raw: RawFile, limits: Limits) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per non-blank data record: first and last file line, and field count; raises for the row cap."""
    if b'"' in raw.data:
        starts, ends, counts, blank = _scan_quoted(raw)
    else:
        starts, counts, blank = _scan_plain(raw)
        ends = starts
    # The arrays describe every physical record including the header (index 0).
    data_idx = np.flatnonzero(~blank)
    data_idx = data_idx[data_idx > 0]
    if len(data_idx) > limits.max_rows:
        raise fail(f"The {raw.what} has {len(data_idx):,} rows; the limit is {limits.max_rows:,}.")
    if len(data_idx) == 0:
        raise fail(f"The {raw.what} has a header but no data rows.")
    return starts[data_idx].astype(np.int64), ends[data_idx].astype(np.int64), counts[data_idx]


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


def _scan_quoted(raw: RawFile) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Like ``_scan_plain`` (plus each record's last line) but honours quoted fields, which may span lines."""
    text = raw.data.decode("utf-8")
    # newline="\n": lines end at LF only, so a CR inside a quoted field does not count as a line, as elsewhere.
    reader = csv.reader(io.StringIO(text, newline="\n"), delimiter=raw.delimiter)
    starts: list[int] = []
    ends: list[int] = []
    counts: list[int] = []
    blank: list[bool] = []
    previous_end = 0
    try:
        for record in reader:
            starts.append(previous_end + 1)
            previous_end = reader.line_num
            ends.append(previous_end)
            counts.append(len(record))
            blank.append(not record or (len(record) == 1 and not record[0].strip()))
    except csv.Error as exc:
        raise fail(
            f"Line {previous_end + 1} of the {raw.what} could not be read: {exc}.", line=previous_end + 1
        ) from exc
    return (
        np.array(starts, dtype=np.int64),
        np.array(ends, dtype=np.int64),
        np.array(counts, dtype=np.int64),
        np.array(blank, dtype=bool),
    )


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
            # Shortened and at most ten: a 10 MB header line must not come back as a 10 MB message.
            f"Unknown column{'s' if len(unknown) > 1 else ''} {', '.join(repr(_shorten(u)) for u in unknown[:10])}"
            f"{f' and {len(unknown) - 10} more' if len(unknown) > 10 else ''} in the header; "
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
