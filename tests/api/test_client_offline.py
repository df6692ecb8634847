"""The ddi-leaderboard client without a server: start-up, tokens per site, waiting through outages, exit codes.

The API is played by an httpx MockTransport, so these tests pin what the client sends and how it reads
the answers; tests/api/test_client_end_to_end.py runs the same client against a live server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest
from ddi_leaderboard import Client, GaveUpWaiting, config
from ddi_leaderboard import client as client_module
from ddi_leaderboard.cli import main

import scoring
from tests.conftest import REPO

SITE = "http://127.0.0.1:8000"


@pytest.fixture(autouse=True)
def private_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in (config.TOKEN_VARIABLE, config.URL_VARIABLE):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def no_sleep(monkeypatch):
    """Pauses recorded, not slept; the clock advances by them."""
    pauses: list[float] = []
    now = [1000.0]
    monkeypatch.setattr(client_module.time, "sleep", lambda s: pauses.append(s) or now.__setitem__(0, now[0] + s))
    monkeypatch.setattr(client_module.time, "monotonic", lambda: now[0])
    return pauses


def serve(monkeypatch, answers, seen=None):
    """The CLI's client talks to ``answers``: a function of the request returning a response (or raising)."""

    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        return answers(request)

    transport = httpx.MockTransport(handler)
    monkeypatch.setattr(
        "ddi_leaderboard.cli._client", lambda ctx: Client(ctx.obj["url"], ctx.obj["token"], transport=transport)
    )
    return transport


def status_body(state: str, **extra) -> dict:
    body = {
        "id": "5d1c1a2e-0000-4000-8000-000000000001",
        "status": state,
        "task": "mudi",
        "method_name": "GraphDDI",
        "team": "alice",
        "error": None,
        "error_kind": None,
        "problems": [],
        "queue_position": None,
        "primary": {"key": "aware/macro/f1", "value": None},
    }
    return {**body, **extra}


def test_commands_that_do_not_validate_start_without_pandas_or_scikit_learn():
    # Not a timing (bench/cli_start.py measures it): what keeps start-up fast is what is not imported.
    heavy = "('pandas', 'sklearn', 'numpy')"
    probe = f"import sys, ddi_leaderboard.cli; print(sorted(m for m in {heavy} if m in sys.modules))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "client"), str(REPO)])}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "[]"


def test_version_prints_the_clients_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == "ddi-leaderboard, version 1.0.0\n"


def test_validate_names_the_valid_tasks_for_an_unknown_one(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text("Drug1,Interaction,Drug2\n")
    assert main(["validate", "mudii", str(path)]) == 2
    assert capsys.readouterr().err == f"Error: No task 'mudii'; valid tasks: {', '.join(scoring.TASKS)}.\n"


def test_a_page_404_on_an_unknown_task_names_the_valid_tasks(monkeypatch, tmp_path, capsys):
    serve(monkeypatch, lambda r: httpx.Response(404, text="<h1>Not Found</h1>"))
    assert main(["inputs", "nope", "-o", str(tmp_path / "x.csv")]) == 2
    assert capsys.readouterr().err.startswith("Error: No task 'nope'; valid tasks: mudi, ")


def test_a_saved_token_is_sent_only_to_the_site_it_was_saved_for(monkeypatch):
    config.save(SITE, "ddi_local")
    config.save("https://leaderboard.example.org/", "ddi_remote")
    seen: list[httpx.Request] = []
    serve(monkeypatch, lambda r: httpx.Response(200, json=[]), seen)
    assert main(["--url", "https://LEADERBOARD.example.org", "tasks"]) == 0
    assert main(["--url", "https://elsewhere.example.org", "tasks"]) == 0
    assert main(["tasks"]) == 0  # the last site logged in to
    sent = [(str(r.url.host), r.headers.get("Authorization")) for r in seen]
    assert sent == [
        ("leaderboard.example.org", "Bearer ddi_remote"),
        ("elsewhere.example.org", None),
        ("leaderboard.example.org", "Bearer ddi_remote"),
    ]
    saved = json.loads(config.config_path().read_text())
    assert saved["sites"] == {SITE: "ddi_local", "https://leaderboard.example.org": "ddi_remote"}


def test_a_token_never_travels_over_plain_http_to_another_machine(monkeypatch, capsys):
    seen: list[httpx.Request] = []
    serve(monkeypatch, lambda r: httpx.Response(200, json=[]), seen)
    assert main(["--url", "http://leaderboard.example.org", "--token", "ddi_x", "tasks"]) == 3
    assert "Refusing to send a token to http://leaderboard.example.org: use https://" in capsys.readouterr().err
    assert seen == []
    assert main(["--url", "http://localhost:8000", "--token", "ddi_x", "tasks"]) == 0


def test_listings_and_status_print_json(monkeypatch, capsys):
    tasks = [{"slug": "mudi", "family": "mudi", "split": "test", "primary_metric": "aware/macro/f1"}]
    serve(monkeypatch, lambda r: httpx.Response(200, json=tasks))
    assert main(["tasks", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == tasks


def test_status_of_a_failed_submission_exits_2_and_prints_each_problem_once(monkeypatch, capsys):
    failed = status_body(
        "failed",
        error_kind="invalid",
        error="The file is not valid: line 2: unknown pair.",
        problems=[{"message": "line 2: unknown pair."}, {"message": "line 3: missing value."}],
    )
    serve(monkeypatch, lambda r: httpx.Response(200, json=failed))
    assert main(["status", failed["id"]]) == 2
    err = capsys.readouterr().err
    assert err.count("unknown pair") == 1 and err.count("missing value") == 1
    platform = {**failed, "error_kind": "platform", "problems": []}
    serve(monkeypatch, lambda r: httpx.Response(200, json=platform))
    assert main(["status", failed["id"], "--json"]) == 5
    assert json.loads(capsys.readouterr().out)["status"] == "failed"


def test_wait_rides_out_a_restart_a_busy_spell_and_a_stall(monkeypatch, capsys, no_sleep):
    answers = iter(
        [
            status_body("queued", queue_position=2),
            httpx.ConnectError("refused"),
            httpx.Response(503, headers={"Retry-After": "7"}),
            httpx.ReadTimeout("stalled"),
            httpx.Response(429, headers={"Retry-After": "3"}),
            status_body("queued", queue_position=1),
            status_body("running"),
            status_body("running"),
            status_body("failed", error="The worker lost the file.", error_kind="platform"),
        ]
    )

    def answer(request):
        found = next(answers)
        if isinstance(found, Exception):
            raise found
        return found if isinstance(found, httpx.Response) else httpx.Response(200, json=found)

    serve(monkeypatch, answer)
    assert main(["wait", "5d1c1a2e-0000-4000-8000-000000000001"]) == 5
    err = capsys.readouterr().err
    assert [line for line in err.splitlines() if line.startswith("Status")] == [
        "Status: queued (position 2 in the queue)",
        "Status: queued (position 1 in the queue)",
        "Status: running",
    ]
    assert err.count("Retrying in") == 4
    assert "Failed: The worker lost the file." in err
    assert 7 in no_sleep and 3 in no_sleep  # Retry-After, as sent


def test_giving_up_prints_the_id_and_the_command_that_resumes(monkeypatch, capsys, no_sleep):
    def down(request):
        raise httpx.ConnectError("refused")

    serve(monkeypatch, down)
    submission_id = "5d1c1a2e-0000-4000-8000-000000000001"
    assert main(["wait", submission_id, "--timeout", "60"]) == 6
    err = capsys.readouterr().err
    assert f"submission {submission_id} was accepted" in err
    assert f"Resume with: ddi-leaderboard wait {submission_id}" in err
    assert sum(no_sleep) <= 60


def test_the_library_raises_gave_up_waiting_with_the_last_status(no_sleep):
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json=status_body("queued", queue_position=4)))
    with pytest.raises(GaveUpWaiting) as caught:
        Client(SITE, "ddi_x", transport=transport).wait("abc", timeout=10)
    assert caught.value.submission_id == "abc"
    assert caught.value.last_status["queue_position"] == 4


def test_submit_checks_declarations_offline_and_the_preflight_before_reading_the_file(monkeypatch, tmp_path, capsys):
    seen: list[httpx.Request] = []
    unverified = {
        "type": "/api/v1/problems/email-not-verified",
        "title": "E-mail address not verified",
        "status": 403,
        "detail": "Verify your e-mail address before submitting.",
    }
    serve(monkeypatch, lambda r: httpx.Response(403, json=unverified), seen)
    path = tmp_path / "p.csv"
    path.write_text("Drug1,Interaction,Drug2\n")
    base = ["--token", "ddi_x", "submit", "mudi", str(path), "--method", "M"]
    assert main([*base, "--declare", "modality=graph"]) == 2
    err = capsys.readouterr().err
    assert "'modality' is not a declaration of this task; its declarations: modalities." in err
    assert "'modalities' is required" in err
    assert main([*base, "--declare", "modalities=graph"]) == 3
    assert capsys.readouterr().err == "Error: Verify your e-mail address before submitting.\n"  # no token advice
    assert [(r.method, r.url.path) for r in seen] == [("GET", "/api/v1/tasks/mudi/submissions/preflight")]


def test_validate_checks_declarations_when_given(tmp_path, capsys):
    inputs, path = tmp_path / "in.csv", tmp_path / "p.csv"
    inputs.write_text("Drug1,Drug2\nA,B\n")
    path.write_text("Drug1,Interaction,Drug2\nA,Synergism,B\n")
    assert main(["validate", "mudi", str(path), "--inputs", str(inputs), "--declare", "modalities=smell"]) == 2
    assert "'modalities': 'smell' is not one of text, formula, graph, image." in capsys.readouterr().err
    assert main(["validate", "mudi", str(path), "--inputs", str(inputs)]) == 0
    assert "Submitting to mudi needs --declare for: modalities." in capsys.readouterr().err


def test_hide_and_show_patch_the_visibility(monkeypatch, capsys):
    seen: list[httpx.Request] = []

    def answer(request):
        visibility = json.loads(request.content)["visibility"]
        return httpx.Response(200, json={"id": "abc", "visibility": visibility})

    serve(monkeypatch, answer, seen)
    assert main(["--token", "ddi_x", "hide", "abc"]) == 0
    assert main(["--token", "ddi_x", "show", "abc"]) == 0
    assert capsys.readouterr().out == "abc is now private.\nabc is now public.\n"
    assert [(r.method, r.url.path, json.loads(r.content)) for r in seen] == [
        ("PATCH", "/api/v1/submissions/abc", {"visibility": "private"}),
        ("PATCH", "/api/v1/submissions/abc", {"visibility": "public"}),
    ]


def test_a_damaged_download_never_replaces_the_file(monkeypatch, tmp_path, capsys):
    def answer(request):
        if request.url.path.endswith("/file"):
            return httpx.Response(200, content=b"Drug1,Interaction,Drug2\n")
        return httpx.Response(200, json={**status_body("scored"), "sha256": "0" * 64, "file_name": "p.csv"})

    serve(monkeypatch, answer)
    target = tmp_path / "mine.csv"
    target.write_text("kept")
    assert main(["--token", "ddi_x", "download", "abc", "-o", str(target)]) == 5
    assert "was damaged" in capsys.readouterr().err
    assert target.read_text() == "kept" and not (tmp_path / "mine.csv.part").exists()
