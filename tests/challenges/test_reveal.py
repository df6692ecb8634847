"""The reveal: finals resolved, private boards built, submissions closed, audited; a second run changes nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command
from django.utils import timezone

from leaderboard.boards.models import Board, BoardRow
from leaderboard.boards.reveal import (
    RevealRefused,
    due_phases,
    postpone_reveal,
    reveal_due_phases,
    reveal_now,
    reveal_phase,
)
from leaderboard.challenges.models import AuditEntry, Phase
from leaderboard.submissions.finals import set_final
from leaderboard.submissions.models import Submission
from tests.challenges.split_phase import PRIVATE_ROWS, PUBLIC_ROWS, make_split_phase, submit_scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def phase(olga):
    return make_split_phase(olga)


@pytest.fixture
def entries(phase, alice, alice_lab, charlie):
    """Alice Lab: three submissions, its best public one is worst in private; Charlie: two, none chosen."""
    lab = {
        "public-best": submit_scored(
            phase, alice_lab, alice, {PRIVATE_ROWS[0], PRIVATE_ROWS[1], PRIVATE_ROWS[2]}, method="A", minutes=50
        ),  # fmt: skip
        "middle": submit_scored(phase, alice_lab, alice, {PUBLIC_ROWS[0], PRIVATE_ROWS[0]}, method="B", minutes=40),
        "private-best": submit_scored(
            phase, alice_lab, alice, {PUBLIC_ROWS[0], PUBLIC_ROWS[1]}, method="C", minutes=30
        ),  # fmt: skip
    }
    team = charlie.personal_team
    solo = {
        "good": submit_scored(phase, team, charlie, {PUBLIC_ROWS[2], PRIVATE_ROWS[3]}, method="X", minutes=20),
        "bad": submit_scored(
            phase, team, charlie, {PUBLIC_ROWS[1], PUBLIC_ROWS[2], PUBLIC_ROWS[3]}, method="Y", minutes=10
        ),  # fmt: skip
    }
    return lab, solo


def private_rows(phase, direction="aware"):
    board = Board.objects.get(phase=phase, part="private", direction=direction)
    return list(BoardRow.objects.filter(board=board).order_by("quality", "tail"))


def test_the_reveal_uses_chosen_finals_and_the_best_public_ones_of_teams_that_chose_none(phase, entries, alice):
    lab, solo = entries
    set_final(lab["private-best"], True, alice)
    outcome = reveal_phase(phase)
    assert outcome.revealed and outcome.n_teams == 2 and outcome.n_final == 3
    finals = dict(Submission.objects.filter(phase=phase).values_list("pk", "final_by"))
    assert finals[lab["private-best"].pk] == "chosen"
    assert finals[lab["public-best"].pk] == finals[lab["middle"].pk] == ""
    # Charlie chose none: his two best by public score (both of his) are used.
    assert finals[solo["good"].pk] == finals[solo["bad"].pk] == "auto"


def test_without_any_choice_each_team_gets_its_n_best_by_public_score(phase, entries):
    lab, solo = entries
    reveal_phase(phase)
    finals = dict(Submission.objects.filter(phase=phase).values_list("pk", "final_by"))
    assert finals[lab["public-best"].pk] == finals[lab["middle"].pk] == "auto"
    assert finals[lab["private-best"].pk] == ""  # third by public score: not final


def test_the_private_board_ranks_final_submissions_on_private_values_one_row_per_team(phase, entries, alice):
    lab, solo = entries
    set_final(lab["private-best"], True, alice)
    set_final(lab["public-best"], True, alice)
    reveal_phase(phase)
    rows = private_rows(phase)
    assert [r.team_id for r in rows].count(lab["private-best"].team_id) == 1
    lab_row = next(r for r in rows if r.team_id == lab["private-best"].team_id)
    assert str(lab_row.submission_id) == str(lab["private-best"].pk)  # the better of its finals in private
    lab["private-best"].refresh_from_db()
    assert lab_row.value == pytest.approx(lab["private-best"].private_primary_value)
    assert lab_row.public_value == pytest.approx(lab["private-best"].primary_value)
    assert lab_row.public_rank is not None
    assert all(r.is_public for r in rows)


def test_the_private_board_keeps_each_teams_public_rank_for_the_shake_up(phase, entries):
    lab, solo = entries
    reveal_phase(phase)
    public = Board.objects.get(phase=phase, part="public", direction="aware")
    best_public_team = BoardRow.objects.filter(board=public).order_by("quality", "tail").first().team_id
    rows = {r.team_id: r for r in private_rows(phase)}
    assert rows[best_public_team].public_rank == 1


def test_revealing_twice_changes_nothing_the_second_time(phase, entries, olga):
    reveal_phase(phase, by=olga)
    phase.refresh_from_db()
    board = Board.objects.get(phase=phase, part="private", direction="aware")
    before = (
        phase.revealed_at,
        phase.ends_at,
        board.version,
        sorted(Submission.objects.filter(phase=phase).values_list("pk", "final_by")),
        sorted(BoardRow.objects.filter(board=board).values_list("pk", "submission_id", "quality")),
        AuditEntry.objects.count(),
    )
    again = reveal_phase(phase, by=olga, now=timezone.now() + dt.timedelta(hours=1))
    phase.refresh_from_db()
    board.refresh_from_db()
    after = (
        phase.revealed_at,
        phase.ends_at,
        board.version,
        sorted(Submission.objects.filter(phase=phase).values_list("pk", "final_by")),
        sorted(BoardRow.objects.filter(board=board).values_list("pk", "submission_id", "quality")),
        AuditEntry.objects.count(),
    )
    assert not again.revealed
    assert after == before


def test_revealing_twice_changes_nothing_on_postgresql_too(postgres, phase, entries, olga):
    test_revealing_twice_changes_nothing_the_second_time(phase, entries, olga)


def test_an_early_reveal_closes_submissions_and_is_audited(phase, entries, olga):
    assert phase.is_open
    reveal_now(phase, olga)
    phase.refresh_from_db()
    assert not phase.is_open and phase.revealed_at is not None and phase.ends_at <= timezone.now()
    entry = AuditEntry.objects.get(action="phase.reveal")
    assert entry.actor == olga and entry.target == "phase test" and entry.details["closed_early"] is True
    with pytest.raises(RevealRefused, match="already revealed"):
        reveal_now(phase, olga)


def test_beat_reveals_due_phases_only(phase, olga):
    later = make_split_phase(olga, phase_slug="later")
    Phase.objects.filter(pk=phase.pk).update(ends_at=timezone.now() - dt.timedelta(minutes=1))
    assert list(due_phases()) == [Phase.objects.get(pk=phase.pk)]
    assert reveal_due_phases() == 1
    assert reveal_due_phases() == 0
    assert Phase.objects.get(pk=phase.pk).revealed_at is not None
    assert Phase.objects.get(pk=later.pk).revealed_at is None
    assert AuditEntry.objects.get(action="phase.reveal").actor is None  # the scheduled reveal


def test_a_postponed_reveal_waits_for_its_new_time(phase, olga):
    Phase.objects.filter(pk=phase.pk).update(ends_at=timezone.now() + dt.timedelta(minutes=1))
    phase.refresh_from_db()
    postpone_reveal(phase, timezone.now() + dt.timedelta(days=3), olga, "labels are being re-checked")
    Phase.objects.filter(pk=phase.pk).update(ends_at=timezone.now() - dt.timedelta(minutes=1))
    assert not due_phases().exists()
    entry = AuditEntry.objects.get(action="phase.postpone_reveal")
    assert entry.reason == "labels are being re-checked"


@pytest.mark.parametrize(
    ("until", "message"),
    [(-dt.timedelta(hours=1), "in the future"), (dt.timedelta(days=3), "before the phase ends")],
)
def test_a_postponement_says_what_is_wrong(phase, olga, until, message):
    with pytest.raises(RevealRefused, match=message):
        postpone_reveal(phase, timezone.now() + until, olga)


def test_a_revealed_phase_cannot_be_postponed(phase, olga):
    reveal_phase(phase)
    phase.refresh_from_db()
    with pytest.raises(RevealRefused, match="cannot be undone"):
        postpone_reveal(phase, timezone.now() + dt.timedelta(days=30), olga)


def test_the_command_reveals_and_says_so_then_changes_nothing(phase, entries, capsys):
    call_command("reveal_phase", "mudi-2027", "test")
    assert "revealed mudi-2027/test: 4 final submissions of 2 teams" in capsys.readouterr().out
    call_command("reveal_phase", "mudi-2027", "test")
    assert "already revealed" in capsys.readouterr().out


def test_the_command_names_an_unknown_phase(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No phase 'nope' in challenge 'mudi-2027'"):
        call_command("reveal_phase", "mudi-2027", "nope")


def test_a_rerun_after_the_reveal_rebuilds_the_private_board(phase, entries):
    from leaderboard.boards.recompute import recompute_phase

    reveal_phase(phase)
    board = Board.objects.get(phase=phase, part="private", direction="aware")
    version = board.version
    recompute_phase(Phase.objects.get(pk=phase.pk))
    board.refresh_from_db()
    assert board.version != version and BoardRow.objects.filter(board=board).count() == 2


def test_beat_sends_the_reveal_every_minute():
    from leaderboard.celery import app

    entry = app.conf.beat_schedule["boards.reveal_due_phases"]
    assert entry["task"] == "boards.reveal_due_phases" and entry["schedule"] == 60.0
    app.loader.import_default_modules()
    assert "boards.reveal_due_phases" in app.tasks


def test_right_after_an_early_reveal_the_challenge_is_between_phases_not_upcoming(client, phase, entries, olga):
    later = Phase.objects.create(
        challenge=phase.challenge,
        slug="final",
        title="Final",
        task_slug="mudi",
        order=5,
        starts_at=phase.ends_at + dt.timedelta(days=1),
        ends_at=phase.ends_at + dt.timedelta(days=9),
    )
    reveal_now(phase, olga)
    challenge = phase.challenge
    assert challenge.state() == "between"
    page = client.get(f"/challenges/{challenge.slug}/").content.decode()
    assert "between phases" in page and 'class="badge state-upcoming">upcoming</span>\n' not in page
    assert f'id="phase-{phase.slug}"' in page and "private board revealed" in page
    listing = client.get("/challenges/").content.decode()
    open_section = listing.split('<section id="open">')[1].split("</section>")[0]
    assert challenge.title in open_section
    assert later.state() == "upcoming"
