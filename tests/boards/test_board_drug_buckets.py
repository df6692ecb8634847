"""The MUDI board's "F1 by drug frequency" table: stored values, buckets stated."""

from __future__ import annotations

import re

import pytest

from leaderboard.submissions.models import Result
from tests.boards.conftest import mudi_metrics, mudi_prediction_csv, mudi_truth_csv, phase_for, scored, with_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def mudi_board(standing, alice_lab, charlie):
    phase = with_truth("mudi", mudi_truth_csv())
    perfect = scored(phase, alice_lab, "Perfect", file=mudi_prediction_csv())
    wrong = scored(phase, charlie.personal_team, "ThreeWrong", file=mudi_prediction_csv(wrong=3, swap=2), minutes=1)
    return perfect, wrong


def _table(html: str) -> str:
    start = html.index('id="drug-bucket-table"')
    return html[start : html.index("</table>", start)]


def test_the_board_states_the_buckets_and_shows_each_entrys_stored_bucket_f1(client, mudi_board):
    perfect, wrong = mudi_board
    html = client.get("/tasks/mudi/").content.decode()
    assert "at most 5 test pairs, 6 to 20, or more than 20" in html
    table = _table(html)
    # Twelve pairs of drugs that are each in at most 3 pairs: one bucket.
    assert "Rarer drug in ≤ 5 test pairs" in table and "12 pairs in the bucket" in table
    rows = re.findall(r"<tr><td class=\"num\">(\d+)</td><td><a [^>]+>([^<]+)</a>(.*?)</tr>", table, re.S)
    assert [(rank, method) for rank, method, _ in rows] == [("1", "Perfect"), ("2", "ThreeWrong")]
    stored = {r.key: r.value for r in Result.objects.filter(submission=wrong, key__startswith="aware/drug_freq/rare/")}
    cells = re.findall(r'<td class="num">([^<]+)</td>', rows[1][2])
    assert cells == [f"{stored['aware/drug_freq/rare/macro_f1']:.4f}", f"{stored['aware/drug_freq/rare/micro_f1']:.4f}"]
    assert re.findall(r'<td class="num">([^<]+)</td>', rows[0][2]) == ["1.0000", "1.0000"]


def test_the_agnostic_view_shows_the_agnostic_values(client, mudi_board):
    _, wrong = mudi_board
    html = client.get("/tasks/mudi/?direction=agnostic").content.decode()
    stored = Result.objects.get(submission=wrong, key="agnostic/drug_freq/rare/macro_f1").value
    assert f"{stored:.4f}" in _table(html) and "direction-agnostic" in html[html.index('id="drug-buckets"') :]


def test_entries_scored_before_the_breakdown_show_no_table(client, standing, alice_lab):
    scored(phase_for("mudi"), alice_lab, "Old", mudi_metrics(0.5))
    assert 'id="drug-buckets"' not in client.get("/tasks/mudi/").content.decode()


def test_a_board_of_another_kind_has_no_drug_table(client, standing, alice_lab):
    from tests.boards.conftest import pair_metrics

    scored(phase_for("chemicalx-drugbankddi"), alice_lab, "DeepDDS", pair_metrics(0.8))
    assert 'id="drug-buckets"' not in client.get("/tasks/chemicalx-drugbankddi/").content.decode()
