"""Hostile uploads: files a careless or malicious submitter sends, each with the message they must get.

Built in memory (never committed). The MUDI cases go to the twelve-pair MUDI truth of
tests/submissions/helpers.py, the numeric ones to the small ChemicalX truth of
tests/scoring/conftest.py. ``message`` is a piece of the text the submitter must see,
in the form's HTML and in the API's problem JSON alike.
"""

from __future__ import annotations

import bz2
import gzip
import io
import random
import zipfile
from dataclasses import dataclass

from tests.scoring.conftest import CHEMICALX_PREDICTION
from tests.submissions.helpers import mudi_prediction_csv

MUDI = "mudi"
PAIR = "chemicalx-drugcomb"
GOOD = mudi_prediction_csv(0).decode()  # every gold pair with its class, "Drug1,Interaction,Drug2"
GOOD_ROWS = GOOD.splitlines()


@dataclass(frozen=True)
class Hostile:
    id: str
    task: str
    content: bytes
    message: str
    name: str = "predictions.csv"


def _rows(*replace: tuple[str, str], extra: list[str] | None = None, newline: str = "\n") -> bytes:
    text = GOOD
    for old, new in replace:
        text = text.replace(old, new, 1)
    lines = text.splitlines() + (extra or [])
    return (newline.join(lines) + newline).encode()


def _first_label(new: str) -> bytes:
    head, first, *rest = GOOD_ROWS
    a, _, b = first.split(",")
    return ("\n".join([head, f"{a},{new},{b}", *rest]) + "\n").encode()


def _chemicalx(old: str, new: str) -> bytes:
    return CHEMICALX_PREDICTION.replace(old, new, 1).encode()


def _zip(name: str, content: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, content)
    return buffer.getvalue()


def _columns(n: int) -> str:
    return ",".join(f"c{i}" for i in range(n))


def _junk(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


NOT_UTF8 = "is not valid UTF-8"
BINARY = "binary data"
PAST_READ_BOUND = "The prediction file is larger than the limit of"
NOT_IN_TRUTH = "is not in the truth in either orientation"
NOT_A_CLASS = "is not a MUDI class"

CASES = [
    # --- not text at all
    Hostile("empty", MUDI, b"", "The submitted file is empty."),
    Hostile("only-newlines", MUDI, b"\n\n\n\n", "The prediction file is empty."),
    Hostile("only-whitespace", MUDI, b"   \t  \r\n  \n", "The prediction file is empty."),
    Hostile("random-bytes", MUDI, _junk(4096, 1), BINARY),
    Hostile("nul-in-a-row", MUDI, _rows(("DB00001,", "DB0\x000001,")), BINARY),
    Hostile("nul-only", MUDI, b"\x00" * 1024, BINARY),
    Hostile("zip-posing-as-gzip", MUDI, _zip("predictions.csv", GOOD.encode()), BINARY, "predictions.csv.gz"),
    Hostile("zip-named-csv", MUDI, _zip("predictions.csv", GOOD.encode()), BINARY),
    Hostile("xlsx-named-csv", MUDI, _zip("xl/workbook.xml", b"<workbook/>"), BINARY),
    Hostile("corrupt-gzip", MUDI, b"\x1f\x8b\x08\x00garbage-after-the-magic", "looks gzip-compressed but could not be"),
    Hostile("truncated-gzip", MUDI, gzip.compress(GOOD.encode())[:40], "looks gzip-compressed but could not be"),
    Hostile("gzip-of-gzip", MUDI, gzip.compress(gzip.compress(GOOD.encode())), BINARY),
    Hostile("gzip-of-random-bytes", MUDI, gzip.compress(_junk(2048, 2)), BINARY),
    Hostile("bzip2", MUDI, bz2.compress(GOOD.encode()), BINARY),
    Hostile("pdf", MUDI, b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", NOT_UTF8),
    Hostile("png", MUDI, b"\x89PNG\r\n\x1a\n" + _junk(256, 3), BINARY),
    Hostile("exe-name", MUDI, GOOD.encode(), "Upload a .csv or .tsv file", "predictions.exe"),
    Hostile("no-extension", MUDI, GOOD.encode(), "Upload a .csv or .tsv file", "predictions"),
    # --- encodings and line endings
    Hostile("utf16-with-bom", MUDI, GOOD.encode("utf-16"), BINARY),
    Hostile("utf8-bom-and-a-bad-label", MUDI, b"\xef\xbb\xbf" + _first_label("Friendship"), NOT_A_CLASS),
    Hostile("latin1-name", MUDI, _rows(("DB00001,", "DB0000\xe9,")).replace("é".encode(), b"\xe9"), NOT_UTF8),
    Hostile("crlf-and-a-bad-label", MUDI, _first_label("Friendship").replace(b"\n", b"\r\n"), NOT_A_CLASS),
    # Old Mac files (a CR alone ends each line) are read like any other; mixed with LF or CRLF, refused by line.
    Hostile("old-mac-and-a-bad-label", MUDI, _first_label("Friendship").replace(b"\n", b"\r"), NOT_A_CLASS),
    Hostile(
        "old-mac-gzip-and-a-bad-label",
        MUDI,
        gzip.compress(_first_label("Friendship").replace(b"\n", b"\r")),
        NOT_A_CLASS,
        "predictions.csv.gz",
    ),
    Hostile(
        "mixed-newlines",
        MUDI,
        _first_label("Friendship").replace(b"\n", b"\r", 2),
        "Line 1 of the prediction file ends in a carriage return alone (an old Mac line ending), as does 1 more line,",
    ),
    # Past the read bound (rows x columns of the truth, 1 MB at least): refused before it is parsed.
    Hostile("one-10mb-line", MUDI, b"Drug1,Interaction,Drug2," + b"x" * (10 * 1024 * 1024), PAST_READ_BOUND),
    Hostile("a-1mb-cell", MUDI, _rows(("DB00001,", "DB" + "1" * 1_000_000 + ",")), NOT_IN_TRUTH),
    # --- headers
    Hostile("header-only", MUDI, b"Drug1,Interaction,Drug2\n", "has a header but no data rows"),
    Hostile("no-header", MUDI, "\n".join(GOOD_ROWS[1:]).encode() + b"\n", "has no header line"),
    Hostile("duplicate-header", MUDI, _rows(("Drug1,Interaction,Drug2", "Drug1,Drug1,Interaction,Drug2")), "Drug1"),
    Hostile("confusable-header", MUDI, _rows(("Interaction", "Intеraction")), "Intеraction"),  # Cyrillic е
    Hostile("zero-width-header", MUDI, _rows(("Drug2", "Drug\u200b2")), "Unknown column 'Drug\\u200b2'"),
    Hostile("ten-thousand-columns", MUDI, (_columns(10_000) + "\n1\n").encode(), "has no header line"),
    Hostile("many-unknown-columns", MUDI, _rows(("Drug2", "Drug2," + _columns(50))), "and 40 more"),
    Hostile("semicolons-bad-label", MUDI, _first_label("Friendship").replace(b",", b";"), NOT_A_CLASS),
    # --- rows
    Hostile("ragged-row", MUDI, _rows(extra=["Compound::DB00001,Synergism"]), "fields but the header has 3"),
    Hostile("extra-field", MUDI, _rows(extra=["Compound::DB00001,Synergism,Compound::DB00002,0.9"]), "fields"),
    Hostile("unbalanced-quote", MUDI, _rows(("Compound::DB00001,", '"Compound::DB00001,')), "never closed"),
    Hostile("repeated-pair", MUDI, _rows(extra=[GOOD_ROWS[1]]), "repeats the pair"),
    Hostile("missing-pairs", MUDI, ("\n".join(GOOD_ROWS[:-3]) + "\n").encode(), "The predictions miss 3 of"),
    Hostile("unknown-class", MUDI, _first_label("Friendship"), NOT_A_CLASS),
    Hostile("script-tag-class", MUDI, _first_label("<script>alert(1)</script>"), NOT_A_CLASS),
    Hostile("formula-class", MUDI, _first_label('=HYPERLINK("http://evil.example")'), NOT_A_CLASS),
    Hostile("formula-drug", MUDI, _rows(("Compound::DB00001,", "+cmd|' /C calc'!A0,")), NOT_IN_TRUTH),
    Hostile("rtl-override-drug", MUDI, _rows(("Compound::DB00001,", "Compound::DB\u202e10000,")), NOT_IN_TRUTH),
    Hostile("line-separator-drug", MUDI, _rows(("Compound::DB00001,", "Compound::DB\u202800001,")), NOT_IN_TRUTH),
    Hostile("null-words", MUDI, _first_label("NULL"), NOT_A_CLASS),
    Hostile("empty-class", MUDI, _first_label(""), "is empty"),
    # --- numbers (ChemicalX propensities)
    Hostile("1e308", PAIR, _chemicalx("0.1", "1e308"), "is not a propensity"),
    Hostile("1e309-overflows", PAIR, _chemicalx("0.1", "1e309"), "finite"),
    Hostile("nan", PAIR, _chemicalx("0.1", "NaN"), "is not a number"),
    Hostile("inf", PAIR, _chemicalx("0.1", "inf"), "is not a finite number"),
    Hostile("minus-infinity", PAIR, _chemicalx("0.1", "-Infinity"), "finite"),
    Hostile("huge-int", PAIR, _chemicalx("0.1", "9" * 400), "finite"),
    Hostile("hex-float", PAIR, _chemicalx("0.1", "0x1p-3"), "is not a number"),
    Hostile("negative-zero-comma-decimal", PAIR, _chemicalx("0.1", '"0,5"'), "is not a number"),
    Hostile("huge-seed", PAIR, _chemicalx("1,D3,D1", "99999999999999999999999,D3,D1"), "seed"),
    Hostile("negative-seed", PAIR, _chemicalx("1,D3,D1", "-1,D3,D1"), "seed"),
]

# Past the in-request bound (uncompressed bytes or rows): queued, validated by the worker with the
# same message, failed and not charged.
DEFERRED = [
    Hostile(
        "gzip-bomb",
        MUDI,
        gzip.compress(b"Drug1,Interaction,Drug2\n" + b"Compound::DB1,Friendship,Compound::DB2\n" * 600_000),
        PAST_READ_BOUND,
        "predictions.csv.gz",
    ),
]
