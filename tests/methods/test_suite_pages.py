"""/suites/ and /suites/<family|all>/: methods ranked by mean normalised rank, coverage always shown."""

from __future__ import annotations

import re

import pytest

from tests.boards.conftest import mudi_metrics, pair_metrics, phase_for, scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def suite_rows(html: str) -> list[list[str]]:
    body = html.split('id="suite"')[1].split("<tbody>")[1].split("</tbody>")[0]
    return [
        [" ".join(re.sub(r"<[^>]+>", " ", c).split()) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def test_the_suite_across_all_tasks_ranks_by_mean_normalised_rank_with_coverage(client, standing, alice_lab, charlie):
    """MUDI: Alpha 0.7 (first of 2), Beta 0.6 (last). TWOSIDES: Beta 0.9 (first of 2), Gamma 0.5 (last).

    Alpha: 0 on 1 task; Beta: (1 + 0) / 2 = 0.5 on 2 tasks; Gamma: 1 on 1 task.
    """
    scored(phase_for("mudi"), alice_lab, "Alpha", mudi_metrics(0.7))
    scored(phase_for("mudi"), charlie.personal_team, "Beta", mudi_metrics(0.6), minutes=1)
    scored(phase_for("chemicalx-twosides"), charlie.personal_team, "Beta", pair_metrics(0.9))
    scored(phase_for("chemicalx-twosides"), alice_lab, "Gamma", pair_metrics(0.5), minutes=1)
    html = client.get("/suites/all/").content.decode()
    assert "mean normalised rank" in html
    rows = suite_rows(html)
    assert [r[:5] for r in rows] == [
        ["1", "Alpha", "Alice Lab", "0.000", "1/16"],
        ["2", "Beta", "charlie", "0.500", "2/16"],
        ["3", "Gamma", "Alice Lab", "1.000", "1/16"],
    ]
    assert '<a href="/methods/charlie/beta/">Beta</a>' in html
    assert 'href="/tasks/mudi/"' in html and 'href="/tasks/chemicalx-twosides/"' in html
    # Never ranked on a task it did not enter: Alpha's TWOSIDES cell is empty.
    assert rows[0][5 + list_tasks().index("chemicalx-twosides")] == "·"


def list_tasks() -> list[str]:
    import scoring

    return list(scoring.TASKS)


def test_a_family_suite_counts_only_its_tasks(client, standing, alice_lab, charlie):
    scored(phase_for("mudi"), alice_lab, "Alpha", mudi_metrics(0.7))
    scored(phase_for("chemicalx-twosides"), alice_lab, "Alpha", pair_metrics(0.5))
    scored(phase_for("chemicalx-twosides"), charlie.personal_team, "Beta", pair_metrics(0.9), minutes=1)
    import scoring

    n = sum(1 for t in scoring.TASKS.values() if t.family == "chemicalx")
    rows = suite_rows(client.get("/suites/chemicalx/").content.decode())
    assert [r[:5] for r in rows] == [
        ["1", "Beta", "charlie", "0.000", f"1/{n}"],
        ["2", "Alpha", "Alice Lab", "1.000", f"1/{n}"],
    ]
    assert client.get("/suites/nothing/").status_code == 404
    index = client.get("/suites/").content.decode()
    assert 'href="/suites/all/"' in index and 'href="/suites/mudi/"' in index
