"""Line endings: LF, CRLF and old Mac files (a carriage return alone) read alike; a file mixing them is refused."""

from __future__ import annotations

import gzip

import pytest

from scoring import Limits, ScoringError, align, load_truth, score_files
from tests.scoring.conftest import CHEMICALX_PREDICTION, CHEMICALX_TRUTH, HIV_PREDICTION, HIV_TRUTH

HIV = "imdrug-hiv-random"
PAIR = "chemicalx-drugcomb"
MIXED = "ends in a carriage return alone (an old Mac line ending)"
SAVE_AS = "save the file with Unix (LF) or Windows (CRLF) line endings."


def old_mac(text: str) -> bytes:
    return text.replace("\n", "\r").encode()


def problem(call) -> tuple[int | None, str]:
    with pytest.raises(ScoringError) as caught:
        call()
    assert len(caught.value.problems) == 1
    return caught.value.problems[0].line, caught.value.problems[0].message


@pytest.mark.parametrize(
    "task, truth, prediction",
    [(HIV, HIV_TRUTH, HIV_PREDICTION), (PAIR, CHEMICALX_TRUTH, CHEMICALX_PREDICTION)],
    ids=["labels", "propensities"],
)
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_old_mac_truth_and_prediction_files_score_like_unix_ones(write, task, truth, prediction, gz):
    expected = score_files(task, write("t.csv", truth), write("p.csv", prediction))
    got = score_files(task, write("t.csv", old_mac(truth), gz=gz), write("p.csv", old_mac(prediction), gz=gz))
    assert got.metrics == expected.metrics
    assert got.n_rows == expected.n_rows


def test_an_old_mac_truth_file_loads_like_a_unix_one(write):
    truth = load_truth(HIV, write("t.csv", old_mac(HIV_TRUTH)))
    assert (
        score_files(HIV, truth, HIV_PREDICTION.encode()).metrics
        == score_files(HIV, HIV_TRUTH.encode(), HIV_PREDICTION.encode()).metrics
    )


def test_problems_in_an_old_mac_file_carry_true_line_numbers():
    prediction = HIV_PREDICTION.replace("0,m3,0", "0,m3,maybe")
    line, message = problem(lambda: align(HIV, HIV_TRUTH.encode(), old_mac(prediction)))
    assert line == 5
    assert "maybe" in message


def test_an_old_mac_file_in_another_encoding_is_named_with_its_line():
    # Old Mac Excel wrote Mac Roman: "é" is byte 0x8e, not UTF-8.
    prediction = old_mac(HIV_PREDICTION).replace(b"m3", b"m\x8e")
    line, message = problem(lambda: align(HIV, HIV_TRUTH.encode(), prediction))
    assert (line, message) == (5, "Line 5 is not valid UTF-8 text (byte 0x8e); save the prediction file as UTF-8.")


def test_the_row_limit_counts_the_lines_of_an_old_mac_file():
    with pytest.raises(ScoringError, match="has 6 rows; the limit is 5"):
        align(HIV, HIV_TRUTH.encode(), old_mac(HIV_PREDICTION), limits=Limits(max_rows=5))


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_a_prediction_mixing_crlf_and_lone_cr_is_refused_at_the_first_lone_cr(gz):
    lines = HIV_PREDICTION.encode().replace(b"\n", b"\r\n").split(b"\r\n")
    # Lines 3 and 5 end in a CR alone; the others in CRLF.
    mixed = b"\r\n".join(lines[:2]) + b"\r\n" + lines[2] + b"\r" + lines[3] + b"\r\n" + lines[4] + b"\r"
    mixed += b"\r\n".join(lines[5:])
    line, message = problem(lambda: align(HIV, HIV_TRUTH.encode(), gzip.compress(mixed) if gz else mixed))
    assert line == 3
    assert (
        message
        == f"Line 3 of the prediction file {MIXED}, as does 1 more line, while other lines end in LF or CRLF; {SAVE_AS}"
    )


def test_a_truth_file_mixing_lf_and_lone_cr_is_refused_with_its_line():
    truth = HIV_TRUTH.encode().replace(b"\n", b"\r", 1)  # the header ends in a CR alone, the rest in LF
    line, message = problem(lambda: load_truth(HIV, truth))
    assert line == 1
    assert message == f"Line 1 of the truth file {MIXED} while other lines end in LF or CRLF; {SAVE_AS}"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_a_carriage_return_inside_a_quoted_field_is_a_value_not_a_line_end(newline):
    # The same odd molecule id, quoted with a CR in it, in the truth and the prediction.
    def quoted(text: str) -> bytes:
        return text.replace("m2", '"m\r2"').replace("\n", newline).encode()

    expected = score_files(HIV, HIV_TRUTH.encode(), HIV_PREDICTION.encode())
    assert score_files(HIV, quoted(HIV_TRUTH), quoted(HIV_PREDICTION)).metrics == expected.metrics
    # Line numbers count line ends, not the CR inside the quotes.
    bad = HIV_PREDICTION.replace("0,m3,0", "0,m3,maybe")
    line, _ = problem(lambda: align(HIV, quoted(HIV_TRUTH), quoted(bad)))
    assert line == 5


def test_a_carriage_return_as_the_last_byte_of_a_unix_file_is_harmless():
    expected = score_files(HIV, HIV_TRUTH.encode(), HIV_PREDICTION.encode())
    assert score_files(HIV, HIV_TRUTH.encode(), HIV_PREDICTION.encode() + b"\r").metrics == expected.metrics
