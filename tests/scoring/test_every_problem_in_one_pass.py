"""Every problem of a file in one pass: lines with a wrong field count and the values of the other lines together.

The two generated files of tests/scoring/corpus.py, through
the library and the command line, which must agree; each problem is listed once.
"""

from __future__ import annotations

import json

import pytest

from scoring import ScoringError, align
from tests.scoring.corpus import (
    chemicalx_with_a_non_number_and_an_out_of_range_propensity,
    large_mudi_with_a_typo_and_a_ragged_line,
)
from tests.scoring.test_cli import run

CASES = {
    "mudi": ("mudi", large_mudi_with_a_typo_and_a_ragged_line),
    "chemicalx": ("chemicalx-drugcomb", chemicalx_with_a_non_number_and_an_out_of_range_propensity),
}


@pytest.mark.parametrize("case", CASES)
def test_the_library_reports_every_problem_once(case):
    task, make = CASES[case]
    truth, prediction, expected = make()
    with pytest.raises(ScoringError) as caught:
        align(task, truth.encode(), prediction.encode())
    assert [(p.line, p.message) for p in caught.value.problems] == expected
    assert caught.value.total == len(expected)


@pytest.mark.parametrize("case", CASES)
def test_the_command_line_reports_the_same_problems(case, write):
    task, make = CASES[case]
    truth, prediction, expected = make()
    result = run("score", task, "--truth", write("t.csv", truth), "--pred", write("p.csv", prediction), "--json")
    assert result.returncode == 2
    payload = json.loads(result.stdout)
    assert [(e["line"], e["message"]) for e in payload["errors"]] == expected
    assert payload["error_count"] == len(expected)


def test_a_line_left_out_for_its_field_count_is_not_reported_missing_as_well():
    truth, prediction, _ = large_mudi_with_a_typo_and_a_ragged_line(rows=6_000)
    with pytest.raises(ScoringError) as caught:
        align("mudi", truth.encode(), prediction.encode())
    assert not any("miss" in p.message for p in caught.value.problems)


def test_a_number_that_does_not_parse_is_not_reported_again_as_not_finite():
    truth, prediction, _ = chemicalx_with_a_non_number_and_an_out_of_range_propensity()
    with pytest.raises(ScoringError) as caught:
        align("chemicalx-drugcomb", truth.encode(), prediction.encode())
    assert [p.line for p in caught.value.problems] == [40, 3001]
    assert "not a finite number" not in str(caught.value)


def test_problems_beyond_the_cap_are_counted_not_listed():
    truth, prediction, _ = large_mudi_with_a_typo_and_a_ragged_line(rows=6_000)
    lines = prediction.splitlines()
    for i in range(1, 201):  # 200 ragged lines and 200 unknown classes
        lines[i] += ",x" if i % 2 else ""
        if i % 2 == 0:
            lines[i] = lines[i].replace("Antagonism", "Nope").replace("Synergism", "Nope").replace("New Effect", "Nope")
    with pytest.raises(ScoringError) as caught:
        align("mudi", truth.encode(), ("\n".join(lines) + "\n").encode())
    assert caught.value.total >= 200
    assert len(caught.value.problems) == 50
