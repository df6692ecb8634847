"""Organized phases' boards: /challenges/<slug>/<phase>/board/ (public), .../board/private/ after the reveal."""

from __future__ import annotations

import csv
import io
import json

import pytest

from leaderboard.boards.reveal import reveal_phase
from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission
from tests.challenges.split_phase import PRIVATE_ROWS, PUBLIC_ROWS, make_split_phase, submit_scored
from tests.conftest import PASSWORD

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

BOARD = "/challenges/mudi-2027/test/board/"
PRIVATE = "/challenges/mudi-2027/test/board/private/"


@pytest.fixture
def phase(olga):
    return make_split_phase(olga)


@pytest.fixture
def two(phase, alice, charlie):
    a = submit_scored(phase, alice.personal_team, alice, {PRIVATE_ROWS[0], PRIVATE_ROWS[1]}, method="Alpha")
    c = submit_scored(phase, charlie.personal_team, charlie, {PUBLIC_ROWS[0]}, method="Gamma")
    return a, c


def test_an_organized_phase_links_to_its_own_board(phase):
    assert phase.get_absolute_url() == BOARD


def test_the_public_board_shows_the_public_scores(client, two):
    a, c = two
    page = client.get(BOARD).content.decode()
    assert "Alpha" in page and "Gamma" in page
    assert f"{a.primary_value:.4f}" in page
    assert "Ranked on the <strong>public</strong> part of the test rows only." in page


def test_the_public_board_exports_as_csv_and_json(client, two):
    rows = list(csv.DictReader(io.StringIO(b"".join(client.get(BOARD + "leaderboard.csv").streaming_content).decode())))
    assert {r["method"] for r in rows} == {"Alpha", "Gamma"}
    data = json.loads(b"".join(client.get(BOARD + "leaderboard.json").streaming_content))
    assert data["part"] == "public" and len(data["rows"]) == 2


def test_a_hidden_submission_is_on_no_board(client, two, phase):
    from leaderboard.boards.recompute import update_board

    a, _ = two
    Submission.objects.filter(pk=a.pk).update(is_hidden=True, hidden_reason="copied")
    update_board(phase, a.pk)
    assert "Alpha" not in client.get(BOARD).content.decode()


def test_a_hidden_public_board_says_when_it_opens_and_shows_organizers_the_rows(client, two, phase):
    Phase.objects.filter(pk=phase.pk).update(public_board=Phase.PublicBoard.HIDDEN)
    page = client.get(BOARD).content.decode()
    assert "hidden until the end: it opens at the reveal" in page
    assert "Alpha" not in page and "Gamma" not in page
    assert client.get(BOARD + "leaderboard.csv").status_code == 404
    assert client.get(BOARD + "leaderboard.json").status_code == 404
    client.login(username="olga", password=PASSWORD)
    page = client.get(BOARD).content.decode()
    assert "Alpha" in page and "you see it as an organizer" in page


def test_the_private_board_is_not_there_before_the_reveal(client, two, olga):
    assert client.get(PRIVATE).status_code == 404
    assert client.get(PRIVATE + "leaderboard.csv").status_code == 404
    client.login(username="olga", password=PASSWORD)
    assert client.get(PRIVATE).status_code == 404


def test_after_the_reveal_the_private_board_shows_private_scores_the_shift_and_a_chart(client, two, phase):
    a, c = two
    reveal_phase(phase)
    a.refresh_from_db()
    page = client.get(PRIVATE).content.decode()
    assert f"{a.private_primary_value:.4f}" in page
    assert "Team's public rank" in page and "Shift" in page and "This submission's public score" in page
    assert "Public vs private" in page
    assert 'id="private-board-link"' in client.get(BOARD).content.decode()


def test_the_private_board_exports_carry_the_public_rank_and_the_shift(client, two, phase):
    a, c = two
    reveal_phase(phase)
    rows = list(
        csv.DictReader(io.StringIO(b"".join(client.get(PRIVATE + "leaderboard.csv").streaming_content).decode()))
    )
    by_method = {r["method"]: r for r in rows}
    # Alpha leads in public (its mistakes are private) and Gamma in private: they swap.
    assert by_method["Alpha"]["public_rank"] == "1" and by_method["Alpha"]["rank"] == "2"
    assert by_method["Alpha"]["shift"] == "-1" and by_method["Gamma"]["shift"] == "1"
    data = json.loads(b"".join(client.get(PRIVATE + "leaderboard.json").streaming_content))
    assert data["part"] == "private" and "shift" in data["columns"]


def test_an_unpublished_challenges_boards_are_404_for_others(client, two, phase):
    phase.challenge.is_published = False
    phase.challenge.save(update_fields=["is_published"])
    assert client.get(BOARD).status_code == 404
    client.login(username="alice", password=PASSWORD)
    assert client.get(BOARD).status_code == 404


def test_an_unknown_phase_is_404(client, phase):
    assert client.get("/challenges/mudi-2027/nope/board/").status_code == 404


def test_the_standing_board_keeps_its_address(client, db):
    from leaderboard.challenges.services import sync_standing_challenges

    sync_standing_challenges()
    assert client.get("/tasks/mudi/").status_code == 200
    assert Phase.objects.standing().get(task_slug="mudi").get_absolute_url() == "/tasks/mudi/"
