"""Issue 23 in a real browser: the team rule before it bites, the fixing message, the AUPR caveat."""

from __future__ import annotations

import re

import pytest

from tests.boards.conftest import pair_metrics, phase_for, scored
from tests.conftest import PASSWORD
from tests.submissions.helpers import make_submission, mudi_prediction_csv, mudi_truth_csv, standing_phase_with_truth

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.storage]


def log_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.form button[type=submit], form.form input[type=submit]")
    page.wait_for_url(re.compile(r"/accounts/profile/"))


def test_the_first_submission_names_the_team_it_binds_and_follows_the_choice(page, no_favicon, alice, alice_lab):
    standing_phase_with_truth("mudi", mudi_truth_csv())
    log_in(page, "alice")
    page.goto("/tasks/mudi/submit/")
    notice = page.locator("#team-binding")
    assert alice.personal_team.name in notice.inner_text()
    assert "final" in notice.inner_text()
    page.select_option("#id_team", str(alice_lab.pk))
    assert page.locator("#binding-team").inner_text() == alice_lab.name


def test_after_the_first_submission_another_team_is_disabled_with_the_reason(page, no_favicon, alice, alice_lab):
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    make_submission(phase, alice.personal_team, alice)
    log_in(page, "alice")
    page.goto("/tasks/mudi/submit/")
    lab = page.locator(f"#id_team option[value='{alice_lab.pk}']")
    assert lab.is_disabled()
    assert f"you submit to this task through {alice.personal_team.name}" in lab.inner_text()
    assert page.locator("#team-binding").count() == 0


def test_a_mudi_file_missing_pairs_gets_the_fixing_message(page, no_favicon, alice):
    standing_phase_with_truth("mudi", mudi_truth_csv())
    log_in(page, "alice")
    page.goto("/tasks/mudi/submit/")
    assert "No Interaction" in page.locator("#format-rules").inner_text()
    lines = mudi_prediction_csv().decode().splitlines(keepends=True)
    page.set_input_files(
        "#id_file", files=[{"name": "p.csv", "mimeType": "text/csv", "buffer": "".join(lines[:-1]).encode()}]
    )
    page.fill("#id_method_name", "Partial")
    page.check("input[name=declare_modalities][value=graph]")
    page.click("#submission-form button[type=submit]")
    text = page.locator("body").inner_text()
    assert "The predictions miss 1 of" in text
    assert 'for a pair you do not want to score, write "No Interaction" as its class' in text


def test_a_chemicalx_board_explains_its_aupr_beside_the_column(page, no_favicon, alice_lab):
    from leaderboard.challenges.services import sync_standing_challenges

    sync_standing_challenges()
    scored(phase_for("chemicalx-drugcomb"), alice_lab, "Constant", pair_metrics(0.5, aupr=0.679))
    page.goto("/tasks/chemicalx-drugcomb/")
    assert page.locator("#aupr-caveat").is_visible()
    assert "(1 + prevalence) / 2" in page.locator("#aupr-caveat").inner_text()
    page.locator("th a.metric-def[aria-label='How AUPR is computed']").click()
    page.wait_for_url(re.compile(r"/docs/metrics/#aupr-and-constant-scores$"))
    assert page.locator("#aupr-and-constant-scores").is_visible()
