"""A whole organized challenge in Chromium, from creation to the revealed private board.

A host creates a challenge with two phases in the browser, uploads the truth and publishes it;
a participant registers, submits (a real worker scores it) and selects a final submission; a
second team enters too. The test phase's end is moved into the past, the scheduled reveal runs,
and the private board shows each entry's public rank and its shift.
"""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from leaderboard.boards.models import BoardRow
from leaderboard.boards.reveal import reveal_due_phases
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.registration import register
from leaderboard.submissions.models import Submission
from leaderboard.submissions.runs import score_submission
from scoring.splits import unit_fraction
from tests.browser.test_organize_browser import add_phase, log_in, upload_truth, utc
from tests.conftest import wait_for
from tests.submissions.helpers import MUDI_TRUTH_ROWS, make_submission, mudi_truth_csv

pytestmark = [pytest.mark.storage, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FRACTION, SEED = 0.3, 7  # the split add_phase(..., fraction="0.3") asks for (seed 7)


def is_public(a: str, b: str) -> bool:
    """The side of a gold pair under the phase's hash split (scoring's own rule)."""
    return unit_fraction(tuple(sorted((a, b))), SEED) < FRACTION


def prediction(wrong_rows: list[int]) -> bytes:
    """Every gold pair, the listed ones with a wrong class."""
    lines = ["Drug1,Interaction,Drug2"]
    for i, (a, label, b) in enumerate(MUDI_TRUTH_ROWS):
        if i in wrong_rows:
            label = "Antagonism" if label == "Synergism" else "Synergism"
        lines.append(f"Compound::{a},{label},Compound::{b}")
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def host(transactional_db):
    from django.contrib.auth.models import Permission

    from leaderboard.accounts.services import create_user
    from tests.conftest import PASSWORD

    hana = create_user("hana", "hana@example.org", PASSWORD, email_verified=True)
    hana.user_permissions.add(Permission.objects.get(codename="host_challenges"))
    return hana


def test_a_challenge_runs_from_creation_to_a_revealed_private_board(browser, live_server, host, alice, charlie,
                                                                     worker_factory, tmp_path):  # fmt: skip
    public_rows = [i for i, (a, _, b) in enumerate(MUDI_TRUTH_ROWS) if is_public(a, b)]
    private_rows = [i for i in range(len(MUDI_TRUTH_ROWS)) if i not in public_rows]
    assert public_rows and len(private_rows) >= 2
    worker_factory()

    def new_page():
        context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
        pg = context.new_page()
        pg.set_default_timeout(20_000)
        return pg

    # The host: create, two phases (a finished warm-up and an open split test phase), truth, publish.
    organizer = new_page()
    (tmp_path / "truth.csv").write_bytes(mudi_truth_csv())
    log_in(organizer, "hana")
    organizer.get_by_role("link", name="create a challenge").click()
    organizer.fill("input[name=title]", "DDI end to end 2027")
    organizer.fill("input[name=slug]", "e2e-2027")
    organizer.get_by_role("button", name="Create the challenge").click()
    organizer.wait_for_url("**/challenges/e2e-2027/manage/")
    add_phase(organizer, "Warm-up", "warmup", utc(-5), utc(-2))
    upload_truth(organizer, tmp_path / "truth.csv")
    add_phase(organizer, "Test", "test", utc(-1), utc(10), fraction="0.3")
    organizer.get_by_label("Teams choose their final submissions").check()
    organizer.get_by_role("button", name="Save the phase").click()
    organizer.wait_for_load_state()
    upload_truth(organizer, tmp_path / "truth.csv")
    organizer.get_by_role("link", name="Overview").click()
    organizer.get_by_label("Published").check()
    organizer.get_by_role("button", name="Save", exact=True).click()
    organizer.wait_for_url("**/challenges/e2e-2027/manage/")
    challenge = Challenge.objects.get(slug="e2e-2027")
    test_phase = Phase.objects.get(challenge=challenge, slug="test")
    assert challenge.is_published and test_phase.has_truth and test_phase.final_selection_allowed

    # The participant: register, submit a file that is perfect on the public rows only.
    participant = new_page()
    log_in(participant, "alice")
    participant.goto("/challenges/e2e-2027/")
    participant.get_by_role("link", name="Register").click()
    participant.get_by_role("button", name="Register").click()
    participant.wait_for_url("**/challenges/e2e-2027/")
    participant.locator("#phase-test").get_by_role("link", name="Submit").click()
    (tmp_path / "alice.csv").write_bytes(prediction(private_rows[:2]))
    participant.set_input_files("input[name=file]", str(tmp_path / "alice.csv"))
    participant.fill("input[name=method_name]", "PublicFitter")
    participant.get_by_label("graph").check()
    participant.locator("#submission-form").get_by_role("button", name="Submit").click()
    participant.wait_for_url(re.compile(r".*/submissions/[0-9a-f-]+/$"))
    mine = Submission.objects.get(team=alice.personal_team)
    wait_for(lambda: Submission.objects.get(pk=mine.pk).status == "scored", timeout=90, message="the worker's score")

    # A second team: one wrong public pair, every private pair right (scored in this process).
    register(challenge, charlie.personal_team, charlie, accept_terms=True)
    other = make_submission(test_phase, charlie.personal_team, charlie, prediction(public_rows[:1]),
                            method_name="Steady")  # fmt: skip
    score_submission.apply(args=[str(other.pk)])
    wait_for(lambda: BoardRow.objects.filter(board__phase=test_phase, board__part="public").count() >= 2,
             timeout=60, message="both entries on the public board")  # fmt: skip

    # Final selection on the team's page for the phase; the other team leaves it to Kaggle's rule.
    participant.goto("/challenges/e2e-2027/test/my/")
    participant.get_by_role("button", name="Select PublicFitter as final").click()
    participant.wait_for_load_state()
    assert Submission.objects.get(pk=mine.pk).selected_final

    # The deadline passes; the scheduled reveal publishes the private board.
    Phase.objects.filter(pk=test_phase.pk).update(ends_at=timezone.now() - timezone.timedelta(minutes=1))
    assert reveal_due_phases() == 2  # the warm-up (ended days ago) and the test phase
    assert Phase.objects.get(pk=test_phase.pk).revealed_at is not None
    participant.goto("/challenges/e2e-2027/test/board/private/")
    rows = participant.locator("#leaderboard tbody tr")
    text = participant.locator("#leaderboard").inner_text()
    assert "Team's public rank" in text and "Shift" in text
    first, second = rows.nth(0).inner_text(), rows.nth(1).inner_text()
    assert "Steady" in first and "PublicFitter" in second  # the private rows decide
    assert "+1" in rows.nth(0).locator("td.shift").inner_text()
    assert Submission.objects.get(pk=mine.pk).final_by == "chosen"
    assert Submission.objects.get(pk=other.pk).final_by == "auto"
