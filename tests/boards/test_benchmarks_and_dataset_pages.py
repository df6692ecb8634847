"""/benchmarks/ and /datasets/<family>/<dataset>/."""

from __future__ import annotations

import re

import pytest

import scoring
from tests.boards.conftest import classification_metrics, mudi_metrics, pair_metrics, phase_for, scored


def test_benchmarks_lists_every_family_with_its_datasets_and_tasks(client, standing):
    html = client.get("/benchmarks/").content.decode()
    for family in scoring.FAMILIES.values():
        assert family.name in html
        assert family.citation in html
        assert f'href="{family.paper_url}"' in html
        for caveat in family.caveats:
            assert caveat in html
    for slug in scoring.TASKS:
        assert f'href="/tasks/{slug}/"' in html
    assert 'href="/datasets/imdrug/hiv/"' in html


@pytest.mark.storage
def test_benchmarks_shows_submission_counts_best_score_and_last_activity(client, standing, alice_lab, charlie):
    phase = phase_for("chemicalx-twosides")
    scored(phase, alice_lab, "A", pair_metrics(0.81234))
    scored(phase, charlie.personal_team, "B", pair_metrics(0.7), minutes=30)
    scored(phase, charlie.personal_team, "Hidden", pair_metrics(0.99), minutes=40, is_public=False)
    html = client.get("/benchmarks/").content.decode()
    row = re.search(r'href="/tasks/chemicalx-twosides/".*?</tr>', html, re.S).group(0)
    cells = re.findall(r'<td class="num">([^<]+)</td>', row)
    assert cells == ["2", "0.8123"]
    assert "2026-01-01" in row


@pytest.mark.storage
def test_benchmarks_summary_refreshes_after_a_new_score(
    client, standing, alice_lab, django_capture_on_commit_callbacks
):
    phase = phase_for("mudi")
    client.get("/benchmarks/")
    with django_capture_on_commit_callbacks(execute=True):  # the summary is dropped when the rebuild commits
        scored(phase, alice_lab, "A", mudi_metrics(0.4321))
    assert "0.4321" in client.get("/benchmarks/").content.decode()


def test_benchmarks_marks_tasks_without_a_board(client, db):
    assert "no board yet" in client.get("/benchmarks/").content.decode()


@pytest.mark.storage
def test_a_dataset_with_several_splits_shows_them_side_by_side(client, standing, alice_lab, charlie):
    scored(phase_for("imdrug-hiv-random"), alice_lab, "GCN", classification_metrics(0.80))
    scored(phase_for("imdrug-hiv-standard"), alice_lab, "GCN", classification_metrics(0.70))
    scored(phase_for("imdrug-hiv-random"), charlie.personal_team, "MLP", classification_metrics(0.75))
    response = client.get("/datasets/imdrug/hiv/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'href="/tasks/imdrug-hiv-random/"' in html and 'href="/tasks/imdrug-hiv-standard/"' in html
    gcn = re.search(r"<td>GCN</td>.*?</tr>", html, re.S).group(0)
    assert "0.8000" in gcn and "0.7000" in gcn
    assert 'data-chart="chart-data-splits"' in html


@pytest.mark.storage
def test_a_task_board_of_imdrug_compares_the_random_and_standard_split(client, standing, alice_lab):
    scored(phase_for("imdrug-hiv-random"), alice_lab, "GCN", classification_metrics(0.80))
    scored(phase_for("imdrug-hiv-standard"), alice_lab, "GCN", classification_metrics(0.70))
    assert b'data-chart="chart-data-splits"' in client.get("/tasks/imdrug-hiv-standard/").content


def test_a_dataset_with_one_task_redirects_to_its_board(client, standing):
    response = client.get("/datasets/mudi/mudi/")
    assert response.status_code == 302 and response["Location"] == "/tasks/mudi/"


def test_an_unknown_dataset_is_not_found(client, standing):
    assert client.get("/datasets/imdrug/nope/").status_code == 404
