"""Issue 23, point 4: a ChemicalX board explains its AUPR beside the column and shows AP, unranked."""

from __future__ import annotations

import re

import pytest

from tests.boards.conftest import pair_metrics, phase_for, scored

pytestmark = [pytest.mark.storage, pytest.mark.django_db]


def ap(value: float) -> dict[str, float]:
    return {"average_precision": value, **{f"seed/{seed}/average_precision": value for seed in range(10)}}


def test_a_chemicalx_board_says_aupr_rewards_constant_scores_and_links_the_definition(client, standing, alice_lab):
    scored(phase_for("chemicalx-drugcomb"), alice_lab, "Constant", pair_metrics(0.5, aupr=0.679) | ap(0.358))
    html = client.get("/tasks/chemicalx-drugcomb/").content.decode()
    assert 'id="aupr-caveat"' in html
    assert "(1 + prevalence) / 2" in html
    assert 'href="/docs/metrics/#aupr-and-constant-scores"' in html


def test_average_precision_sits_beside_aupr_and_the_board_still_ranks_by_auroc(client, standing, alice_lab, charlie):
    phase = phase_for("chemicalx-drugcomb")
    scored(phase, alice_lab, "Constant", pair_metrics(0.5, aupr=0.679) | ap(0.358))
    scored(phase, charlie.personal_team, "Model", pair_metrics(0.7, aupr=0.6) | ap(0.55))
    html = client.get("/tasks/chemicalx-drugcomb/").content.decode()
    headers = re.findall(r'title="([^"]*)">(AUPR|AP)</a>', html)
    assert [label for _, label in headers] == ["AUPR", "AP"]
    assert "not ranked" in headers[1][0]
    assert "0.3580" in html and "0.5500" in html
    rows = re.findall(r'<td class="method[^"]*">\s*<a[^>]*>([^<]+)</a>', html)
    assert rows[:2] == ["Model", "Constant"]  # ranked by AUROC, whatever AUPR says


def test_other_boards_have_no_aupr_note(client, standing):
    assert 'id="aupr-caveat"' not in client.get("/tasks/imdrug-hiv-random/").content.decode()
