"""Absolute links (exports' submission_url, result and invitation emails) use SITE_URL's host and port."""

from __future__ import annotations

import json

import pytest
from django.core import mail

from leaderboard.ops.management.commands.runall import child_env, site_url_for
from leaderboard.submissions.emails import result_email
from tests.boards.conftest import mudi_metrics, phase_for, scored

SITE = "http://127.0.0.1:8123"


@pytest.mark.storage
def test_the_json_export_links_each_row_to_the_configured_site(client, settings, standing, alice_lab):
    settings.SITE_URL = SITE + "/"
    submission = scored(phase_for("mudi"), alice_lab, "GraphOnly", mudi_metrics(0.7))
    rows = json.loads(client.get("/tasks/mudi/leaderboard.json").getvalue())["rows"]
    assert rows[0]["submission_url"] == f"{SITE}/submissions/{submission.pk}/"


@pytest.mark.storage
def test_the_csv_export_links_to_the_configured_site(client, settings, standing, alice_lab):
    settings.SITE_URL = SITE
    submission = scored(phase_for("mudi"), alice_lab, "GraphOnly", mudi_metrics(0.7))
    assert f"{SITE}/submissions/{submission.pk}/" in client.get("/tasks/mudi/leaderboard.csv").getvalue().decode()


@pytest.mark.storage
def test_the_result_email_links_to_the_submission_and_profile_on_the_configured_site(settings, standing, alice_lab):
    settings.SITE_URL = SITE
    submission = scored(phase_for("mudi"), alice_lab, "GraphOnly", mudi_metrics(0.7))
    _, body = result_email(submission)
    assert f"All metrics: {SITE}/submissions/{submission.pk}/" in body
    assert f"{SITE}/accounts/profile/" in body
    assert "8000" not in body


def test_the_invitation_email_links_to_the_profile_on_the_configured_site(
    client, settings, alice_lab, alice, charlie, django_capture_on_commit_callbacks
):
    settings.SITE_URL = SITE
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/teams/alice-lab/invite/", {"username": "charlie"})
    assert f"{SITE}/accounts/profile/" in mail.outbox[0].body


def test_runall_gives_its_children_a_site_url_on_its_own_port(monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)
    assert child_env("127.0.0.1", 8123)["SITE_URL"] == SITE
    assert child_env("0.0.0.0", 9000)["SITE_URL"] == "http://127.0.0.1:9000"
    assert site_url_for("::1", 8001) == "http://[::1]:8001"


def test_runall_keeps_a_site_url_set_explicitly(monkeypatch):
    monkeypatch.setenv("SITE_URL", "https://ddi.example.org")
    assert child_env("127.0.0.1", 8123)["SITE_URL"] == "https://ddi.example.org"


def test_runall_listens_on_port_from_the_environment(monkeypatch):
    from leaderboard.ops.management.commands.runall import Command

    monkeypatch.setenv("PORT", "8123")
    parser = Command().create_parser("manage.py", "runall")
    assert parser.parse_args([]).port == 8123
    assert parser.parse_args(["--port", "9000"]).port == 9000
