"""`ddi-leaderboard final ID [--unselect]` and `ddi-leaderboard reveal CHALLENGE PHASE` against a live test server."""

from __future__ import annotations

import pytest

from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission
from tests.api.test_client_end_to_end import run_cli
from tests.challenges.split_phase import PRIVATE_ROWS, make_split_phase, submit_scored

pytestmark = [pytest.mark.storage, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def home(tmp_path) -> dict:
    """The client's config and cache folders are the test's own (as in test_client_end_to_end)."""
    import os

    from tests.conftest import REPO

    env = dict(os.environ)
    env.update({"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache")})
    env.pop("DDI_LEADERBOARD_TOKEN", None)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "client"), str(REPO)])
    return env


def test_a_member_selects_and_unselects_a_final_submission(live_server, alice, alice_lab, olga, make_token, home):
    phase = make_split_phase(olga)
    submission = submit_scored(phase, alice_lab, alice, {PRIVATE_ROWS[0]})
    env = {**home, "DDI_LEADERBOARD_TOKEN": make_token(alice, "submit")}
    done = run_cli(env, "--url", live_server.url, "final", str(submission.pk))
    assert done.returncode == 0, done.stderr
    assert "Selected as final. Your team has 1 of 2 selected." in done.stdout
    assert "If you select none" in done.stdout
    assert Submission.objects.get(pk=submission.pk).selected_final
    done = run_cli(env, "--url", live_server.url, "final", str(submission.pk), "--unselect")
    assert done.returncode == 0 and "No longer a final submission." in done.stdout
    assert not Submission.objects.get(pk=submission.pk).selected_final


def test_an_organizer_reveals_and_a_second_reveal_is_refused_with_a_sentence(
    live_server, alice, alice_lab, olga, make_token, home
):
    phase = make_split_phase(olga)
    submit_scored(phase, alice_lab, alice, {PRIVATE_ROWS[0]})
    env = {**home, "DDI_LEADERBOARD_TOKEN": make_token(olga, "organize")}
    done = run_cli(env, "--url", live_server.url, "reveal", "mudi-2027", "test")
    assert done.returncode == 0, done.stderr
    assert "1 final submissions of 1 teams." in done.stdout
    assert "/challenges/mudi-2027/test/board/private/" in done.stdout
    assert Phase.objects.get(pk=phase.pk).revealed_at is not None
    again = run_cli(env, "--url", live_server.url, "reveal", "mudi-2027", "test")
    assert again.returncode != 0 and "already revealed" in again.stderr and "Traceback" not in again.stderr


def test_a_participant_cannot_reveal(live_server, alice, olga, make_token, home):
    phase = make_split_phase(olga)
    env = {**home, "DDI_LEADERBOARD_TOKEN": make_token(alice, "organize")}
    done = run_cli(env, "--url", live_server.url, "reveal", "mudi-2027", "test")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert Phase.objects.get(pk=phase.pk).revealed_at is None
