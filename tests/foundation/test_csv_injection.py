"""Every CSV the site writes is safe to open in a spreadsheet: no cell runs as a formula (OWASP's rule)."""

from __future__ import annotations

import pandas as pd
import pytest

from leaderboard.csvsafe import safe_cell, safe_frame
from tests.submissions.helpers import MUDI_TRUTH_ROWS, standing_phase_with_truth

FORMULAS = [
    '=HYPERLINK("http://evil.example/","click")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|x",
    "@SUM(1+1)",
    "\t=1",
    "\r=1",
]


@pytest.mark.parametrize("text", FORMULAS)
def test_text_a_spreadsheet_would_run_gets_a_leading_quote(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("value", [-0.5, 3, "-0.5", "+1e-3", "GraphOnly", "a=b", "", None, True])
def test_numbers_and_plain_text_stay_as_they_are(value):
    assert safe_cell(value) == value


def test_a_frame_keeps_its_numeric_columns():
    frame = pd.DataFrame({"name": ["=1+1", "ok"], "score": [-1.5, 2.0]})
    safe = safe_frame(frame)
    assert list(safe["name"]) == ["'=1+1", "ok"]
    assert safe["score"].dtype == float and list(safe["score"]) == [-1.5, 2.0]
    assert list(frame["name"]) == ["=1+1", "ok"]  # the caller's frame is untouched


@pytest.fixture
def phase_with_formula_keys(db):
    rows = [("@SUM(1+1)" if i == 0 else f"Compound::{a}", label, b) for i, (a, label, b) in enumerate(MUDI_TRUTH_ROWS)]
    lines = ["Drug1,Interaction,Drug2"] + [f"{a},{label},Compound::{b}" for a, label, b in rows]
    return standing_phase_with_truth("mudi", ("\n".join(lines) + "\n").encode())


@pytest.mark.storage
def test_the_test_inputs_download_neutralises_its_cells(client, phase_with_formula_keys):
    response = client.get("/tasks/mudi/inputs.csv")
    assert response.status_code == 200
    body = response.content.decode()
    assert "'@SUM(1+1)" in body
    assert "\n@SUM" not in body and not body.startswith("@")
