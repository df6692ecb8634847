"""Issue 23, point 3: each task's submit page states its file rules, and a refusal says how to fix the file."""

from __future__ import annotations

import pytest

from tests.submissions.helpers import as_post_file, mudi_prediction_csv, post_data

# It saves or reads files through the site's storages (CI runs it against a bucket too).
pytestmark = pytest.mark.storage


def test_the_mudi_submit_page_says_every_pair_and_what_to_write_for_one_not_scored(client, alice, mudi_phase):
    client.force_login(alice)
    html = client.get("/tasks/mudi/submit/").content.decode()
    assert 'id="format-rules"' in html
    assert "Give a class for every test pair" in html
    assert "write <code>No Interaction</code> as its class" in html


def test_a_keyed_task_states_one_prediction_per_key(client, alice, mudi_phase):
    client.force_login(alice)
    html = client.get("/tasks/imdrug-hiv-random/submit/").content.decode()
    assert "Give one prediction for every key of the test inputs file" in html
    assert "No Interaction" not in html


def test_a_mudi_file_missing_pairs_is_refused_with_how_to_fix_it(client, alice, mudi_phase, sent):
    client.force_login(alice)
    lines = mudi_prediction_csv().decode().splitlines(keepends=True)
    data = post_data(alice.personal_team)
    data["file"] = as_post_file("".join(lines[:-2]).encode())
    response = client.post("/tasks/mudi/submit/", data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "The predictions miss 2 of" in html
    assert "for a pair you do not want to score, write &quot;No Interaction&quot; as its class" in html
