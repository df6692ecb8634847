"""The worker on a split phase: every part is scored and stored, and only the public part is shown before the reveal."""

from __future__ import annotations

import io

import pytest

import scoring
from leaderboard.submissions import edits, intake, outcomes, runs
from leaderboard.submissions.models import Result
from tests.challenges.split_phase import (
    PRIVATE_ROWS,
    PUBLIC_ROWS,
    make_split_phase,
    prediction_csv,
    register,
    split_truth_csv,
    submit_scored,
)
from tests.submissions.helpers import make_submission, mudi_truth_csv, standing_phase_with_truth, upload

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def split_phase(olga):
    return make_split_phase(olga)


def offline_parts(wrong):
    truth, split = scoring.load_split_truth("mudi", io.BytesIO(split_truth_csv()), scoring.SplitSpec.usage())
    return scoring.score_parts("mudi", truth, io.BytesIO(prediction_csv(wrong)), split)


def test_a_split_phase_stores_public_private_and_all_rows_results(split_phase, alice):
    wrong = {PUBLIC_ROWS[0], PRIVATE_ROWS[1], PRIVATE_ROWS[2]}
    submission = submit_scored(split_phase, alice.personal_team, alice, wrong)
    expected = offline_parts(wrong)
    for part in ("public", "private", "all"):
        stored = Result.objects.filter(submission=submission).by_submission(part=part)[str(submission.pk)]
        assert stored["aware/macro/f1"] == pytest.approx(expected[part].metrics["aware/macro/f1"])
    assert submission.primary_value == pytest.approx(expected["public"].primary_value)
    assert submission.private_primary_value == pytest.approx(expected["private"].primary_value)
    assert submission.private_primary_value != submission.primary_value
    assert submission.report == outcomes._finite(expected["public"].report)
    assert submission.private_report == outcomes._finite(expected["private"].report)


def test_the_default_reader_returns_the_public_part(split_phase, alice):
    submission = submit_scored(split_phase, alice.personal_team, alice, {PRIVATE_ROWS[0]})
    public = Result.objects.filter(submission=submission).by_submission()[str(submission.pk)]
    # Every public row is right: the public value is a perfect prediction's.
    assert public["aware/macro/f1"] == pytest.approx(offline_parts(())["public"].metrics["aware/macro/f1"])
    assert public["aware/macro/f1"] != submission.private_primary_value


def test_a_phase_without_a_split_stores_public_rows_only_with_unchanged_numbers(alice):
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    submission = make_submission(phase, alice.personal_team, alice)
    token = outcomes.claim(submission.pk)
    assert runs.score_claimed(str(submission.pk), token) == "scored"
    submission.refresh_from_db()
    assert set(Result.objects.filter(submission=submission).values_list("part", flat=True)) == {"public"}
    with submission.file.open("rb") as handle:
        expected = scoring.score_files("mudi", mudi_truth_csv(), handle)
    assert submission.primary_value == pytest.approx(expected.primary_value)
    assert submission.private_primary_value is None and submission.private_report is None


def test_an_invalid_file_on_a_split_phase_fails_with_its_located_problems(split_phase, alice):
    from leaderboard.submissions.models import Submission

    bad = prediction_csv().replace(b"Synergism", b"Friendship", 1)
    register(split_phase, alice.personal_team, alice)
    submission = intake.create_submission(
        phase=split_phase,
        team=alice.personal_team,
        user=alice,
        upload=upload(bad),
        metadata=intake.Metadata(method_name="Bad"),
        enqueue=False,
        charge_quota=False,  # no registration here: the submit rules have their own tests (test_phase_submit.py)
    )
    token = outcomes.claim(submission.pk)
    assert runs.score_claimed(str(submission.pk), token) == "invalid"
    submission.refresh_from_db()
    assert submission.status == Submission.Status.FAILED
    assert "Friendship" in submission.error_message
    assert not Result.objects.filter(submission=submission).exists()


def test_a_rerun_clears_the_private_part_too(split_phase, alice):
    submission = submit_scored(split_phase, alice.personal_team, alice, {PRIVATE_ROWS[0]})
    edits.requeue(submission, enqueue=False)
    submission.refresh_from_db()
    assert submission.private_primary_value is None and submission.private_report is None
    assert not Result.objects.filter(submission=submission).exists()


def test_the_result_email_and_status_json_carry_the_public_value_only(split_phase, alice):
    from leaderboard.submissions.emails import result_email
    from leaderboard.submissions.summary import status_payload

    submission = submit_scored(split_phase, alice.personal_team, alice, {PRIVATE_ROWS[0], PRIVATE_ROWS[1]})
    private = f"{submission.private_primary_value:.4f}"
    subject, body = result_email(submission)
    assert private not in subject + body
    assert f"{submission.primary_value:.4f}" in body
    payload = str(status_payload(submission))
    assert str(submission.private_primary_value) not in payload
