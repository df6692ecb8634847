"""A truth fix re-scores every submission with one explanatory message per participant; result e-mails name
the challenge and the phase."""

from __future__ import annotations

import pytest
from django.core import mail
from django.db import transaction

from leaderboard.challenges.services import import_truth
from leaderboard.organize.services import rescore_phase
from leaderboard.submissions import outcomes, runs
from leaderboard.submissions.models import Submission
from tests.challenges.split_phase import make_split_phase, split_truth_csv, submit_scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def score_queued_as_the_worker_does(capture) -> None:
    for pk in Submission.objects.filter(status="queued").values_list("pk", flat=True):
        with capture(execute=True):
            token = outcomes.claim(pk)
            with transaction.atomic():
                assert runs.score_claimed(str(pk), token) == "scored"


def test_a_result_email_names_the_challenge_and_the_phase(
    olga, alice, alice_lab, django_capture_on_commit_callbacks, result_emails_sent_at_once
):
    phase = make_split_phase(olga)
    with django_capture_on_commit_callbacks(execute=True):
        submit_scored(phase, alice_lab, alice, {0}, method="LabNet")
    (message,) = mail.outbox
    assert message.subject.startswith("[DDI Leaderboard] LabNet on MUDI held-out pairs 2027 · Test phase: ")
    assert 'to the phase "Test phase" of the challenge "MUDI held-out pairs 2027" (mudi) has been scored' in (
        message.body
    )
    assert "(public test rows)" in message.body


def test_a_truth_fix_sends_one_message_per_participant_and_no_result_emails(
    olga, alice, alice_lab, bob, charlie, tmp_path, django_capture_on_commit_callbacks
):
    phase = make_split_phase(olga)
    submit_scored(phase, alice_lab, alice, {0}, method="One")
    submit_scored(phase, alice_lab, alice, {1}, method="Two")
    submit_scored(phase, alice_lab, bob, {2}, method="Three")
    submit_scored(phase, charlie.personal_team, charlie, {3}, method="Solo")
    charlie.email_results = False
    charlie.save(update_fields=["email_results"])
    mail.outbox.clear()

    fixed = tmp_path / "fixed.csv"
    fixed.write_bytes(split_truth_csv().replace(b"Synergism,Compound::DB00002", b"Antagonism,Compound::DB00002"))
    import_truth(phase, fixed, uploaded_by=olga, label="fixed")
    phase.refresh_from_db()
    assert rescore_phase(phase.pk, phase.truth_sha256) == 4
    score_queued_as_the_worker_does(django_capture_on_commit_callbacks)

    assert Submission.objects.filter(phase=phase, status="scored").count() == 4
    by_address = {m.to[0]: m for m in mail.outbox}
    assert sorted(by_address) == ["alice@example.org", "bob@example.org"]  # charlie switched them off
    assert len(mail.outbox) == 2
    alice_message = by_address["alice@example.org"]
    assert alice_message.subject == (
        "[DDI Leaderboard] MUDI held-out pairs 2027 · Test phase: the organizers fixed the test labels; "
        "your submissions are being re-scored"
    )
    assert "now truth version 2" in alice_message.body and "Your 2 submissions to this phase are" in alice_message.body
    assert "/challenges/mudi-2027/test/my/" in alice_message.body
    assert "Your 1 submission to this phase is" in by_address["bob@example.org"].body
    assert not [m for m in mail.outbox if "has been scored" in m.body]
