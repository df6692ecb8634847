"""/tasks/<slug>/submit/: the form, validation before queueing, quotas, declarations."""

from __future__ import annotations

import hashlib

import pytest

from leaderboard.submissions.models import Submission
from tests.submissions.helpers import (
    as_post_file,
    invalid_mudi_csv,
    mudi_prediction_csv,
    post_data,
    standing_phase_with_truth,
)

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def submit(client, content: bytes, team, name: str = "predictions.csv", slug: str = "mudi", **overrides):
    data = post_data(team, **overrides)
    data["file"] = as_post_file(content, name)
    return client.post(f"/tasks/{slug}/submit/", data)


def test_it_sends_anonymous_visitors_to_the_login_page(client, mudi_phase):
    response = client.get("/tasks/mudi/submit/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_it_shows_the_format_downloads_quota_and_declarations(alice_client, mudi_phase):
    response = alice_client.get("/tasks/mudi/submit/")
    assert response.status_code == 200
    assert b'href="/tasks/mudi/inputs.csv"' in response.content
    assert b'href="/tasks/mudi/example.csv"' in response.content
    assert b"<code>Drug1</code>, <code>Interaction</code>, <code>Drug2</code>" in response.content
    assert b"5 of 5 left today, 100 of 100 in total" in response.content
    assert b"resets at midnight UTC" in response.content
    for modality in (b"text", b"formula", b"graph", b"image"):
        assert b'value="' + modality + b'"' in response.content
    assert b"Synthetic demo data" in response.content  # the fixture's truth is labelled synthetic


def test_it_queues_a_valid_file_and_redirects_to_the_submission(
    alice_client, alice, mudi_phase, sent, django_capture_on_commit_callbacks
):
    content = mudi_prediction_csv()
    with django_capture_on_commit_callbacks(execute=True):
        response = submit(alice_client, content, alice.personal_team)
    submission = Submission.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/submissions/{submission.pk}/"
    assert submission.status == Submission.Status.QUEUED
    assert submission.sha256 == hashlib.sha256(content).hexdigest()
    assert submission.file.read() == content
    assert submission.declarations == {"modalities": ["graph", "text"]}
    assert submission.n_parameters == 1_200_000 and submission.is_public and not submission.uses_external_data
    assert sent == [str(submission.pk)]


def test_it_rejects_an_invalid_file_with_row_level_errors_and_stores_nothing(
    alice_client, alice, mudi_phase, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = submit(alice_client, invalid_mudi_csv(), alice.personal_team)
    assert response.status_code == 400
    assert b"The file is not valid for this task" in response.content
    assert b"Nothing was submitted and no quota was used" in response.content
    assert b'id="problems"' in response.content
    assert b"<td>2</td>" in response.content  # the unknown class is located on line 2
    assert b"Friendship" in response.content
    assert b"DB09999" in response.content
    assert Submission.objects.count() == 0
    assert sent == []
    assert b"5 of 5 left today" in response.content


def test_it_rejects_a_file_over_the_size_cap(alice_client, alice, mudi_phase, settings):
    settings.SUBMISSION_MAX_BYTES = 50
    response = submit(alice_client, mudi_prediction_csv(), alice.personal_team)
    assert response.status_code == 400
    assert b"the limit is" in response.content
    assert Submission.objects.count() == 0


def test_it_rejects_files_that_are_not_csv_or_tsv(alice_client, alice, mudi_phase):
    response = submit(alice_client, mudi_prediction_csv(), alice.personal_team, name="predictions.xlsx")
    assert b"Upload a .csv or .tsv file" in response.content
    assert Submission.objects.count() == 0


def test_it_accepts_a_gzipped_file(alice_client, alice, mudi_phase, sent):
    import gzip

    response = submit(alice_client, gzip.compress(mudi_prediction_csv()), alice.personal_team, name="p.csv.gz")
    assert response.status_code == 302
    assert Submission.objects.get().file.name.endswith(".csv.gz")


def test_it_requires_a_method_name_and_a_modality(alice_client, alice, mudi_phase):
    response = submit(alice_client, mudi_prediction_csv(), alice.personal_team, method_name="", declare_modalities=[])
    assert response.status_code == 400
    assert b'id="field-method_name"' in response.content and b"This field is required" in response.content
    assert Submission.objects.count() == 0


def test_it_queues_files_over_the_inline_limit_without_validating_them(
    alice_client, alice, mudi_phase, sent, settings, django_capture_on_commit_callbacks
):
    settings.SUBMISSION_INLINE_VALIDATION_BYTES = 10
    with django_capture_on_commit_callbacks(execute=True):
        response = submit(alice_client, invalid_mudi_csv(), alice.personal_team)
    assert response.status_code == 302
    submission = Submission.objects.get()
    assert submission.status == Submission.Status.QUEUED
    assert sent == [str(submission.pk)]


def test_it_refuses_an_upload_when_the_daily_quota_is_used(alice_client, alice, mudi_phase, sent):
    mudi_phase.daily_limit = 2
    mudi_phase.save()
    for _ in range(2):
        assert submit(alice_client, mudi_prediction_csv(), alice.personal_team).status_code == 302
    response = submit(alice_client, mudi_prediction_csv(), alice.personal_team)
    assert response.status_code == 400
    assert b"used all 2 submissions allowed today" in response.content
    assert Submission.objects.count() == 2


def test_failed_submissions_do_not_count_against_the_quota(alice_client, alice, mudi_phase, sent):
    mudi_phase.daily_limit = 1
    mudi_phase.save()
    assert submit(alice_client, mudi_prediction_csv(), alice.personal_team).status_code == 302
    Submission.objects.update(status=Submission.Status.FAILED, error_kind=Submission.ErrorKind.PLATFORM)
    assert submit(alice_client, mudi_prediction_csv(), alice.personal_team).status_code == 302
    Submission.objects.filter(status=Submission.Status.QUEUED).update(
        status=Submission.Status.FAILED, error_kind=Submission.ErrorKind.INVALID
    )
    assert submit(alice_client, mudi_prediction_csv(), alice.personal_team).status_code == 302
    assert Submission.objects.count() == 3


def test_it_lets_a_member_submit_for_their_team(client, bob, alice_lab, mudi_phase, sent):
    client.force_login(bob)
    response = submit(client, mudi_prediction_csv(), alice_lab)
    assert response.status_code == 302
    assert Submission.objects.get().team == alice_lab


def test_an_outsider_cannot_submit_as_someone_elses_team(client, charlie, alice_lab, mudi_phase, sent):
    client.force_login(charlie)
    response = submit(client, mudi_prediction_csv(), alice_lab)
    assert response.status_code == 400
    assert b"Select a valid choice" in response.content
    assert Submission.objects.count() == 0


def test_drugbankddi_requires_an_explicit_answer_about_context_features(client, alice, sent):
    truth = b"seed,drug_1,drug_2,context,label\n0,DB1,DB2,c1,1\n0,DB1,DB3,c2,0\n"
    standing_phase_with_truth("chemicalx-drugbankddi", truth)
    client.force_login(alice)
    page = client.get("/tasks/chemicalx-drugbankddi/submit/")
    assert b"Uses context features" in page.content
    prediction = b"seed,drug_1,drug_2,context,prediction\n0,DB1,DB2,c1,0.9\n0,DB1,DB3,c2,0.2\n"
    data = post_data(alice.personal_team)
    data.pop("declare_modalities")
    data["file"] = as_post_file(prediction)
    response = client.post("/tasks/chemicalx-drugbankddi/submit/", data)
    assert response.status_code == 400 and Submission.objects.count() == 0
    data["file"] = as_post_file(prediction)
    data["declare_uses_context_features"] = "yes"
    response = client.post("/tasks/chemicalx-drugbankddi/submit/", data)
    assert response.status_code == 302
    assert Submission.objects.get().declarations == {"uses_context_features": True}


def test_an_unknown_task_is_404(alice_client, mudi_phase):
    assert alice_client.get("/tasks/no-such-task/submit/").status_code == 404


def test_a_task_without_truth_cannot_take_submissions(alice_client, alice, mudi_phase, sent):
    response = alice_client.get("/tasks/imdrug-hiv-random/submit/")
    assert b"has no test set loaded yet" in response.content
    assert b'id="submission-form"' not in response.content


def test_a_closed_phase_cannot_take_submissions(alice_client, alice, mudi_phase, sent):
    from django.utils import timezone

    mudi_phase.ends_at = timezone.now()
    mudi_phase.save()
    response = submit(alice_client, mudi_prediction_csv(), alice.personal_team)
    assert b"closed on " in response.content and b"UTC: it no longer takes submissions" in response.content
    assert Submission.objects.count() == 0
