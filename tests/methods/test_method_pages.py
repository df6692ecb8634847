"""/methods/<team>/<method>/: a team's method across tasks, curated by the team; the team page lists its methods."""

from __future__ import annotations

import re

import pytest

from leaderboard.methods.models import MethodProfile
from tests.boards.conftest import PASSWORD, classification_metrics, mudi_metrics, pair_metrics, phase_for, scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def results_table(html: str) -> list[list[str]]:
    body = html.split('id="method-results"')[1].split("</table>")[0].split("<tbody>")[1]
    rows = re.findall(r"<tr data-task=\"([^\"]+)\">(.*?)</tr>", body, re.S)

    def text(cell: str) -> str:
        return " ".join(re.sub(r"<[^>]+>", " ", cell).split())

    return [[task, *[text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", cells, re.S)]] for task, cells in rows]


def test_a_method_page_lists_every_task_it_entered_with_rank_percentile_and_a_link(
    client, standing, alice_lab, charlie
):
    scored(phase_for("mudi"), alice_lab, "GraphDDI", mudi_metrics(0.6))
    scored(phase_for("mudi"), charlie.personal_team, "Other", mudi_metrics(0.7), minutes=1)
    scored(phase_for("mudi"), charlie.personal_team, "Third", mudi_metrics(0.5), minutes=2)
    sub = scored(phase_for("chemicalx-twosides"), alice_lab, "graphddi ", pair_metrics(0.8, 0.01))
    scored(phase_for("imdrug-hiv-random"), alice_lab, "Something else", classification_metrics(0.8))
    html = client.get("/methods/alice-lab/graphddi/").content.decode()
    assert "<h1>GraphDDI" in html or "<h1>graphddi" in html
    rows = results_table(html)
    assert [r[0] for r in rows] == ["mudi", "chemicalx-twosides"]  # registry order; not the other method's task
    mudi, twosides = rows
    assert mudi[3] == "0.6000" and mudi[4] == "2 of 3" and mudi[5] == "50"
    assert twosides[3] == "0.8000 ± 0.0100" and twosides[4] == "1 of 1" and twosides[5] == "100"
    assert f'href="/submissions/{sub.pk}/"' in html
    assert 'href="/tasks/chemicalx-twosides/"' in html
    assert "Edit links and description" not in html  # anonymous visitors do not curate


def test_a_private_or_unknown_method_has_no_page(client, standing, alice_lab):
    scored(phase_for("mudi"), alice_lab, "Secret", mudi_metrics(0.6), is_public=False)
    assert client.get("/methods/alice-lab/secret/").status_code == 404
    assert client.get("/methods/alice-lab/nothing/").status_code == 404
    assert client.get("/methods/no-team/secret/").status_code == 404


def test_members_curate_the_paper_and_code_links_and_outsiders_cannot(client, standing, alice_lab, charlie):
    scored(phase_for("mudi"), alice_lab, "GraphDDI", mudi_metrics(0.6))
    client.login(username="charlie", password=PASSWORD)
    assert client.get("/methods/alice-lab/graphddi/edit/").status_code == 404
    assert client.post("/methods/alice-lab/graphddi/edit/", {"paper_url": "https://x.org/"}).status_code == 404
    client.login(username="bob", password=PASSWORD)
    response = client.post("/methods/alice-lab/graphddi/edit/", {"paper_url": "not a url", "code_url": ""})
    assert response.status_code == 400 and "Enter a valid URL." in response.content.decode()
    response = client.post(
        "/methods/alice-lab/graphddi/edit/",
        {
            "paper_url": "https://arxiv.org/abs/1234.5678",
            "code_url": "https://example.org/code",
            "description": "Graphs.",
        },
    )
    assert response.status_code == 302 and response["Location"] == "/methods/alice-lab/graphddi/"
    profile = MethodProfile.objects.get()
    assert (profile.method_key, profile.updated_by.username) == ("graphddi", "bob")
    html = client.get("/methods/alice-lab/graphddi/").content.decode()
    assert 'href="https://arxiv.org/abs/1234.5678"' in html and 'href="https://example.org/code"' in html
    assert "Graphs." in html and "Edit links and description" in html


def test_the_team_page_lists_its_methods(client, standing, alice_lab):
    scored(phase_for("mudi"), alice_lab, "GraphDDI", mudi_metrics(0.6))
    scored(phase_for("chemicalx-twosides"), alice_lab, "GraphDDI", pair_metrics(0.8))
    client.login(username="bob", password=PASSWORD)
    html = client.get("/teams/alice-lab/").content.decode()
    section = html.split('id="team-methods"')[1].split("</section>")[0]
    assert '<a href="/methods/alice-lab/graphddi/">GraphDDI</a>' in section
    assert "on 2 tasks" in section
