"""The file layer: bytes, gzip, encodings, delimiters, headers, blank lines and line numbers."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest

from scoring import ScoringError, align, load_truth
from scoring.readers import Limits, detect_delimiter, load_raw, parse_rows, read_bytes
from tests.scoring.conftest import HIV_PREDICTION, HIV_TRUTH

HIV = "imdrug-hiv-random"


def table_of(data: bytes, numeric=("value",)):
    raw = load_raw(data, what="prediction file")
    return parse_rows(raw, categorical=[c for c in raw.header if c not in numeric], numeric=list(numeric))


@pytest.mark.parametrize(
    "header, delimiter",
    [("seed,id,label", ","), ("seed\tid\tlabel", "\t"), ("seed;id;label", ";"), ("Drug1,Interaction,Drug2", ",")],
)
def test_it_detects_the_delimiter_from_the_header(header, delimiter):
    assert detect_delimiter(header) == delimiter


def test_it_reads_tab_separated_files_with_messy_headers_and_values():
    table = table_of(b" Key \t VALUE\r\n a \t 0.5 \r\nb\t1e-3\r\n")
    assert list(table.frame.columns) == ["key", "value"]
    assert list(table.frame["key"]) == ["a", "b"]
    assert table.frame["value"].tolist() == [0.5, 0.001]
    assert table.label("key") == "Key"


def test_it_detects_gzip_by_magic_bytes_not_by_name(write):
    path = write("looks-plain.csv", b"key,value\na,1\n", gz=True)
    assert read_bytes(path) == b"key,value\na,1\n"


def test_it_accepts_paths_bytes_and_binary_file_objects(write):
    data = b"key,value\na,1\n"
    path = write("p.csv", data)
    assert read_bytes(path) == read_bytes(str(path)) == read_bytes(data) == read_bytes(io.BytesIO(data))
    assert read_bytes(io.BytesIO(gzip.compress(data))) == data


def test_it_accepts_a_non_seekable_stream():
    class Pipe(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self._inner = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def seekable(self) -> bool:
            return False

        def readinto(self, buffer) -> int:
            chunk = self._inner.read(len(buffer))
            buffer[: len(chunk)] = chunk
            return len(chunk)

    assert read_bytes(Pipe(b"key,value\na,1\n")) == b"key,value\na,1\n"
    assert read_bytes(Pipe(gzip.compress(b"key,value\na,1\n"))) == b"key,value\na,1\n"


def test_an_io_error_of_a_stream_reaches_the_caller_and_is_not_a_problem_of_the_file():
    class Dropped(io.RawIOBase):
        """A network stream that breaks after its first bytes (a storage server gone away)."""

        def __init__(self, data: bytes) -> None:
            self._head = data[:2]

        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:
            if not self._head:
                raise ConnectionResetError("connection reset by peer")
            chunk, self._head = self._head, b""
            buffer[: len(chunk)] = chunk
            return len(chunk)

    for content in (b"key,value\na,1\n", gzip.compress(b"key,value\na,1\n")):
        with pytest.raises(ConnectionResetError):
            read_bytes(Dropped(content))
    with pytest.raises(ScoringError, match="could not be decompressed"):
        read_bytes(io.BytesIO(gzip.compress(b"key,value\na,1\n")[:-6]))


def test_it_strips_a_utf8_byte_order_mark():
    table = table_of("\ufeffkey,value\nä,1\n".encode())
    assert list(table.frame.columns) == ["key", "value"]
    assert list(table.frame["key"]) == ["ä"]


def test_blank_lines_are_skipped_but_line_numbers_stay_true():
    table = table_of(b"key,value\na,1\n\n   \nb,2\n\n")
    assert table.lines.tolist() == [2, 5]
    with pytest.raises(ScoringError) as caught:
        table_of(b"key,value\na,1\n\nb,oops\n")
    assert caught.value.problems[0].line == 4


def test_quoted_fields_may_hold_delimiters_and_newlines():
    table = table_of(b'key,value\n"a,b",1\n"multi\nline",2\nc,3\n')
    assert list(table.frame["key"]) == ["a,b", "multi\nline", "c"]
    assert table.lines.tolist() == [2, 3, 5]


def test_ragged_rows_are_all_located():
    with pytest.raises(ScoringError) as caught:
        table_of(b"key,value\na,1\nb\nc,1,2\nd,4\n")
    assert [p.line for p in caught.value.problems] == [3, 4]


def test_it_enforces_the_byte_limit_on_the_uncompressed_size():
    data = gzip.compress(b"key,value\n" + b"a,1\n" * 1000)
    assert len(data) < 200
    with pytest.raises(ScoringError, match="larger than the limit of 1,000 bytes"):
        read_bytes(data, max_bytes=1000)


def test_it_enforces_the_row_limit():
    raw = load_raw(b"key,value\na,1\nb,2\nc,3\n")
    with pytest.raises(ScoringError, match="has 3 rows; the limit is 2"):
        parse_rows(raw, categorical=["key"], numeric=["value"], limits=Limits(max_rows=2))


def test_numbers_are_parsed_vectorised_and_failures_reported_by_line():
    with pytest.raises(ScoringError) as caught:
        table_of(b"key,value\na,1\nb,x\nc,2\nd,\n")
    assert [(p.line, p.message) for p in caught.value.problems] == [
        (3, 'Line 3, column "value": "x" is not a number.'),
        (5, 'Line 5, column "value" is empty.'),
    ]


def test_header_names_are_case_insensitive_for_every_format(write):
    truth = load_truth(HIV, write("t.csv", HIV_TRUTH.replace("seed,id,label", " SEED , Id ,LABEL")))
    aligned = align(HIV, truth, write("p.tsv", HIV_PREDICTION.replace(",", "\t").replace("prediction", "Prediction")))
    assert np.array_equal(aligned.seeds[0].y_pred, [0, 1, 0])


def test_a_quote_that_is_never_closed_is_named_with_its_line():
    truth = b"Drug1,Interaction,Drug2\nCompound::DB00001,Synergism,Compound::DB00002\n"
    pred = b'Drug1,Interaction,Drug2\nCompound::DB00001,"Synergism,Compound::DB00002\nCompound::DB00003,Synergism,x\n'
    import scoring

    with pytest.raises(ScoringError) as caught:
        scoring.score_files("mudi", io.BytesIO(truth), io.BytesIO(pred))
    message = str(caught.value)
    assert "double quote that is never closed (it opens on line 2)" in message
    assert "EOF inside string" not in message
