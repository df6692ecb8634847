"""ImDrug class groups on the phase page: a class,group mapping with the truth, or applied to the current truth."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import escape
from pytest_django.asserts import assertContains, assertNotContains

from leaderboard.challenges.models import AuditEntry, TruthVersion
from leaderboard.organize.services import rescore_phase
from leaderboard.submissions import queueing, tasks
from leaderboard.submissions.models import Result, Submission
from tests.organize.conftest import truth_upload
from tests.submissions.helpers import make_submission, upload

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

# The uspto phase's task has ten reaction classes: head 0-2, middle 3-6, tail 7-9 below.
URL = "/challenges/uspto-2027/manage/phases/development/truth/"
GROUPS_URL = "/challenges/uspto-2027/manage/phases/development/truth/groups"
MUDI_URL = "/challenges/mudi-2027/manage/phases/development/truth/"
# Twenty rows, two of each class by index.
TRUTH = ("id,label\n" + "".join(f"r{i},{i % 10}\n" for i in range(20))).encode()
# Class 0 by its name, the rest by index.
MAPPING = (
    b"class,group\nheteroatom alkylation and arylation,head\n1,head\n2,head\n3,middle\n4,middle\n5,middle\n6,middle\n"
    b"7,tail\n8,tail\n9,tail\n"
)
GROUP_OF = ["head"] * 3 + ["middle"] * 4 + ["tail"] * 3
GROUPED_TRUTH = ("id,label,group\n" + "".join(f"r{i},{i % 10},{GROUP_OF[i % 10]}\n" for i in range(20))).encode()
# Every row right but the first two.
PREDICTION = ("id,prediction\n" + "".join(f"r{i},{(i + 1) % 10 if i < 2 else i % 10}\n" for i in range(20))).encode()


def csv(content: bytes, name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="text/csv")


@pytest.fixture
def uspto_with_truth(uspto, olga):
    from leaderboard.organize.services import replace_truth

    replace_truth(uspto, csv(TRUTH, "truth.csv"), olga)
    uspto.refresh_from_db()
    return uspto


def stored(phase) -> bytes:
    phase.refresh_from_db()
    with phase.truth_file.open("rb") as handle:
        return handle.read()


def scored_now(phase, user) -> dict[str, float]:
    submission = make_submission(phase, user.personal_team, user, PREDICTION)
    assert tasks.score_submission.apply(args=[str(submission.pk)]).get() == "scored"
    return score_of(submission)


def score_of(submission) -> dict[str, float]:
    return dict(Result.objects.filter(submission=submission, seed=None).values_list("key", "value"))


def test_the_page_offers_class_groups_for_an_imdrug_task_only(client, olga, uspto_with_truth, phase_with_truth):
    client.force_login(olga)
    page = client.get("/challenges/uspto-2027/manage/phases/development/")
    assertContains(page, "Class groups (class,group CSV)", count=2)  # the truth form's field and the apply form
    assertContains(page, 'action="/challenges/uspto-2027/manage/phases/development/truth/groups"')
    page = client.get("/challenges/mudi-2027/manage/phases/development/")
    assertNotContains(page, "Class groups")


def test_a_truth_with_a_mapping_is_stored_with_a_group_column_and_scored_per_group(client, olga, uspto):
    client.force_login(olga)
    response = client.post(URL, {"file": csv(TRUTH, "truth.csv"), "groups": csv(MAPPING, "groups.csv")}, follow=True)
    assertContains(response, "Stored the truth (20 rows, sha256")
    assert stored(uspto) == GROUPED_TRUTH
    version = TruthVersion.objects.get(phase=uspto)
    assert version.sha256 == uspto.truth_sha256 and version.uploaded_by == olga
    assert "with groups groups.csv" in version.source
    entry = AuditEntry.objects.get(action="truth.upload")
    assert entry.details["groups"] == "groups.csv" and entry.details["file"] == "truth.csv"
    metrics = scored_now(uspto, olga)  # an organizer submits without registering
    # Rows r0 (class 0) and r1 (class 1) are wrong: head recalls 1/2, 1/2 and 1.
    assert metrics["group/head/balanced_accuracy"] == pytest.approx(2 / 3)
    assert metrics["group/middle/balanced_accuracy"] == pytest.approx(1.0)
    assert metrics["group/tail/balanced_accuracy"] == pytest.approx(1.0)
    assert "group/head/balanced_f1" in metrics


def test_the_mappings_groups_replace_a_group_column_of_the_truth(client, olga, uspto):
    everything_tail = GROUPED_TRUTH.replace(b"head", b"tail").replace(b"middle", b"tail").replace(b",", b"\t")
    client.force_login(olga)
    client.post(URL, {"file": csv(everything_tail, "truth.tsv"), "groups": csv(MAPPING, "groups.csv")})
    assert stored(uspto) == GROUPED_TRUTH.replace(b",", b"\t")  # same delimiter, the mapping's groups


def test_a_mapping_applied_to_the_current_truth_makes_a_new_version_and_rescores(
    client, olga, uspto_with_truth, django_capture_on_commit_callbacks, monkeypatch
):
    first_sha = uspto_with_truth.truth_sha256
    before = scored_now(uspto_with_truth, olga)
    assert not any(key.startswith("group/") for key in before)
    sent: list[tuple] = []
    monkeypatch.setattr("leaderboard.organize.services.enqueue_rescore", lambda *args: sent.append(args))
    client.force_login(olga)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(GROUPS_URL, {"mapping": csv(MAPPING, "groups.csv")}, follow=True)
    assertContains(response, "The phase&#x27;s 1 submission is being re-scored against it.")
    assert stored(uspto_with_truth) == GROUPED_TRUTH
    assert set(TruthVersion.objects.values_list("sha256", flat=True)) == {first_sha, uspto_with_truth.truth_sha256}
    assert sent == [(uspto_with_truth.pk, uspto_with_truth.truth_sha256)]
    assert AuditEntry.objects.filter(action="truth.groups", details__groups="groups.csv", details__rescored=1).exists()
    # The worker re-queues the submission; scoring it again gives the groups' values.
    monkeypatch.setattr(queueing, "enqueue", lambda submission_id: True)
    assert rescore_phase(uspto_with_truth.pk, uspto_with_truth.truth_sha256) == 1
    submission = Submission.objects.get()
    assert tasks.score_submission.apply(args=[str(submission.pk)]).get() == "scored"
    assert score_of(submission)["group/head/balanced_accuracy"] == pytest.approx(2 / 3)
    # The same mapping again writes the same file: nothing changes.
    response = client.post(GROUPS_URL, {"mapping": csv(MAPPING, "groups.csv")}, follow=True)
    assertContains(response, "This is already the phase&#x27;s truth file; nothing changed.")
    assert TruthVersion.objects.count() == 2


BAD_MAPPINGS = [
    (
        MAPPING.replace(b"9,tail", b"class 99,tail"),
        'Line 11, column "class": "class 99" is not a class of this task',
    ),
    (MAPPING + b"1,tail\n", 'Line 12, column "group": this class is in group "tail" here but in "head" on line 3'),
    (MAPPING.replace(b"3,middle", b"3,torso"), 'Line 5, column "group": "torso" is not a group'),
    (
        MAPPING.replace(b"9,tail\n", b""),
        'Line 11 of the truth has class "functional group addition", which the group mapping gives no group',
    ),
]


@pytest.mark.parametrize("mapping, sentence", BAD_MAPPINGS)
def test_a_bad_mapping_with_the_truth_is_located_on_the_page_and_stores_nothing(
    client, olga, uspto_with_truth, mapping, sentence
):
    before = stored(uspto_with_truth)
    client.force_login(olga)
    response = client.post(URL, {"file": csv(GROUPED_TRUTH, "truth.csv"), "groups": csv(mapping, "groups.csv")})
    assertContains(response, escape(sentence), status_code=400)
    assertContains(response, "Nothing was stored; the current truth is unchanged.", status_code=400)
    assert stored(uspto_with_truth) == before and TruthVersion.objects.count() == 1
    assert not AuditEntry.objects.filter(action__in=["truth.replace", "truth.groups"]).exists()


@pytest.mark.parametrize("mapping, sentence", BAD_MAPPINGS)
def test_a_bad_mapping_for_the_current_truth_is_located_on_the_page_and_changes_nothing(
    client, olga, uspto_with_truth, mapping, sentence
):
    before = stored(uspto_with_truth)
    client.force_login(olga)
    response = client.post(GROUPS_URL, {"mapping": csv(mapping, "groups.csv")})
    assertContains(response, escape(sentence), status_code=400)
    assert stored(uspto_with_truth) == before and TruthVersion.objects.count() == 1
    assert not AuditEntry.objects.filter(action="truth.groups").exists()


def test_an_invalid_truth_with_a_mapping_is_reported_on_the_truth_field(client, olga, uspto):
    client.force_login(olga)
    bad_truth = TRUTH.replace(b"r3,3", b"r3,friendship")
    response = client.post(URL, {"file": csv(bad_truth, "truth.csv"), "groups": csv(MAPPING, "groups.csv")})
    assertContains(response, "The truth file is not valid for this task: 1 problem", status_code=400)
    assertContains(response, "<td>5</td>", status_code=400)  # located in the file the organizer gave
    uspto.refresh_from_db()
    assert not uspto.has_truth


def test_a_mapping_file_of_the_wrong_kind_is_refused_by_name(client, olga, uspto):
    client.force_login(olga)
    response = client.post(URL, {"file": csv(TRUTH, "truth.csv"), "groups": csv(MAPPING, "groups.xlsx")})
    assertContains(response, "Upload a .csv or .tsv file", status_code=400)
    uspto.refresh_from_db()
    assert not uspto.has_truth


def test_a_mapping_for_a_phase_without_truth_asks_for_the_truth(client, olga, uspto):
    client.force_login(olga)
    response = client.post(GROUPS_URL, {"mapping": csv(MAPPING, "groups.csv")})
    assertContains(response, "This phase has no truth file yet", status_code=400)


def test_a_mapping_on_a_mudi_phase_is_refused(client, olga, phase_with_truth):
    before = phase_with_truth.truth_sha256
    client.force_login(olga)
    response = client.post(MUDI_URL, {"file": truth_upload(), "groups": upload(b"class,group\n0,head\n")})
    sentence = "Task mudi has no class groups; a group mapping is for classification tasks."
    assertContains(response, sentence + " Nothing was stored; the current truth is unchanged.", 1, 400)
    response = client.post(MUDI_URL + "groups", {"mapping": upload(b"class,group\n0,head\n")})
    assertContains(response, sentence + " Nothing was stored", 1, 400)
    phase_with_truth.refresh_from_db()
    assert phase_with_truth.truth_sha256 == before and TruthVersion.objects.count() == 1


def test_an_outsider_cannot_apply_a_mapping(client, charlie, uspto_with_truth):
    client.force_login(charlie)
    assert client.post(GROUPS_URL, {"mapping": csv(MAPPING, "groups.csv")}).status_code == 404
    assert TruthVersion.objects.count() == 1


def test_a_gzipped_truth_stays_gzipped_with_its_group_column(client, olga, uspto):
    import gzip

    client.force_login(olga)
    truth = csv(gzip.compress(TRUTH), "truth.csv.gz")
    client.post(URL, {"file": truth, "groups": csv(MAPPING, "groups.csv")})
    data = stored(uspto)
    assert uspto.truth_file.name.endswith(".csv.gz") and gzip.decompress(data) == GROUPED_TRUTH
