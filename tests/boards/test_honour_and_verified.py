"""The honour-system statement, the verified badge and filter, and the code-URL board setting."""

from __future__ import annotations

import csv
import io
import json

import pytest

import scoring
from leaderboard.submissions.models import Submission
from tests.boards.conftest import PASSWORD, mudi_metrics, mudi_truth_csv, phase_for, scored, with_truth
from tests.boards.test_board_page import methods

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

REPRODUCED = "reproduced from the linked code at commit 1a2b3c4"


@pytest.fixture
def verified_board(standing, alice_lab, charlie):
    phase = phase_for("mudi")
    scored(phase, alice_lab, "GraphOnly", mudi_metrics(0.70, 0.60))
    scored(
        phase, charlie.personal_team, "TextGraph", mudi_metrics(0.60, 0.90), minutes=1,
        code_url="https://example.org/c", is_verified=True, verification_note=REPRODUCED,
        verification_url="https://example.org/reproduction",
    )  # fmt: skip
    return phase


def test_every_hosted_task_says_where_its_test_labels_are_published():
    assert all(task.public_labels for task in scoring.TASKS.values())


def test_a_standing_board_with_public_labels_states_the_honour_system(client, verified_board):
    response = client.get("/tasks/mudi/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="honour-system"' in html
    assert "on the honour system" in html
    assert "dataset/test.csv" in html  # the task's own statement of where its labels are


def test_a_task_with_hidden_labels_shows_no_honour_statement(client, verified_board, monkeypatch):
    import dataclasses

    hidden = dataclasses.replace(scoring.TASKS["mudi"], public_labels="")
    monkeypatch.setitem(scoring.TASKS, "mudi", hidden)
    html = client.get("/tasks/mudi/").content.decode()
    assert 'id="honour-system"' not in html


def test_a_verified_entry_carries_the_badge_linking_to_how(client, verified_board):
    html = client.get("/tasks/mudi/").content.decode()
    assert html.count('class="badge badge-verified"') == 1
    submission = Submission.objects.get(method_name="TextGraph")
    assert f'href="/submissions/{submission.pk}/#verification"' in html


def test_verified_only_keeps_only_verified_entries_in_the_page_and_the_query_string(client, verified_board):
    response = client.get("/tasks/mudi/?verified=yes")
    assert methods(response) == ["TextGraph"]
    assert '<option value="yes" selected>yes</option>' in response.content.decode()
    assert 'href="/tasks/mudi/leaderboard.csv?verified=yes"' in response.content.decode()
    assert methods(client.get("/tasks/mudi/?verified=no")) == ["GraphOnly"]
    assert methods(client.get("/tasks/mudi/")) == ["GraphOnly", "TextGraph"]


def test_the_exports_carry_verified(client, verified_board):
    rows = list(csv.DictReader(io.StringIO(client.get("/tasks/mudi/leaderboard.csv").getvalue().decode())))
    by_method = {row["method"]: row for row in rows}
    assert by_method["TextGraph"]["verified"] == "true"
    assert by_method["GraphOnly"]["verified"] == "false"
    document = json.loads(client.get("/tasks/mudi/leaderboard.json?verified=yes").getvalue())
    assert [(row["method"], row["verified"]) for row in document["rows"]] == [("TextGraph", True)]


def test_the_submission_page_shows_the_badge_and_how_it_was_verified(client, verified_board):
    submission = Submission.objects.get(method_name="TextGraph")
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert 'class="badge badge-verified"' in html
    assert REPRODUCED in html and 'href="https://example.org/reproduction"' in html
    other = Submission.objects.get(method_name="GraphOnly")
    assert "badge-verified" not in client.get(f"/submissions/{other.pk}/").content.decode()


def test_a_verified_badge_must_say_how(verified_board):
    from django.db import IntegrityError, transaction

    with transaction.atomic(), pytest.raises(IntegrityError):
        Submission.objects.filter(method_name="GraphOnly").update(is_verified=True)


def test_staff_set_the_badge_and_its_note_in_the_admin(client, verified_board, django_user_model):
    from django.test import Client

    django_user_model.objects.create_superuser("root", "root@example.org", PASSWORD)
    staff = Client()
    staff.login(username="root", password=PASSWORD)
    submission = Submission.objects.get(method_name="GraphOnly")
    page = staff.get(f"/admin/submissions/submission/{submission.pk}/change/")
    assert page.status_code == 200
    assert b'name="verification_note"' in page.content and b'name="is_verified"' in page.content


def test_a_board_that_requires_a_code_url_refuses_a_submission_without_one(client, standing, alice):
    phase = with_truth("mudi", mudi_truth_csv())
    phase.requires_code_url = True
    phase.save(update_fields=["requires_code_url"])
    client.login(username="alice", password=PASSWORD)
    page = client.get("/tasks/mudi/submit/").content.decode()
    assert "Required on this board" in page
    response = client.post(
        "/tasks/mudi/submit/",
        {"method_name": "NoCode", "visibility": "public", "uses_external_data": "no"},
    )
    assert response.status_code == 400  # a form error
    assert '<div class="field has-errors" id="field-code_url">' in response.content.decode()
    assert not Submission.objects.filter(method_name="NoCode").exists()
    scored(phase, alice.personal_team, "Listed", mudi_metrics(0.7))
    assert 'id="requires-code"' in client.get("/tasks/mudi/").content.decode()
