"""The organizer commands of ddi-leaderboard (rerun, export, moderate, disqualify) against a live test server."""

# ruff: noqa: F811 (the manage pages' fixtures are imported by name, and tests take them as arguments)
from __future__ import annotations

import csv

import pytest

from leaderboard.challenges.models import AuditEntry, Registration
from leaderboard.submissions.models import Submission
from tests.api.test_client_end_to_end import home, run_cli  # noqa: F401 (the home fixture)
from tests.moderation.conftest import (  # noqa: F401 (fixtures)
    PRIVATE_VALUE,
    alice_registered,
    board_updates_run_at_once,
    challenge,
    make_submission,
    oscar,
    otto,
    phase,
    rebuild,
)

pytestmark = [pytest.mark.storage, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def organizer(live_server, home, make_token, oscar, monkeypatch) -> dict:
    from leaderboard.submissions import queueing

    monkeypatch.setattr(queueing, "enqueue", lambda submission_id: True)  # no worker: the rows say what happened
    return {**home, "DDI_LEADERBOARD_TOKEN": make_token(oscar, "organize"), "DDI_LEADERBOARD_URL": live_server.url}


@pytest.fixture
def entries(phase, alice_lab, charlie, alice_registered):
    scored = make_submission(phase, alice_lab, "GraphDDI")
    failed = make_submission(phase, charlie.personal_team, "Broken", status="failed")
    rebuild(phase)
    return scored, failed


def cli(env, live_server, *args):
    return run_cli(env, "--url", live_server.url, *args)


def test_rerun_queues_one_submission(organizer, live_server, entries):
    scored, _ = entries
    done = cli(organizer, live_server, "rerun", "mudi-2027", "--submission", str(scored.pk), "--reason", "new scorer")
    assert done.returncode == 0, done.stderr
    assert "Queued again" in done.stdout
    assert Submission.objects.get(pk=scored.pk).status == "queued"
    assert AuditEntry.objects.get(action="submission.rerun").reason == "new scorer"


def test_rerun_of_a_phase_says_how_many(organizer, live_server, entries):
    done = cli(organizer, live_server, "rerun", "mudi-2027", "--phase", "test", "--failed")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Re-running 1 failed submission of 'Test phase'."
    assert AuditEntry.objects.get(action="phase.rerun").details == {"which": "failed", "count": 1}


def test_rerun_needs_a_phase_or_a_submission(organizer, live_server, entries):
    done = cli(organizer, live_server, "rerun", "mudi-2027")
    assert done.returncode == 2 and "Give either --phase" in done.stderr


def test_a_refused_rerun_exits_2_with_the_servers_sentence(organizer, live_server, phase):
    done = cli(organizer, live_server, "rerun", "mudi-2027", "--phase", "test", "--failed")
    assert done.returncode == 2
    assert "has no failed submissions to re-run" in done.stderr and "Traceback" not in done.stderr


def test_export_writes_every_score_to_a_file(organizer, live_server, entries, tmp_path):
    out = tmp_path / "scores.csv"
    done = cli(organizer, live_server, "export", "mudi-2027", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Wrote the scores of mudi-2027 to {out}")
    rows = list(csv.DictReader(out.open()))
    assert {r["method"] for r in rows} == {"GraphDDI", "Broken"}
    assert float(next(r for r in rows if r["method"] == "GraphDDI")["private:aware/macro/f1"]) == PRIVATE_VALUE


def test_export_by_an_outsider_exits_2_and_writes_nothing(live_server, home, make_token, entries, charlie, tmp_path):
    env = {**home, "DDI_LEADERBOARD_TOKEN": make_token(charlie, "organize")}
    out = tmp_path / "scores.csv"
    done = cli(env, live_server, "export", "mudi-2027", "-o", str(out))
    assert done.returncode == 2 and "No such challenge" in done.stderr
    assert not out.exists() and not (tmp_path / "scores.csv.part").exists()


def test_moderate_and_disqualify(organizer, live_server, entries):
    scored, _ = entries
    hidden = cli(organizer, live_server, "moderate", str(scored.pk), "hide", "--reason", "Probing the split.")
    assert hidden.returncode == 0, hidden.stderr
    assert Submission.objects.get(pk=scored.pk).is_hidden
    out = cli(organizer, live_server, "disqualify", "mudi-2027", "alice-lab", "--reason", "Used the test labels.")
    assert out.returncode == 0, out.stderr
    assert "Team Alice Lab disqualified" in out.stdout
    assert Registration.objects.get(team__slug="alice-lab").status == "disqualified"
