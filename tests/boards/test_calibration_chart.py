"""The submission page's calibration chart: drawn from the report's reliability curves."""

from __future__ import annotations

import pytest

from leaderboard.submissions.charts import submission_charts
from tests.boards.conftest import pair_metrics, phase_for, scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_a_report_with_reliability_curves_gets_a_calibration_chart(standing, alice_lab):
    sub = scored(phase_for("chemicalx-drugcomb"), alice_lab, "A", pair_metrics(0.8))
    sub.report = {
        "seeds": [{"seed": 0, "n": 4, "auroc": 0.8}],
        "calibration": [
            {"seed": 0, "mean_predicted": [0.1, 0.8], "fraction_positive": [0.0, 1.0], "count": [2, 2], "brier": 0.025}
        ],
    }
    charts = {c["id"]: c for c in submission_charts(sub)}
    table = charts["calibration"]["table"]
    assert table["columns"] == ["seed", "mean predicted", "fraction positive", "rows in bin", "Brier score"]
    assert table["rows"] == [["seed 0", "0.100", "0.000", "2", "0.0250"], ["seed 0", "0.800", "1.000", "2", "0.0250"]]
    assert "not ranked" in charts["calibration"]["note"]


def test_a_report_without_curves_gets_no_calibration_chart(standing, alice_lab):
    sub = scored(phase_for("chemicalx-drugcomb"), alice_lab, "A", pair_metrics(0.8))
    sub.report = {"seeds": [{"seed": 0, "n": 4, "auroc": 0.8}], "calibration": []}
    assert "calibration" not in {c["id"] for c in submission_charts(sub)}
