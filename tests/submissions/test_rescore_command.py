"""manage.py rescore --task SLUG: everything of a task scored again with the current scorer."""

from __future__ import annotations

import pytest
from django.core.management import call_command

import scoring
from leaderboard.submissions import tasks
from leaderboard.submissions.models import Submission
from tests.submissions.helpers import make_submission

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_it_rescored_every_finished_submission_of_the_task(mudi_phase, alice, sent, capsys):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    tasks.score_submission.apply(args=[str(submission.pk)])
    Submission.objects.filter(pk=submission.pk).update(scorer_version="0.0.1", primary_value=0.0)
    call_command("rescore", "--task", "mudi", "--now")
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SCORED
    assert submission.scorer_version == scoring.__version__
    assert submission.primary_value > 0
    assert "1 submission(s) of mudi re-queued" in capsys.readouterr().out
    assert sent == []  # --now scores in-process; nothing is sent to the broker


def test_without_now_it_queues_them_for_the_workers(mudi_phase, alice, sent, django_capture_on_commit_callbacks):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    tasks.score_submission.apply(args=[str(submission.pk)])
    with django_capture_on_commit_callbacks(execute=True):
        call_command("rescore", "--task", "mudi")
    submission.refresh_from_db()
    assert submission.status == Submission.Status.QUEUED and submission.results.count() == 0
    assert sent == [str(submission.pk)]


def test_outdated_only_skips_submissions_of_the_current_scorer(mudi_phase, alice, sent, capsys):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    tasks.score_submission.apply(args=[str(submission.pk)])
    call_command("rescore", "--task", "mudi", "--outdated", "--now")
    assert "0 submission(s)" in capsys.readouterr().out
