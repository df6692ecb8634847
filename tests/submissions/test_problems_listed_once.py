"""An invalid file's problems on the site: all of them, each once, as the command line lists them.

The large generated MUDI file (tests/scoring/corpus.py) through the submit
form (checked at once) and through the worker (the submission page and status.json).
"""

from __future__ import annotations

import html
import json

import pytest

from leaderboard.submissions import tasks
from tests.scoring.corpus import large_mudi_with_a_typo_and_a_ragged_line
from tests.submissions.helpers import as_post_file, make_submission, post_data, standing_phase_with_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def large_case(db):
    truth, prediction, expected = large_mudi_with_a_typo_and_a_ragged_line()
    phase = standing_phase_with_truth("mudi", truth.encode())
    return phase, prediction.encode(), expected


def _count(page: str, message: str) -> int:
    return html.unescape(page).count(message)


def test_the_submit_form_lists_every_problem_of_a_large_file_once(client, alice, large_case, sent):
    _, prediction, expected = large_case
    client.force_login(alice)
    data = post_data(alice.personal_team, file=as_post_file(prediction))
    response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 400
    page = response.content.decode()
    assert "2 problems found." in page
    for _, message in expected:
        assert _count(page, message) == 1, message


def test_the_submission_page_lists_every_problem_once_after_the_worker_checked_it(client, alice, large_case, sent):
    phase, prediction, expected = large_case
    submission = make_submission(phase, alice.personal_team, alice, prediction)
    assert tasks.score_submission.apply(args=[str(submission.pk)]).get() == "invalid"
    client.force_login(alice)
    page = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "2 problems found." in page
    for _, message in expected:
        assert _count(page, message) == 1, message
    status = json.loads(client.get(f"/submissions/{submission.pk}/status.json").content)
    assert [(p["line"], p["message"]) for p in status["problems"]] == expected
