"""The board's CSV export is safe to open in a spreadsheet: a method name never runs as a formula."""

from __future__ import annotations

import csv
import io

import pytest

from tests.boards.conftest import mudi_metrics, phase_for, scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

FORMULA = '=HYPERLINK("http://evil.example/","click")'


def test_the_board_export_neutralises_method_names(client, standing, alice_lab):
    phase = phase_for("mudi")
    scored(phase, alice_lab, FORMULA, mudi_metrics(0.7, 0.6))
    response = client.get("/tasks/mudi/leaderboard.csv")
    rows = list(csv.DictReader(io.StringIO(response.getvalue().decode())))
    assert rows[0]["method"] == "'" + FORMULA
    assert float(rows[0]["aware/macro/f1"]) == 0.7  # numbers stay numbers
