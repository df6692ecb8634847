"""A MUDI submission page by drug: bucket F1 always; the drugs with most errors only where the labels are public."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.services import import_truth
from tests.boards.conftest import fresh_cache, mudi_prediction_csv, scored, with_truth  # noqa: F401
from tests.submissions.helpers import mudi_truth_csv


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


def test_a_standing_mudi_submission_shows_buckets_and_the_drugs_with_most_errors(client, alice, standing_submission):
    client.force_login(alice)
    html = client.get(f"/submissions/{standing_submission.pk}/").content.decode()
    assert 'id="bucket-table"' in html and "at most 5 test pairs, 6 to 20, more than 20" in html
    assert 'id="top-error-drugs"' in html
    # The two wrong pairs are (DB00001, DB00002) and (DB00001, DB00003): DB00001 has 4 errors, the others 2.
    linked = re.findall(r'<a href="/drugs/(DB\d+)/">', html)
    assert linked == ["DB00001", "DB00002", "DB00003"]


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
