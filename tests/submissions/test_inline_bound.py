"""The in-request check is bounded by uncompressed bytes and rows, not the compressed size.

Parsed whole, a tiny gzip of millions of rows would cost the web process
7.4 s and about 1 GB (0.6 MB of .gz, 4.9 M rows). Past the bound the form
stops reading and the worker validates the file, with scoring's messages.
"""

from __future__ import annotations

import gzip

import pytest

import scoring
from leaderboard.submissions import tasks
from leaderboard.submissions.forms import bounded_content
from leaderboard.submissions.models import Submission
from tests.submissions.helpers import as_post_file, mudi_prediction_csv, mudi_truth_csv, post_data, upload

# Two million junk rows (about 30 MB uncompressed) in well under 1 MB of gzip.
JUNK_ROWS = 2_000_000


def bomb() -> bytes:
    return gzip.compress(b"Drug1,Interaction,Drug2\n" + b"Compound::DB1,Friendship,Compound::DB2\n" * JUNK_ROWS)


@pytest.mark.storage
def test_a_small_gzip_past_the_bound_is_queued_without_being_parsed_in_the_request(
    client, alice, mudi_phase, sent, monkeypatch, settings, django_capture_on_commit_callbacks
):
    # The 12-row test truth would stop the worker at its read floor (test_worker_time_budget.py):
    # here the worker must read the whole file, as it would for a real truth of this size.
    settings.SUBMISSION_MIN_READ_BYTES = settings.SUBMISSION_MAX_BYTES
    payload = bomb()
    assert len(payload) < 1024 * 1024
    parsed = []
    real_align = scoring.align
    monkeypatch.setattr(scoring, "align", lambda *a, **k: parsed.append(1) or real_align(*a, **k))
    client.force_login(alice)
    data = post_data(alice.personal_team)
    data["file"] = as_post_file(payload, "predictions.csv.gz")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 302
    assert parsed == []  # the web process never parsed it
    submission = Submission.objects.get()
    assert sent == [str(submission.pk)]
    # The worker validates it, with the messages the form would have shown.
    assert tasks.score_submission.apply(args=[str(submission.pk)]).get() == "invalid"
    submission.refresh_from_db()
    assert submission.error_kind == Submission.ErrorKind.INVALID
    assert "Friendship" in submission.error_message
    small = b"Drug1,Interaction,Drug2\n" + b"Compound::DB1,Friendship,Compound::DB2\n"
    try:
        scoring.align("mudi", mudi_truth_csv(), small)
    except scoring.ScoringError as error:
        assert error.problems[0].message in submission.error_message


def test_the_bound_counts_rows_as_well_as_bytes(settings):
    rows = b"Drug1,Interaction,Drug2\n" + b"a,b,c\n" * 100
    assert bounded_content(upload(gzip.compress(rows)), 10_000, 100) == rows
    assert bounded_content(upload(gzip.compress(rows)), 10_000, 99) is None
    assert bounded_content(upload(gzip.compress(rows)), 100, 1_000) is None
    assert bounded_content(upload(rows), 100, 1_000) is None


def test_the_bound_counts_the_lines_of_old_mac_and_windows_files():
    rows = b"Drug1,Interaction,Drug2\n" + b"a,b,c\n" * 100
    for newline in (b"\r", b"\r\n"):
        assert bounded_content(upload(rows.replace(b"\n", newline)), 10_000, 100) is not None
        assert bounded_content(upload(rows.replace(b"\n", newline)), 10_000, 99) is None


@pytest.mark.storage
def test_a_small_gzip_within_the_bound_is_still_checked_in_the_request(client, alice, mudi_phase, sent):
    client.force_login(alice)
    bad = mudi_prediction_csv().replace(b"Synergism", b"Friendship")
    data = post_data(alice.personal_team)
    data["file"] = as_post_file(gzip.compress(bad), "predictions.csv.gz")
    response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 400
    assert b"Friendship" in response.content
    assert not Submission.objects.exists()
