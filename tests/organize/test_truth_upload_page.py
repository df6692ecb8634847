"""Truth on the phase page: upload validated like a submission, versions kept, re-scoring, the one download."""

from __future__ import annotations

import pytest
from pytest_django.asserts import assertContains, assertNotContains

from leaderboard.challenges.models import AuditEntry, TruthVersion
from leaderboard.organize.services import rescore_phase
from leaderboard.submissions import queueing
from leaderboard.submissions.models import Submission
from tests.boards.conftest import mudi_metrics, scored
from tests.organize.conftest import truth_upload
from tests.submissions.helpers import invalid_mudi_csv, mudi_truth_csv

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

URL = "/challenges/mudi-2027/manage/phases/development/truth/"
SECOND_TRUTH = mudi_truth_csv().replace(b"Compound::DB00011,Synergism", b"Compound::DB00011,Antagonism")


def test_a_valid_truth_is_stored_privately_with_its_sha256(client, olga, phase):
    client.force_login(olga)
    response = client.post(URL, {"file": truth_upload()}, follow=True)
    assertContains(response, "Stored the truth (12 rows, sha256")
    phase.refresh_from_db()
    version = TruthVersion.objects.get(phase=phase)
    assert phase.has_truth and phase.truth_sha256 == version.sha256 and version.n_rows == 12
    assert version.uploaded_by == olga
    with phase.truth_file.open("rb") as handle:
        assert handle.read() == mudi_truth_csv()
    entry = AuditEntry.objects.get(action="truth.upload")
    assert entry.actor == olga and entry.details["sha256"] == version.sha256


def test_an_invalid_truth_shows_located_problems_and_stores_nothing(client, olga, phase):
    client.force_login(olga)
    response = client.post(URL, {"file": truth_upload(invalid_mudi_csv())})
    assert response.status_code == 400
    assertContains(response, 'id="problems"', status_code=400)
    assertContains(response, "<td>2</td>", status_code=400)  # the line of the first problem
    assertContains(response, "Nothing was stored; the current truth is unchanged.", status_code=400)
    phase.refresh_from_db()
    assert not phase.has_truth and not TruthVersion.objects.exists() and not AuditEntry.objects.exists()


def test_a_file_of_the_wrong_kind_is_refused_by_name(client, olga, phase):
    client.force_login(olga)
    response = client.post(URL, {"file": truth_upload(b"x", name="truth.xlsx")})
    assertContains(response, "Upload a .csv or .tsv file", status_code=400)


def test_replacing_the_truth_keeps_the_old_version_and_rescores_every_submission(
    client, olga, alice, charlie, phase_with_truth, rescores, django_capture_on_commit_callbacks, monkeypatch
):
    first_sha = phase_with_truth.truth_sha256
    one = scored(phase_with_truth, alice.personal_team, "GraphDDI", mudi_metrics(0.5))
    two = scored(phase_with_truth, charlie.personal_team, "TextDDI", mudi_metrics(0.4))
    client.force_login(olga)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(URL, {"file": truth_upload(SECOND_TRUTH)}, follow=True)
    assertContains(response, "The phase&#x27;s 2 submissions are being re-scored against it.")
    phase_with_truth.refresh_from_db()
    assert phase_with_truth.truth_sha256 != first_sha
    assert set(TruthVersion.objects.values_list("sha256", flat=True)) == {first_sha, phase_with_truth.truth_sha256}
    assert rescores == [(phase_with_truth.pk, phase_with_truth.truth_sha256)]
    assert AuditEntry.objects.filter(action="truth.replace", details__rescored=2).exists()
    # The worker's task sends each submission back to the queue.
    sent: list[str] = []
    monkeypatch.setattr(queueing, "enqueue", lambda submission_id: sent.append(str(submission_id)) or True)
    with django_capture_on_commit_callbacks(execute=True):
        assert rescore_phase(phase_with_truth.pk, phase_with_truth.truth_sha256) == 2
    assert set(sent) == {str(one.pk), str(two.pk)}
    assert set(Submission.objects.values_list("status", flat=True)) == {"queued"}


def test_a_big_phase_is_rescored_in_batches_each_handing_on_the_rest(
    alice, charlie, olga, phase_with_truth, monkeypatch
):
    from leaderboard.organize import services

    for team in (alice.personal_team, charlie.personal_team, olga.personal_team):
        scored(phase_with_truth, team, "GraphDDI", mudi_metrics(0.5))
    monkeypatch.setattr(queueing, "enqueue", lambda submission_id: True)
    monkeypatch.setattr(services, "RESCORE_BATCH", 2)
    follow_ups: list[tuple] = []
    monkeypatch.setattr(services.rescore_phase, "delay", lambda *args: follow_ups.append(args))
    sha = phase_with_truth.truth_sha256
    assert rescore_phase(phase_with_truth.pk, sha) == 2
    ((phase_id, follow_sha, after),) = follow_ups
    assert (phase_id, follow_sha) == (phase_with_truth.pk, sha)
    assert rescore_phase(phase_id, follow_sha, after) == 1 and len(follow_ups) == 1
    assert set(Submission.objects.values_list("status", flat=True)) == {"queued"}


def test_a_rescore_for_an_older_truth_stops(alice, phase_with_truth):
    scored(phase_with_truth, alice.personal_team, "GraphDDI", mudi_metrics(0.5))
    assert rescore_phase(phase_with_truth.pk, "0" * 64) == 0
    assert Submission.objects.get().status == "scored"


def test_uploading_the_current_truth_again_changes_nothing(client, olga, phase_with_truth, rescores):
    client.force_login(olga)
    response = client.post(URL, {"file": truth_upload()}, follow=True)
    assertContains(response, "This is already the phase&#x27;s truth file; nothing changed.")
    assert TruthVersion.objects.count() == 1 and rescores == []


def test_the_page_lists_versions_with_who_when_and_how_many_scores_use_each(client, olga, alice, phase_with_truth):
    submission = scored(phase_with_truth, alice.personal_team, "GraphDDI", mudi_metrics(0.5))
    Submission.objects.filter(pk=submission.pk).update(truth_version=TruthVersion.objects.get())
    client.force_login(olga)
    page = client.get("/challenges/mudi-2027/manage/phases/development/")
    assertContains(page, f"<code>{phase_with_truth.truth_sha256[:12]}</code>")
    assertContains(page, '<td class="num">12</td>')  # rows
    assertContains(page, "<td>olga</td>")
    assertContains(page, '<td class="num">1</td>')  # one score uses it
    assertContains(page, 'href="/challenges/mudi-2027/manage/phases/development/truth/download"')


def test_the_organizer_downloads_the_current_truth_and_the_download_is_audited(client, olga, phase_with_truth):
    client.force_login(olga)
    response = client.get("/challenges/mudi-2027/manage/phases/development/truth/download")
    assert b"".join(response.streaming_content) == mudi_truth_csv()
    assert "attachment" in response["Content-Disposition"] and response["Cache-Control"] == "private, no-store"
    assert AuditEntry.objects.filter(action="truth.download", actor=olga).exists()


def test_no_other_url_serves_the_truth(client, alice, phase_with_truth):
    from django.conf import settings

    phase_with_truth.challenge.is_published = True
    phase_with_truth.challenge.save()
    client.force_login(alice)
    name = phase_with_truth.truth_file.name
    assert client.get(f"{settings.MEDIA_URL}{name}").status_code == 404
    inputs = client.get("/challenges/mudi-2027/development/inputs.csv")
    assert inputs.status_code == 200
    body = b"".join(inputs.streaming_content) if inputs.streaming else inputs.content
    assert b"Synergism" not in body and b"Antagonism" not in body
    assertNotContains(client.get("/challenges/mudi-2027/"), "truth/download")


def test_a_phase_without_truth_has_no_download(client, olga, phase):
    client.force_login(olga)
    assert client.get("/challenges/mudi-2027/manage/phases/development/truth/download").status_code == 404
    assertContains(client.get("/challenges/mudi-2027/manage/phases/development/"), "has no truth file yet")
