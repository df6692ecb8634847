"""Pinned board views (``?as_of=``): the board as it stood at a moment, its digest, its notes and its Cite panel.

The property test drives random histories of scores, hides, visibility changes,
re-scores and re-runs through the worker's board update, rebuilds the board from
the database after each step (what it held at that moment), and checks at the
end that the view pinned to each moment equals that rebuild, row for row, and
that two moments' digests are equal exactly when their rows are.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboard.boards import pinned
from leaderboard.boards.models import Board, BoardRowHistory
from leaderboard.boards.query import Controls, ranked_rows
from leaderboard.boards.recompute import recompute_phase, update_board
from leaderboard.submissions.models import Submission
from tests.boards.conftest import pair_metrics, phase_for, scored
from tests.boards.test_board_incremental import apply, hide_op, rerun_op, rescore_op, score_op

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

START = dt.datetime(2026, 6, 1, 12, tzinfo=dt.UTC)
moderate_op = st.tuples(st.just("hide"), st.integers(0, 20))
HISTORY = st.lists(st.one_of(score_op, score_op, hide_op, moderate_op, rescore_op, rerun_op), min_size=1, max_size=10)
COMPARED = (*(c for c in pinned.HISTORY_COLUMNS if c != "sort_keys"), "rank", "position", "sort_rank")


class Clock:
    """``timezone.now`` under the test's control: every write of one step happens at the same moment."""

    def __init__(self, start: dt.datetime) -> None:
        self.now = start

    def __call__(self) -> dt.datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    found = Clock(START)
    monkeypatch.setattr(timezone, "now", found)
    return found


def views(task_slug: str) -> list[Controls]:
    """The default view and a column sort, reversed (the pinned view orders rows like the board query)."""
    return [Controls(direction="default"), Controls(direction="default", sort="aupr", reverse=True)]


def live(board: Board, controls: Controls) -> list[tuple]:
    return [tuple(row[c] for c in COMPARED) for row in ranked_rows(board, controls, [])]


def pinned_at(board: Board, controls: Controls, moment: dt.datetime) -> list[tuple]:
    return [tuple(row[c] for c in COMPARED) for row in pinned.pinned_rows(board, controls, moment)]


def step(phase, teams, op, subs: list) -> Submission | None:
    if op[0] == "hide":  # a moderator hides (or shows again) a submission
        if not subs:
            return None
        sub = subs[op[1] % len(subs)]
        Submission.objects.filter(pk=sub.pk).update(is_hidden=not Submission.objects.get(pk=sub.pk).is_hidden)
        return sub
    return apply(phase, teams, op, subs)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=HISTORY)
def test_a_pinned_view_equals_the_board_rebuilt_at_that_moment(standing, alice_lab, charlie, clock, ops):
    task_slug = "chemicalx-twosides"
    phase = phase_for(task_slug)
    teams = [alice_lab, charlie.personal_team]
    with transaction.atomic():
        clock.now = START
        subs: list = []
        moments = []
        for op in ops:
            clock.now += dt.timedelta(minutes=1)
            changed = step(phase, teams, op, subs)
            if changed is None:
                continue
            update_board(phase, changed.pk)  # what the worker runs after the change
            board = Board.objects.get(phase=phase)
            moments.append((clock.now, {c: live(board, c) for c in views(task_slug)}))
            # The board rebuilt from the database a moment later: the same rows, and nothing for the
            # history to record (the update, which compares only the rows it rewrote, missed nothing).
            history = list(BoardRowHistory.objects.order_by("pk").values_list("pk", "valid_to"))
            clock.now += dt.timedelta(seconds=1)
            recompute_phase(phase)
            assert list(BoardRowHistory.objects.order_by("pk").values_list("pk", "valid_to")) == history, op
            assert {c: live(board, c) for c in views(task_slug)} == moments[-1][1]
        clock.now += dt.timedelta(minutes=1)
        board = Board.objects.filter(phase=phase).first()
        for moment, expected in moments:
            for controls, rows in expected.items():
                assert pinned_at(board, controls, moment) == rows, (moment, controls)
                # Until the next write, the board stood still.
                assert pinned_at(board, controls, moment + dt.timedelta(seconds=30)) == rows
        default = views(task_slug)[0]
        digests = [pinned.digest(pinned.pinned_rows(board, default, m)) for m, _ in moments]
        for (_, a), da in zip(moments, digests, strict=True):
            for (_, b), db_ in zip(moments, digests, strict=True):
                assert (da == db_) == (a[default] == b[default])
        transaction.set_rollback(True)


def test_a_view_pinned_before_the_first_row_is_empty_and_its_digest_is_that_of_no_rows(standing, alice_lab, clock):
    phase = phase_for("chemicalx-twosides")
    clock.now = START + dt.timedelta(hours=1)
    scored(phase, alice_lab, "First", pair_metrics(0.7))
    board = Board.objects.get(phase=phase)
    assert pinned.pinned_rows(board, Controls(direction="default"), START) == []
    assert pinned.digest([]) == pinned.digest(pinned.pinned_rows(board, Controls(direction="default"), START))


@pytest.fixture
def history(standing, alice_lab, charlie, clock):
    """A board that changed three times: A scored at 13:00, B (better) at 14:00, A hidden by a moderator at 15:00."""
    phase = phase_for("chemicalx-twosides")
    clock.now = START + dt.timedelta(hours=1)
    a = scored(phase, alice_lab, "Alpha", pair_metrics(0.7))
    clock.now = START + dt.timedelta(hours=2)
    b = scored(phase, charlie.personal_team, "Beta", pair_metrics(0.8), minutes=1)
    clock.now = START + dt.timedelta(hours=3)
    Submission.objects.filter(pk=a.pk).update(is_hidden=True, hidden_reason="copied labels")
    recompute_phase(phase)
    clock.now = START + dt.timedelta(hours=4)
    return a, b


def methods(html: str) -> list[str]:
    table = html.split('id="leaderboard"')[1].split("</table>")[0]
    return re.findall(r'<td class="method"><a href="[^"]+">([^<]+)</a>', table)


def test_the_board_pinned_to_a_moment_shows_the_rows_then_and_notes_later_moderation(client, history):
    a, _ = history
    html = client.get("/tasks/chemicalx-twosides/?as_of=2026-06-01T14:30:00Z").content.decode()
    assert methods(html) == ["Beta", "Alpha"]
    assert "This is the board as it stood at" in html
    note = html.split(f'id="row-{a.pk}"')[1].split("</tr>")[0]
    assert "Since 2026-06-01: hidden by a moderator." in note
    assert "copied labels" not in html  # the reason is the team's to read, on its submission page
    assert methods(client.get("/tasks/chemicalx-twosides/?as_of=2026-06-01T13:30:00Z").content.decode()) == ["Alpha"]
    assert methods(client.get("/tasks/chemicalx-twosides/").content.decode()) == ["Beta"]


def test_a_pinned_page_keeps_its_moment_in_every_link(client, history):
    html = client.get("/tasks/chemicalx-twosides/?as_of=2026-06-01T14:30:00Z").content.decode()
    assert '<input type="hidden" name="as_of" value="2026-06-01T14:30:00Z">' in html
    assert 'href="?sort=method&amp;as_of=2026-06-01T14:30:00Z"' in html


@pytest.mark.parametrize(
    ("as_of", "message"),
    [
        ("yesterday", "is not an ISO 8601 date or time"),
        ("2026-13-01", "is not an ISO 8601 date or time"),
        ("", "as_of is empty"),
        ("2027-01-01T00:00:00Z", "is in the future"),
    ],
)
def test_a_bad_moment_is_refused_with_the_reason(client, history, as_of, message):
    response = client.get(f"/tasks/chemicalx-twosides/?as_of={as_of}")
    assert response.status_code == 400
    assert message in response.content.decode()
    response = client.get(f"/tasks/chemicalx-twosides/leaderboard.csv?as_of={as_of}")
    assert response.status_code == 400


def test_a_date_alone_pins_the_end_of_that_day(client, history, clock):
    assert client.get("/tasks/chemicalx-twosides/?as_of=2026-06-01").status_code == 400  # the day is not over
    clock.now = START + dt.timedelta(days=1)
    html = client.get("/tasks/chemicalx-twosides/?as_of=2026-05-31").content.decode()
    assert "No scored public submissions yet" in html
    assert methods(client.get("/tasks/chemicalx-twosides/?as_of=2026-06-01").content.decode()) == ["Beta"]


def test_the_exports_of_a_pinned_view_carry_its_rows_then(client, history):
    response = client.get("/tasks/chemicalx-twosides/leaderboard.csv?as_of=2026-06-01T14:30:00Z")
    rows = list(csv.DictReader(io.StringIO(response.getvalue().decode())))
    assert [r["method"] for r in rows] == ["Beta", "Alpha"]
    response = client.get("/tasks/chemicalx-twosides/leaderboard.json?as_of=2026-06-01T14:30:00Z")
    document = json.loads(response.getvalue())
    assert document["view"]["as_of"] == "2026-06-01T14:30:00Z"
    assert [r["method"] for r in document["rows"]] == ["Beta", "Alpha"]


def test_the_cite_panel_gives_bibtex_for_the_paper_and_a_permalink_whose_digest_matches(client, history, settings):
    html = client.get("/tasks/chemicalx-twosides/").content.decode()
    panel = html.split('id="cite-panel"')[1].split("</details>")[0]
    assert "@misc{rozemberczki2022chemicalx," in panel
    assert "eprint = {2202.05240}" in panel
    permalink = re.search(r'id="permalink">([^<]+)<', panel)[1]
    # The board's last change was the moderator's hide at 15:00.
    assert permalink.endswith("/tasks/chemicalx-twosides/?as_of=2026-06-01T15:00:00Z")
    digest = re.search(r'id="view-digest">sha256:([0-9a-f]{64})<', panel)[1]
    assert f"howpublished = {{\\url{{{permalink}}}}}" in panel.replace("&amp;", "&")
    assert digest in panel.split('id="bibtex-view"')[1]
    pinned_html = client.get(permalink.removeprefix(settings.SITE_URL)).content.decode()
    assert re.search(r'id="view-digest">sha256:([0-9a-f]{64})<', pinned_html)[1] == digest


def test_a_filtered_view_has_its_own_digest(client, history):
    plain = client.get("/tasks/chemicalx-twosides/?as_of=2026-06-01T14:30:00Z").content.decode()
    filtered = client.get("/tasks/chemicalx-twosides/?as_of=2026-06-01T14:30:00Z&baseline=yes").content.decode()
    found = [re.search(r'id="view-digest">sha256:([0-9a-f]{64})<', h)[1] for h in (plain, filtered)]
    assert found[0] != found[1]
    assert found[1] == pinned.digest([])


def test_a_rebuild_that_changes_nothing_records_nothing(standing, alice_lab, clock):
    phase = phase_for("chemicalx-twosides")
    scored(phase, alice_lab, "Alpha", pair_metrics(0.7))
    before = list(BoardRowHistory.objects.values_list("pk", "valid_from", "valid_to"))
    clock.now += dt.timedelta(hours=1)
    recompute_phase(phase)
    assert list(BoardRowHistory.objects.values_list("pk", "valid_from", "valid_to")) == before
