"""load_benchmarks --demo creates the organized demo challenge in every state a challenge goes through."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import override_settings

from leaderboard.boards.models import Board, BoardRow
from leaderboard.challenges.models import Challenge
from leaderboard.submissions.models import Submission
from tests.conftest import rows_for_the_module

SLUG = "mudi-held-out-2027"


# load_benchmarks --demo writes its truth and baselines to the storages.
pytestmark = pytest.mark.storage


@pytest.fixture(scope="module")
def _demo_built(django_db_setup, django_db_blocker):
    """The demo, built once for the module (~20 s); each test sees it fresh (rows_for_the_module)."""
    with rows_for_the_module(django_db_blocker), override_settings(DEBUG=True):
        call_command("ensure_demo_user")
        call_command("load_benchmarks", "--demo", "--task", "mudi")
        yield


@pytest.fixture
def demo(_demo_built, db, settings):
    settings.DEBUG = True  # the demo account exists in development only
    return Challenge.objects.get(slug=SLUG)


def test_it_has_a_revealed_pilot_an_open_development_phase_and_an_upcoming_split_test_phase(demo):
    phases = {p.slug: p for p in demo.phases.all()}
    assert {slug: p.state() for slug, p in phases.items()} == {
        "pilot": "closed",
        "development": "open",
        "test": "upcoming",
    }
    assert phases["pilot"].revealed_at is not None and phases["test"].revealed_at is None
    assert phases["pilot"].split == phases["test"].split == {"fraction": 0.3, "seed": 2027}
    assert phases["development"].split is None
    assert all(p.truth_is_synthetic for p in phases.values())
    # The development truth is the public part of the test truth.
    assert phases["development"].truth_counts["rows"] < phases["test"].truth_counts["rows"]
    assert demo.is_published and demo.organizers.filter(username="demo").exists()


def test_the_pilots_private_board_ranks_one_entry_per_team_with_its_public_rank(demo, client):
    private = Board.objects.get(phase__challenge=demo, phase__slug="pilot", part="private", direction="aware")
    rows = BoardRow.objects.filter(board=private)
    assert rows.count() == 4
    assert all(row.public_rank is not None for row in rows)
    finals = Submission.objects.filter(phase__challenge=demo, phase__slug="pilot").exclude(final_by="")
    assert set(finals.values_list("final_by", flat=True)) == {"chosen", "auto"}
    response = client.get(f"/challenges/{SLUG}/pilot/board/private/")
    assert response.status_code == 200
    assert "Aurora v1" in response.content.decode()


def test_a_second_run_changes_nothing(demo):
    before = Submission.objects.filter(phase__challenge=demo).count()
    call_command("load_benchmarks", "--demo", "--task", "mudi")
    assert Submission.objects.filter(phase__challenge=demo).count() == before == 12
    assert Challenge.objects.filter(slug=SLUG).count() == 1


def test_the_demo_participants_get_no_result_emails_so_make_run_stays_quiet(demo):
    from leaderboard.accounts.models import User

    participants = User.objects.filter(submissions__phase__challenge=demo).exclude(username="demo").distinct()
    assert participants.exists()
    assert not participants.filter(email_results=True).exists()
