"""A MUDI submission page by drug: bucket F1 always; the drugs with most errors only where the labels are public."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.services import import_truth
from tests.boards.conftest import fresh_cache, mudi_prediction_csv, scored, with_truth  # noqa: F401
from tests.drugs.conftest import record, write_drugs
from tests.submissions.helpers import MUDI_TRUTH_ROWS, mudi_truth_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def load_drugs(tmp_path, names: dict[str, str]) -> None:
    call_command("load_drugs", str(write_drugs(tmp_path, {drug_id: record(name) for drug_id, name in names.items()})))


def drug_cells(html: str) -> list[str]:
    """The first cell of each row of the table of the drugs with the most errors."""
    table = html[html.index('id="top-error-table"') : html.index("</table>", html.index('id="top-error-table"'))]
    return re.findall(r"<tr><td>(.*?)</td>", table)


@pytest.fixture
def standing_submission(db, alice):
    from leaderboard.challenges.services import sync_standing_challenges

    sync_standing_challenges()
    phase = with_truth("mudi", mudi_truth_csv())
    return scored(phase, alice.personal_team, "TwoWrong", file=mudi_prediction_csv(wrong=2), rebuild=False)


@pytest.fixture
def organized_submission(db, alice):
    """A published organized challenge scored on MUDI with its organizer's own hidden truth."""
    challenge = Challenge.objects.create(
        slug="hidden-ddi", title="Hidden DDI", kind=Challenge.Kind.ORGANIZED, is_published=True
    )
    phase = Phase.objects.create(challenge=challenge, slug="test", title="Test", task_slug="mudi")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "truth.csv"
        path.write_bytes(mudi_truth_csv())
        import_truth(phase, path, synthetic=False, label="organizer's hidden labels")
    phase.refresh_from_db()
    return scored(phase, alice.personal_team, "TwoWrong", file=mudi_prediction_csv(wrong=2), rebuild=False)


def test_a_standing_mudi_submission_shows_buckets_and_the_drugs_with_most_errors(
    client, alice, standing_submission, tmp_path
):
    load_drugs(tmp_path, {"DB00001": "One", "DB00002": "Two", "DB00003": "Three"})
    client.force_login(alice)
    html = client.get(f"/submissions/{standing_submission.pk}/").content.decode()
    assert 'id="bucket-table"' in html and "at most 5 test pairs, 6 to 20, more than 20" in html
    assert 'id="top-error-drugs"' in html
    # The two wrong pairs are (DB00001, DB00002) and (DB00001, DB00003): DB00001 has 4 errors, the others 2.
    linked = re.findall(r'<a href="/drugs/(DB\d+)/">', html)
    assert linked == ["DB00001", "DB00002", "DB00003"]


def test_each_drug_with_most_errors_shows_its_name_beside_its_linked_id(client, alice, standing_submission, tmp_path):
    load_drugs(tmp_path, {"DB00001": "Warfarin", "DB00002": "Aspirin <buffered>"})
    client.force_login(alice)
    html = client.get(f"/submissions/{standing_submission.pk}/").content.decode()
    assert drug_cells(html) == [
        '<a href="/drugs/DB00001/">DB00001</a> <span class="drug-name">Warfarin</span>',
        '<a href="/drugs/DB00002/">DB00002</a> <span class="drug-name">Aspirin &lt;buffered&gt;</span>',
        # Not in the drug list: the bare id, with no link to a page that does not exist.
        "DB00003",
    ]


def test_with_no_drug_list_loaded_the_table_shows_the_ids(client, alice, standing_submission):
    client.force_login(alice)
    response = client.get(f"/submissions/{standing_submission.pk}/")
    assert response.status_code == 200
    assert drug_cells(response.content.decode()) == ["DB00001", "DB00002", "DB00003"]


def test_the_names_cost_one_query_however_many_drugs_are_listed(client, alice, standing_submission, tmp_path):
    load_drugs(tmp_path, {drug_id: f"Drug {drug_id}" for row in MUDI_TRUTH_ROWS for drug_id in (row[0], row[2])})
    many = scored(
        standing_submission.phase, alice.personal_team, "AllWrong", file=mudi_prediction_csv(wrong=12), rebuild=False
    )
    client.force_login(alice)
    counts = []
    for submission, listed in ((standing_submission, 3), (many, 10)):
        with CaptureQueriesContext(connection) as queries:
            html = client.get(f"/submissions/{submission.pk}/").content.decode()
        assert len(drug_cells(html)) == listed and html.count('class="drug-name"') == listed
        assert sum('"drugs_drug"' in q["sql"] for q in queries.captured_queries) == 1
        counts.append(len(queries.captured_queries))
    assert counts[0] == counts[1]


def test_an_organized_phase_with_hidden_labels_shows_no_per_drug_errors_to_the_participant(
    client, alice, organized_submission
):
    assert organized_submission.report["drugs"]["top_errors"]  # the worker computed them; the page must not show them
    client.force_login(alice)
    for url in (f"/submissions/{organized_submission.pk}/", f"/submissions/{organized_submission.pk}/report"):
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert 'id="bucket-table"' in html  # aggregate F1 by frequency bucket, like the class F1s
        assert 'id="top-error-drugs"' not in html and "/drugs/DB" not in html, url


def test_the_bucket_values_on_the_page_are_the_stored_results(client, alice, standing_submission):
    client.force_login(alice)
    html = client.get(f"/submissions/{standing_submission.pk}/").content.decode()
    row = re.search(r'<tr data-bucket="rare">(.*?)</tr>', html, re.S).group(1)
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)
    values = standing_submission.results.filter(key__startswith="aware/drug_freq/rare/")
    stored = {r.key: r.value for r in values}
    assert cells[0] == str(int(stored["aware/drug_freq/rare/pairs"]))
    assert cells[1] == f"{stored['aware/drug_freq/rare/macro_f1']:.4f}"
