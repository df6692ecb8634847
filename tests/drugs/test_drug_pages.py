"""/drugs/, /drugs/<id>/ and its structure drawing: stored data only, never drawn or counted per request."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command

from leaderboard.drugs import depict
from tests.boards.conftest import mudi_prediction_csv, mudi_truth_csv, scored, with_truth
from tests.drugs.conftest import record, write_drugs


@pytest.fixture
def no_drawing_in_requests(monkeypatch):
    """After import: any call to RDKit fails the test (a page must serve the stored drawing)."""

    def refuse(*args, **kwargs):
        raise AssertionError("a request drew a structure")

    monkeypatch.setattr(depict, "draw_here", refuse)
    monkeypatch.setattr(depict.Drawer, "draw", refuse)


@pytest.fixture
def loaded(db, three_real_drugs):
    call_command("load_drugs", str(three_real_drugs))


def test_the_drawing_is_served_from_storage_with_cache_headers(client, loaded, no_drawing_in_requests):
    page = client.get("/drugs/DB00682/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<h1>Warfarin" in html and 'src="/drugs/DB00682/structure.svg"' in html
    svg = client.get("/drugs/DB00682/structure.svg")
    assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml"
    assert b"</svg>" in svg.content
    assert svg["Cache-Control"] == "public, max-age=86400"
    again = client.get("/drugs/DB00682/structure.svg", HTTP_IF_NONE_MATCH=svg["ETag"])
    assert again.status_code == 304


def test_a_drug_whose_smiles_rdkit_cannot_read_shows_a_placeholder_not_an_error(db, client, tmp_path):
    call_command("load_drugs", str(write_drugs(tmp_path, {"DB00001": record("Broken", "C1CC(")})))
    page = client.get("/drugs/DB00001/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'class="structure-placeholder"' in html
    assert "RDKit could not read this drug&#x27;s SMILES" in html
    assert "structure.svg" not in html
    assert client.get("/drugs/DB00001/structure.svg").status_code == 404


def test_an_unknown_drug_is_404(db, client):
    assert client.get("/drugs/DB99999/").status_code == 404


def test_the_list_searches_by_name_and_id(client, loaded):
    html = client.get("/drugs/").content.decode()
    assert re.findall(r'<a href="/drugs/(DB\d+)/">', html) == ["DB00945", "DB00014", "DB00682"]  # by name
    assert re.findall(r'<a href="/drugs/(DB\d+)/">', client.get("/drugs/?q=warf").content.decode()) == ["DB00682"]
    assert re.findall(r'<a href="/drugs/(DB\d+)/">', client.get("/drugs/?q=db00014").content.decode()) == ["DB00014"]
    assert "No drug matches" in client.get("/drugs/?q=nothing").content.decode()


@pytest.fixture
def mudi_board(standing, alice_lab, charlie, tmp_path):
    phase = with_truth("mudi", mudi_truth_csv())
    scored(phase, alice_lab, "Perfect", file=mudi_prediction_csv())
    scored(phase, charlie.personal_team, "TwoWrong", file=mudi_prediction_csv(wrong=2), minutes=1)
    records = {"DB00001": record("One"), "DB00002": record("Two")}
    call_command("load_drugs", str(write_drugs(tmp_path, records)))
    return phase


def _entry_rows(html: str) -> list[tuple[str, ...]]:
    table = html[html.index('id="drug-entries"') : html.index("</table>", html.index('id="drug-entries"'))]
    body = table[table.index("<tbody>") :]
    return [
        tuple(re.findall(r'<td class="num"[^>]*>([^<]*)</td>', row))
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


@pytest.mark.storage
def test_the_drug_page_shows_its_test_pairs_and_the_top_entries_on_them(client, mudi_board, no_drawing_in_requests):
    html = client.get("/drugs/DB00002/").content.decode()
    assert "2 distinct pairs" in html and "Synergism 2" in html
    assert html.index(">Perfect<") < html.index(">TwoWrong<")
    # Rank, TP, FP, FN, F1 per setting (aware first). DB00002's pairs: (1, 2), wrong in TwoWrong, and (2, 4).
    assert _entry_rows(html) == [
        ("1", "2", "0", "0", "1.0000"),
        ("2", "0", "0", "1.0000"),
        ("2", "1", "1", "1", "0.5000"),
        ("1", "1", "1", "0.5000"),
    ]
