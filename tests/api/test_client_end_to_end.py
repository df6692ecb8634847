"""The ddi-leaderboard client against a live test server (and a real worker where scoring is needed)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from ddi_leaderboard import Client, InvalidSubmission

from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import import_truth, sync_standing_challenges
from leaderboard.submissions.models import Submission
from tests.conftest import REPO
from tests.integration.test_submission_pipeline import mudi_with_known_errors
from tests.scoring.test_malformed_corpus import DEFAULT_TRUTH, PREDICTION_CASES
from tests.submissions.helpers import invalid_mudi_csv, mudi_prediction_csv, mudi_truth_csv

pytestmark = [pytest.mark.storage, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
# The console script's code, run from this checkout (PYTHONPATH below) rather than whatever is installed.
CLI = [sys.executable, "-c", "from ddi_leaderboard.cli import run; run()"]


@pytest.fixture
def home(tmp_path) -> dict:
    """An environment whose config and cache folders are the test's own."""
    env = dict(os.environ)
    env.update({"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache")})
    env.pop("DDI_LEADERBOARD_TOKEN", None)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "client"), str(REPO)])
    return env


@pytest.fixture
def isolated(home, monkeypatch):
    """The in-process client uses the same private folders."""
    monkeypatch.setenv("XDG_CONFIG_HOME", home["XDG_CONFIG_HOME"])
    monkeypatch.setenv("XDG_CACHE_HOME", home["XDG_CACHE_HOME"])
    return home


def run_cli(env: dict, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=timeout, cwd=REPO)


def _import(task: str, content: bytes | str, tmp_path) -> Phase:
    phase = Phase.objects.get(task_slug=task)
    path = tmp_path / f"{task}-truth.csv"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    import_truth(phase, path, synthetic=True)
    return phase


class Recording(httpx.HTTPTransport):
    """A transport that remembers every request the client sent."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str]] = []

    def handle_request(self, request):
        self.seen.append((request.method, request.url.path))
        return super().handle_request(request)


def test_login_stores_the_token_0600_and_a_bad_token_exits_3(live_server, alice, make_token, home):
    token = make_token(alice, "read")
    done = run_cli(home, "--url", live_server.url, "login", "--token", token)
    assert done.returncode == 0, done.stderr
    saved = Path(home["XDG_CONFIG_HOME"]) / "ddi-leaderboard" / "config.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert json.loads(saved.read_text()) == {"url": live_server.url, "sites": {live_server.url: token}}
    bad = run_cli(home, "--url", live_server.url, "login", "--token", "ddi_wrong")
    assert bad.returncode == 3
    assert "This token does not exist." in bad.stderr and "Traceback" not in bad.stderr


def test_network_errors_are_a_sentence_and_exit_5(home):
    done = run_cli(home, "--url", "http://127.0.0.1:9", "tasks")
    assert done.returncode == 5
    assert (
        done.stderr.strip()
        == "Error: Could not connect to http://127.0.0.1:9: is the server running and the URL right?"
    )


def test_tasks_inputs_example_and_leaderboard(live_server, alice, make_token, home, tmp_path):
    sync_standing_challenges()
    _import("mudi", mudi_truth_csv(), tmp_path)
    env = {**home, "DDI_LEADERBOARD_TOKEN": make_token(alice, "read")}
    tasks = run_cli(env, "--url", live_server.url, "tasks")
    assert tasks.returncode == 0 and "chemicalx-drugcomb" in tasks.stdout
    assert run_cli(env, "--url", live_server.url, "inputs", "mudi", "-o", str(tmp_path / "in.csv")).returncode == 0
    assert (tmp_path / "in.csv").read_text().startswith("Drug1,Drug2")
    assert run_cli(env, "--url", live_server.url, "example", "mudi", "-o", str(tmp_path / "ex.csv")).returncode == 0
    ok = run_cli(env, "--url", live_server.url, "validate", "mudi", str(tmp_path / "ex.csv"))
    assert ok.returncode == 0 and "Valid: 12 rows" in ok.stdout
    board = run_cli(env, "--url", live_server.url, "leaderboard", "mudi")
    assert board.returncode == 0 and "No entries on mudi yet." in board.stdout
    csv_board = run_cli(env, "--url", live_server.url, "leaderboard", "mudi", "--format", "csv")
    assert csv_board.stdout.startswith("rank,position,")
    unknown = run_cli(env, "--url", live_server.url, "inputs", "nope", "-o", str(tmp_path / "x.csv"))
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr


def test_an_invalid_file_exits_2_with_located_errors_and_is_never_uploaded(
    live_server, alice, make_token, home, isolated, tmp_path
):
    sync_standing_challenges()
    _import("mudi", mudi_truth_csv(), tmp_path)
    token = make_token(alice, "submit")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(invalid_mudi_csv())
    done = run_cli(home, "--url", live_server.url, "--token", token, "submit", "mudi", str(bad), "--method", "X",
                   "--declare", "modalities=graph")  # fmt: skip
    assert done.returncode == 2
    assert "[line 2, column Interaction]" in done.stderr and "Nothing was uploaded." in done.stderr
    assert not Submission.objects.exists()
    # The library: the only requests are the inputs download (a GET); no upload was attempted.
    transport = Recording()
    client = Client(live_server.url, token, transport=transport)
    with pytest.raises(InvalidSubmission) as caught:
        client.submit("mudi", bad, method="X", declarations={"modalities": ["graph"]})
    assert caught.value.errors[0]["line"] == 2
    assert all(method == "GET" for method, _ in transport.seen)
    assert not Submission.objects.exists()


# Corpus files checked against the task's default truth; those with their own truth or limits need another server.
CORPUS = [c for c in PREDICTION_CASES if c[2] is None and c[6] is None]


def test_validate_gives_the_servers_verdict_on_every_malformed_corpus_file(
    live_server, alice, make_token, isolated, tmp_path, settings
):
    settings.API_RATE_LIMITS = {"token": "10000/minute", "upload": "10000/minute"}
    sync_standing_challenges()
    for task in {c[1] for c in CORPUS}:
        _import(task, DEFAULT_TRUTH[task], tmp_path)
    token = make_token(alice, "submit")
    client = Client(live_server.url, token)
    compared = 0
    for case_id, task, _, prediction, *_ in CORPUS:
        data = prediction.encode() if isinstance(prediction, str) else prediction
        path = tmp_path / f"{case_id}.csv"
        path.write_bytes(data)
        with pytest.raises(InvalidSubmission) as local:
            client.validate(task, path)
        response = httpx.post(
            f"{live_server.url}/api/v1/tasks/{task}/submissions",
            headers={"Authorization": f"Bearer {token}"},
            data={"method_name": "X"},
            files={"file": (path.name, data, "text/csv")},
        )
        assert response.status_code == 422, (case_id, response.text)
        server = response.json()
        if server["type"].endswith("/invalid-file"):
            assert (local.value.errors, local.value.error_count) == (server["errors"], server["error_count"]), case_id
            compared += 1
        else:
            # The form refuses an empty upload before scoring reads it: invalid on both sides, its own words.
            assert case_id in ("empty-file",), (case_id, server)
    assert compared >= len(CORPUS) - 1
    assert not Submission.objects.exists()


@pytest.mark.services
def test_submit_wait_on_a_real_mudi_file_prints_exactly_the_scoring_numbers(
    live_server, worker, alice, make_token, home, shared_data, tmp_path
):
    truth_path = shared_data / "mudi" / "test.csv"
    sync_standing_challenges()
    import_truth(Phase.objects.get(task_slug="mudi"), truth_path)
    pred = tmp_path / "pred.csv"
    pred.write_bytes(mudi_with_known_errors(truth_path))
    token = make_token(alice, "submit")
    done = run_cli(home, "--url", live_server.url, "--token", token, "submit", "mudi", str(pred),
                   "--method", "GraphDDI", "--declare", "modalities=graph,text", "--wait")  # fmt: skip
    assert done.returncode == 0, done.stderr
    cli = subprocess.run(
        [sys.executable, "-m", "scoring", "score", "mudi", "--truth", str(truth_path), "--pred", str(pred), "--json"],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    expected = json.loads(cli.stdout)
    assert f"Scored: aware/macro/f1 = {expected['metrics']['aware/macro/f1']!r}" in done.stdout
    assert "Rank: 1 on mudi" in done.stdout
    submission = Submission.objects.get()
    api = Client(live_server.url, token).status(str(submission.pk))
    assert api["metrics"] == {k: v for k, v in expected["metrics"].items() if v is not None}


def test_submit_sends_the_method_fields_the_site_stores_and_shows(live_server, alice, make_token, home, tmp_path):
    sync_standing_challenges()
    _import("mudi", mudi_truth_csv(), tmp_path)
    pred = tmp_path / "pred.csv"
    pred.write_bytes(mudi_prediction_csv())
    (tmp_path / "about.md").write_text("A *graph* model.")
    done = run_cli(home, "--url", live_server.url, "--token", make_token(alice, "submit"), "submit", "mudi",
                   str(pred), "--method", "GraphDDI", "--description-file", str(tmp_path / "about.md"),
                   "--paper", "https://example.org/paper", "--code", "https://example.org/code",
                   "--code-commit-url", "https://example.org/code/commit/1a2b3c4", "--model-family", "gnn",
                   "--n-parameters", "1200000", "--training-hardware", "1x A100, 6 h", "--external-data",
                   "--private", "--declare", "modalities=graph")  # fmt: skip
    assert done.returncode == 0, done.stderr
    submission = Submission.objects.get()
    assert (submission.method_name, submission.description) == ("GraphDDI", "A *graph* model.")
    assert (submission.paper_url, submission.code_url) == ("https://example.org/paper", "https://example.org/code")
    assert submission.code_commit_url == "https://example.org/code/commit/1a2b3c4"
    assert (submission.model_family, submission.n_parameters, submission.training_hardware) == (
        "gnn", 1_200_000, "1x A100, 6 h"
    )  # fmt: skip
    assert submission.uses_external_data and not submission.is_public
    wrong = run_cli(home, "--url", live_server.url, "--token", "ddi_x", "submit", "mudi", str(pred), "--method",
                    "X", "--model-family", "quantum")  # fmt: skip
    assert wrong.returncode == 2 and "'quantum' is not one of" in wrong.stderr
