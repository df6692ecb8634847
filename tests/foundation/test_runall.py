"""manage.py runall (what make run ends with): web, worker and beat in the foreground, stopped together."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import REPO, process_env, wait_for


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def start_runall(port: int, log_path: Path) -> subprocess.Popen:
    """`manage.py runall` in its own process group, on this test's database and broker, output to a file."""
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            [sys.executable, "manage.py", "runall", "--port", str(port), "--concurrency", "1"],
            cwd=REPO,
            env=process_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@pytest.mark.slow
@pytest.mark.services
@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_runall_serves_the_site_runs_a_worker_and_stops_everything_on_a_signal(
    transactional_db, settings, tmp_path, stop_signal
):
    from leaderboard.ops.demo import ensure_demo_user
    from leaderboard.ops.models import WorkerHeartbeat
    from leaderboard.ops.tasks import heartbeat

    settings.DEBUG = True
    ensure_demo_user()
    port = _free_port()
    log_path: Path = tmp_path / "runall.log"
    proc = start_runall(port, log_path)
    try:
        wait_for(lambda: "The site is up" in log_path.read_text(), timeout=90, message="runall's banner")
        text = log_path.read_text()
        assert f"http://127.0.0.1:{port}/" in text
        assert "Demo login: demo / demo-leaderboard" in text

        status, body = _get(f"http://127.0.0.1:{port}/healthz")
        assert status == 200, body
        assert json.loads(body)["database"] == "ok" and json.loads(body)["broker"] == "ok"
        assert _get(f"http://127.0.0.1:{port}/")[0] == 200
        assert _get(f"http://127.0.0.1:{port}/accounts/signup/")[0] == 200

        # Each worker consumes its own queues: a task sent to each is run there and written to the database.
        wait_for(lambda: log_path.read_text().count("ready.") >= 3, timeout=60, message="the workers to be ready")
        WorkerHeartbeat.objects.all().delete()
        for queue in ("scoring", "background"):
            heartbeat.apply_async(args=(queue,), queue=queue)
        wait_for(lambda: WorkerHeartbeat.objects.count() == 2, timeout=30, message="the heartbeat tasks to run")
        names = {
            name.split("@")[0] + "/" + name.split("/")[-1]
            for name in WorkerHeartbeat.objects.values_list("hostname", flat=True)
        }
        assert names <= {"background/background", "scoring/scoring", "large/scoring"}
        assert "background/background" in names
        text = log_path.read_text()
        assert "worker | " in text and " large | " in text and "    bg | " in text and "  beat | " in text

        proc.send_signal(stop_signal)
        assert proc.wait(timeout=40) == 0
        text = log_path.read_text()
        assert "All stopped." in text
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.mark.slow
@pytest.mark.services
def test_runall_stops_everything_and_fails_when_one_process_dies(transactional_db, tmp_path):
    # The web server cannot bind a port that is already taken, so it exits at once.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        log_path: Path = tmp_path / "runall.log"
        proc = start_runall(port, log_path)
        try:
            assert proc.wait(timeout=90) == 1
        finally:
            if proc.poll() is None:
                proc.kill()
    text = log_path.read_text()
    assert "web exited with code" in text and "All stopped." in text


def _stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name, or None once the process is gone or a zombie."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw.rsplit(")", 1)[1].split()
    return None if fields[0] in {"Z", "X"} else fields


def _family_of(parent: int) -> set[int]:
    """The children of ``parent`` and everything in their sessions (each child leads one)."""
    stats = {int(p.name): _stat(int(p.name)) for p in Path("/proc").iterdir() if p.name.isdigit()}
    stats = {pid: fields for pid, fields in stats.items() if fields}
    children = {pid for pid, fields in stats.items() if int(fields[1]) == parent}
    return children | {pid for pid, fields in stats.items() if int(fields[3]) in children}


@pytest.mark.slow
@pytest.mark.services
def test_no_child_outlives_runall_when_it_is_killed_with_sigkill(transactional_db, tmp_path):
    port = _free_port()
    log_path: Path = tmp_path / "runall.log"
    proc = start_runall(port, log_path)
    family: set[int] = set()
    try:
        wait_for(lambda: "The site is up" in log_path.read_text(), timeout=90, message="runall's banner")
        wait_for(lambda: "ready." in log_path.read_text(), timeout=60, message="the worker to be ready")
        family = _family_of(proc.pid)
        # web, worker, beat and at least the worker's one pool process.
        assert len(family) >= 4, family

        proc.kill()  # SIGKILL: runall gets no chance to stop anything itself
        proc.wait(timeout=10)

        wait_for(lambda: not any(_stat(pid) for pid in family), timeout=20, message="every child to exit")
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    finally:
        for pid in family:
            if _stat(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if proc.poll() is None:
            proc.kill()
