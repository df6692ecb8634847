"""How issue 22 is checked: the CLI takes part in a challenge phase from a script, end to end.

It registers a participant to a phase, validates against the phase's own inputs, submits, waits
across a server restart (a forwarder in front of the live server goes down and comes back on the
same port while the submission is scored), downloads its file back byte-identical and reads the
phase's board as JSON.
"""

# ruff: noqa: F811 (the fixtures imported from other test modules are test arguments)
from __future__ import annotations

import json
import socket
import subprocess
import threading

import pytest

from leaderboard.boards.tasks import refresh_boards
from leaderboard.submissions.models import Submission
from leaderboard.submissions.runs import score_submission
from tests.api.test_client_end_to_end import CLI, home, run_cli  # noqa: F401 (home is a fixture)
from tests.challenges.participants import organized_challenge, sent  # noqa: F401 (sent is a fixture)
from tests.conftest import REPO
from tests.submissions.helpers import mudi_prediction_csv

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.storage]


class Restartable:
    """A TCP forwarder to the live server that can go down (connections refused) and come back on its port."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._open: list[socket.socket] = []
        self._listener: socket.socket | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        listener.settimeout(0.1)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        for connection in self._open:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            connection.close()
        self._open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while self._listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            self._open += [client, upstream]
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, target), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, target: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                target.sendall(chunk)
        except OSError:
            pass
        finally:
            for end in (source, target):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


@pytest.fixture
def server(live_server):
    forwarder = Restartable(int(live_server.url.rsplit(":", 1)[1]))
    forwarder.start()
    yield forwarder
    forwarder.stop()


def lines_until(stream, marker: str) -> list[str]:
    seen = []
    for line in stream:
        seen.append(line)
        if marker in line:
            return seen
    raise AssertionError(f"the stream ended before {marker!r}: {seen}")


def test_a_participant_takes_part_in_a_phase_from_the_command_line(server, alice, make_token, home, tmp_path, sent):
    organized_challenge()  # mudi-2027: phase "dev" open, with its own truth
    env = {**home, "DDI_LEADERBOARD_URL": server.url}
    assert run_cli(env, "login", "--token", make_token(alice, "submit")).returncode == 0

    before = run_cli(env, "registration", "mudi-2027")
    assert before.returncode == 0 and "None of your teams is registered" in before.stdout
    registered = run_cli(env, "register", "mudi-2027")
    assert registered.returncode == 0, registered.stderr
    assert registered.stdout.strip().endswith("is registered: you can submit to the open phases.")

    inputs = tmp_path / "inputs.csv"
    assert run_cli(env, "inputs", "--phase", "mudi-2027/dev", "-o", str(inputs)).returncode == 0
    prediction = tmp_path / "predictions.csv"
    prediction.write_bytes(mudi_prediction_csv(wrong=3))
    valid = run_cli(env, "validate", "--phase", "mudi-2027/dev", str(prediction))
    assert valid.returncode == 0 and "Valid: 12 rows for mudi-2027/dev." in valid.stdout

    done = run_cli(env, "submit", "--phase", "mudi-2027/dev", str(prediction), "--method", "GraphDDI",
                   "--declare", "modalities=graph", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    submission_id = json.loads(done.stdout)["id"]
    assert sent == [submission_id]

    waiting = subprocess.Popen([*CLI, "wait", submission_id, "--timeout", "300"], env=env, cwd=REPO, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        lines_until(waiting.stderr, "Status: queued")
        server.stop()  # the restart: connections refused from now on
        lines_until(waiting.stderr, "Retrying in")
        assert score_submission.apply(args=[submission_id]).get() == "scored"  # the scoring worker, meanwhile
        refresh_boards(Submission.objects.get(pk=submission_id).phase_id)  # and the background worker's refresh
        server.start()
        out, err = waiting.communicate(timeout=300)
    finally:
        waiting.kill()
    assert waiting.returncode == 0, err
    scored = Submission.objects.get(pk=submission_id)
    assert f"Scored: aware/macro/f1 = {scored.primary_value!r}" in out
    assert "Rank: 1 on mudi" in out

    back = tmp_path / "back.csv"
    assert run_cli(env, "download", submission_id, "-o", str(back)).returncode == 0
    assert back.read_bytes() == prediction.read_bytes()

    board = run_cli(env, "leaderboard", "--phase", "mudi-2027/dev", "--json")
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)
    assert [(row["submission_id"], row["rank"]) for row in rows] == [(submission_id, 1)]
