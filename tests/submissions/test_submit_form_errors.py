"""/tasks/<slug>/submit/ after a form error: the file is kept, the errors are summed up at the top."""

from __future__ import annotations

import hashlib
import re

import pytest

from leaderboard.submissions.models import Submission
from tests.conftest import PASSWORD
from tests.submissions.helpers import as_post_file, invalid_mudi_csv, mudi_prediction_csv, post_data

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def kept_token(response) -> str:
    match = re.search(r'name="staged_file" value="([^"]+)"', response.content.decode())
    assert match, "no kept file on the page"
    return match.group(1)


def test_a_valid_file_is_kept_after_another_fields_error(alice_client, alice, mudi_phase):
    data = post_data(alice.personal_team, declare_modalities=[])
    data["file"] = as_post_file(mudi_prediction_csv(), "mudi_noisy30.csv")
    response = alice_client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "<strong>mudi_noisy30.csv</strong> (" in html and "is kept; choose another to replace it" in html
    assert Submission.objects.count() == 0


def test_the_kept_file_is_submitted_without_choosing_it_again(alice_client, alice, mudi_phase, sent):
    data = post_data(alice.personal_team, declare_modalities=[])
    data["file"] = as_post_file(mudi_prediction_csv(), "mudi_noisy30.csv")
    token = kept_token(alice_client.post("/tasks/mudi/submit/", data))
    response = alice_client.post("/tasks/mudi/submit/", {**post_data(alice.personal_team), "staged_file": token})
    assert response.status_code == 302
    submission = Submission.objects.get()
    assert submission.file_name == "mudi_noisy30.csv"
    assert submission.sha256 == hashlib.sha256(mudi_prediction_csv()).hexdigest()
    # Used once: the same token does not submit again.
    again = alice_client.post("/tasks/mudi/submit/", {**post_data(alice.personal_team), "staged_file": token})
    assert again.status_code == 400 and b"Choose a prediction file." in again.content


def test_an_invalid_file_is_not_kept(alice_client, alice, mudi_phase):
    data = post_data(alice.personal_team, declare_modalities=[])
    data["file"] = as_post_file(invalid_mudi_csv(), "bad.csv")
    response = alice_client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 400
    assert b'name="staged_file" value="' not in response.content
    assert b"is kept" not in response.content


def test_another_users_token_is_ignored(client, alice, bob, mudi_phase):
    client.force_login(alice)
    data = post_data(alice.personal_team, declare_modalities=[])
    data["file"] = as_post_file(mudi_prediction_csv(), "mine.csv")
    token = kept_token(client.post("/tasks/mudi/submit/", data))
    client.logout()
    client.login(username="bob", password=PASSWORD)
    response = client.post("/tasks/mudi/submit/", {**post_data(bob.personal_team), "staged_file": token})
    assert response.status_code == 400 and b"Choose a prediction file." in response.content
    assert Submission.objects.count() == 0


def test_the_error_summary_links_to_each_field_with_an_error(alice_client, alice, mudi_phase):
    data = post_data(alice.personal_team, declare_modalities=[], method_name="", code_url="not a url")
    data["file"] = as_post_file(mudi_prediction_csv(), "p.csv")
    html = alice_client.post("/tasks/mudi/submit/", data).content.decode()
    summary = html[html.index('id="error-summary"') : html.index("</div>", html.index('id="error-summary"'))]
    for field in ("method_name", "code_url", "declare_modalities"):
        assert f'href="#field-{field}"' in summary
    assert html.index('id="error-summary"') < html.index('id="field-file"')


def test_declarations_are_checked_by_the_server_only_with_no_browser_required_bubble(alice_client, mudi_phase):
    html = alice_client.get("/tasks/mudi/submit/").content.decode()
    form = html[html.index('id="submission-form"') :]
    assert " required" not in form.split("</form>")[0]
    assert '<fieldset class="field choice-group" id="field-declare_modalities">' in form
    assert "<legend>Modalities used" in form


def test_the_format_and_downloads_come_before_the_form(alice_client, mudi_phase):
    html = alice_client.get("/tasks/mudi/submit/").content.decode()
    assert html.index('id="format"') < html.index('href="/tasks/mudi/example.csv"') < html.index('id="submission-form"')


def test_the_form_offers_the_answers_of_the_users_last_submission(alice_client, alice, mudi_phase, sent):
    data = post_data(alice.personal_team, method_name="MyGNN", declare_modalities=["image"])
    data["file"] = as_post_file(mudi_prediction_csv(), "p.csv")
    assert alice_client.post("/tasks/mudi/submit/", data).status_code == 302
    html = alice_client.get("/tasks/mudi/submit/").content.decode()
    assert 'value="MyGNN"' in html
    assert re.search(r'<input type="checkbox" name="declare_modalities" value="image"[^>]* checked', html)


def test_the_chemicalx_page_describes_the_loaded_truth_and_says_it_is_a_demo_subsample(alice_client, db):
    from tests.submissions.helpers import standing_phase_with_truth

    rows = ["seed,drug_1,drug_2,context,label"]
    rows += [f"{seed},d{i},d{i + 1},c1,{i % 2}" for seed in range(10) for i in range(4)]
    standing_phase_with_truth("chemicalx-drugbankddi", ("\n".join(rows) + "\n").encode())
    html = alice_client.get("/tasks/chemicalx-drugbankddi/submit/").content.decode()
    assert "This phase's test set has <strong>40 rows</strong>: 4 in each of the 10 splits." in html
    assert "It is a synthetic demo subsample" in html


def test_kept_files_past_their_hour_are_swept(alice_client, alice, mudi_phase, monkeypatch):
    import time

    from leaderboard.storage import private_storage
    from leaderboard.submissions import staging
    from leaderboard.submissions.sweeping import sweep_submissions

    data = post_data(alice.personal_team, declare_modalities=[])
    data["file"] = as_post_file(mudi_prediction_csv(), "old.csv")
    token = kept_token(alice_client.post("/tasks/mudi/submit/", data))
    stored = staging.load(alice, token).storage_name
    assert sweep_submissions()["staged_removed"] == 0  # still fresh
    monkeypatch.setattr(time, "time", lambda: 1e12)  # far in the future
    assert sweep_submissions()["staged_removed"] >= 1  # (other tests may have left kept files too)
    assert not private_storage().exists(stored)
