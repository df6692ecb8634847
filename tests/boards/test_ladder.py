"""Ladder mode (Blum and Hardt 2015): a team's shown public score moves only for a gain above the threshold."""

from __future__ import annotations

import datetime as dt

import pytest

from leaderboard.boards.placement import Candidate, ladder_choice
from leaderboard.boards.spec import direction_spec
from leaderboard.challenges.models import Phase
from tests.challenges.split_phase import PUBLIC_ROWS, make_split_phase, submit_scored
from tests.conftest import PASSWORD

T0 = dt.datetime(2027, 1, 1, tzinfo=dt.UTC)


def candidate(i: int, value: float | None) -> Candidate:
    values = {} if value is None else {"aware/macro/f1": value}
    return Candidate(str(i), 1, "Lab", "GNN", T0 + dt.timedelta(minutes=i), True, values)


@pytest.fixture
def spec():
    import scoring

    return direction_spec(scoring.get_task("mudi"), "aware")


def test_a_gain_not_above_the_threshold_keeps_the_shown_submission(spec):
    shown = ladder_choice(spec, [candidate(0, 0.70), candidate(1, 0.705), candidate(2, 0.709)], 0.01)
    assert shown.id == "0"


def test_a_gain_above_the_threshold_moves_the_shown_submission(spec):
    shown = ladder_choice(spec, [candidate(0, 0.70), candidate(1, 0.72), candidate(2, 0.725)], 0.01)
    assert shown.id == "1"


def test_gains_are_measured_from_the_shown_score_not_from_the_last_one(spec):
    # 0.705 and 0.709 are each within 0.01 of the shown 0.70; 0.711 is not.
    values = [0.70, 0.705, 0.709, 0.711]
    shown = ladder_choice(spec, [candidate(i, v) for i, v in enumerate(values)], 0.01)
    assert shown.id == "3"


def test_a_worse_submission_never_shows(spec):
    assert ladder_choice(spec, [candidate(0, 0.70), candidate(1, 0.50)], 0.0).id == "0"


def test_without_values_the_first_submission_is_shown_unranked(spec):
    assert ladder_choice(spec, [candidate(1, None), candidate(0, None)], 0.01).id == "0"
    assert ladder_choice(spec, [candidate(0, None), candidate(1, 0.5)], 0.01).id == "1"


@pytest.fixture
def ladder_phase(olga):
    return make_split_phase(olga, ladder_threshold=0.5)


def shown_submission(phase):
    from leaderboard.boards.models import Board, BoardRow

    board = Board.objects.get(phase=phase, part="public", direction="aware")
    return [str(s) for s in BoardRow.objects.filter(board=board).values_list("submission_id", flat=True)]


@pytest.mark.storage
def test_the_board_keeps_the_first_score_for_a_small_gain_in_both_update_paths(ladder_phase, alice):
    from leaderboard.boards.recompute import recompute_phase

    team = alice.personal_team
    first = submit_scored(ladder_phase, team, alice, {PUBLIC_ROWS[0]}, minutes=20)
    better = submit_scored(ladder_phase, team, alice, set(), minutes=10)
    assert better.primary_value > first.primary_value
    assert better.primary_value - first.primary_value <= 0.5
    assert shown_submission(ladder_phase) == [str(first.pk)]  # the incremental update
    recompute_phase(ladder_phase)
    assert shown_submission(ladder_phase) == [str(first.pk)]  # the rebuild agrees


@pytest.mark.storage
def test_the_board_moves_for_a_gain_above_the_threshold(ladder_phase, alice):
    Phase.objects.filter(pk=ladder_phase.pk).update(ladder_threshold=0.01)
    ladder_phase.refresh_from_db()
    team = alice.personal_team
    submit_scored(ladder_phase, team, alice, {PUBLIC_ROWS[0]}, minutes=20)
    better = submit_scored(ladder_phase, team, alice, set(), minutes=10)
    assert shown_submission(ladder_phase) == [str(better.pk)]


@pytest.mark.storage
def test_the_board_page_explains_the_ladder(client, ladder_phase, alice):
    submit_scored(ladder_phase, alice.personal_team, alice, set())
    page = client.get("/challenges/mudi-2027/test/board/").content.decode()
    assert "Ladder mode" in page and "Blum and Hardt, 2015" in page
    assert "by more than <strong>0.5</strong>" in page


@pytest.mark.storage
def test_the_submission_page_says_why_a_small_gain_is_not_on_the_board(client, ladder_phase, alice):
    team = alice.personal_team
    submit_scored(ladder_phase, team, alice, {PUBLIC_ROWS[0]}, minutes=20)
    better = submit_scored(ladder_phase, team, alice, set(), minutes=10)
    client.login(username="alice", password=PASSWORD)
    page = client.get(f"/submissions/{better.pk}/").content.decode()
    assert "the Ladder shows a new score only when it beats the shown one" in page
