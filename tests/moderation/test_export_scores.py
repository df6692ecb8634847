"""/challenges/<slug>/manage/export.csv: every submission with public, private and all-row scores, organizers only."""

from __future__ import annotations

import csv
import io

import pytest

from tests.moderation.conftest import PRIVATE_VALUE, login, make_submission

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

URL = "/challenges/mudi-2027/manage/export.csv"


@pytest.fixture
def entries(phase, dev_phase, alice_lab, charlie):
    return [
        make_submission(phase, alice_lab, "GraphDDI", public=0.7123, all_rows=0.5555),
        make_submission(phase, charlie.personal_team, '=HYPERLINK("http://evil.example")', status="failed"),
        make_submission(dev_phase, charlie.personal_team, "EarlyBird", public=0.61, private=None, all_rows=None),
    ]


def rows(response) -> list[dict]:
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


def test_it_streams_every_submission_with_its_public_private_and_all_row_scores(client, oscar, entries):
    login(client, oscar)
    response = client.get(URL)
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"].startswith('attachment; filename="mudi-2027-scores-')
    assert response["Cache-Control"] == "private, no-store"
    found = {r["method"]: r for r in rows(response)}
    assert len(found) == 3
    graph = found["GraphDDI"]
    assert float(graph["public:aware/macro/f1"]) == 0.7123
    assert float(graph["private:aware/macro/f1"]) == PRIVATE_VALUE
    assert float(graph["all:aware/macro/f1"]) == 0.5555
    assert graph["team"] == "Alice Lab" and graph["phase"] == "test" and graph["status"] == "scored"
    assert graph["submission_url"].endswith(f"/submissions/{entries[0].pk}/")
    assert graph["truth_sha256"] == ""
    early = found["EarlyBird"]
    assert early["public:aware/macro/f1"] == "0.61" and early["private:aware/macro/f1"] == ""


def test_text_cells_are_safe_to_open_in_a_spreadsheet(client, oscar, entries):
    login(client, oscar)
    methods = [r["method"] for r in rows(client.get(URL))]
    assert '\'=HYPERLINK("http://evil.example")' in methods


def test_it_reads_results_in_chunks_not_one_query_per_submission(client, oscar, phase, alice_lab, settings):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for i in range(30):
        make_submission(phase, alice_lab, f"Method {i}")
    login(client, oscar)
    with CaptureQueriesContext(connection) as queries:
        assert len(rows(client.get(URL))) == 30
    assert len(queries) < 20


@pytest.mark.parametrize("who", ["alice", "charlie", "otto"])
def test_nobody_but_the_organizers_gets_it(client, request, entries, who):
    login(client, request.getfixturevalue(who))
    response = client.get(URL)
    assert response.status_code == 404
    assert str(PRIVATE_VALUE) not in response.content.decode()


def test_anonymous_visitors_are_sent_to_log_in(client, entries):
    assert client.get(URL).status_code == 302
