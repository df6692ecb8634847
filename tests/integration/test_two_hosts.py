"""Web and worker on two hosts that share nothing on disk (docs/deploy.md), proven.

Two network namespaces made here (as root) are the two machines: the web host runs
gunicorn, the worker host a Celery worker, each from its own empty working folder with
its own TMPDIR and VAR_DIR. They reach PostgreSQL, Redis and the S3 server (moto, as
.ci/run starts it) only over the network, through relays this test runs on the root
side of each host's link (the services listen on 127.0.0.1 only, and are not
reconfigured). An upload sent to the web host is scored by the worker host, the board
the web host serves shows it, and no file or path of one host turns up on the other.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.db import connection

from leaderboard.api.tokens import create_token
from leaderboard.submissions.models import Submission
from tests.conftest import REPO, require, wait_for
from tests.storage.conftest import bucket  # noqa: F401 (the fixture)
from tests.submissions.helpers import mudi_prediction_csv, mudi_truth_csv, standing_phase_with_truth

pytestmark = [pytest.mark.storage, pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WEB_PORT = 8000


class Relay:
    """A TCP relay in the root namespace: connections to ``listen`` are piped to ``target`` (a service on loopback)."""

    def __init__(self, listen: tuple[str, int], target: tuple[str, int]) -> None:
        self.target = target
        self.server = socket.create_server(listen)
        self.sockets: list[socket.socket] = []
        self.closed = False
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.closed:
            try:
                client, _ = self.server.accept()
            except OSError:  # closed
                return
            try:
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.closed = True
        self.server.close()
        for s in self.sockets:
            s.close()


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


class Host:
    """A network namespace linked to the root namespace by a veth pair: ``address`` inside, ``gateway`` outside."""

    def __init__(self, name: str, subnet: int, folder: Path) -> None:
        self.name = name
        self.address, self.gateway = f"10.253.{subnet}.2", f"10.253.{subnet}.1"
        self.outside, inside = f"{name[:11]}o", f"{name[:11]}i"
        self.folder = folder
        for sub in ("work", "tmp", "var"):
            (folder / sub).mkdir(parents=True)
        ip("netns", "add", name)
        ip("link", "add", self.outside, "type", "veth", "peer", "name", inside)
        ip("link", "set", inside, "netns", name)
        ip("addr", "add", f"{self.gateway}/30", "dev", self.outside)
        ip("link", "set", self.outside, "up")
        ip("-n", name, "addr", "add", f"{self.address}/30", "dev", inside)
        ip("-n", name, "link", "set", inside, "up")
        ip("-n", name, "link", "set", "lo", "up")
        self.processes: list[subprocess.Popen] = []
        self.logs: list[Path] = []

    def env(self, **extra: str) -> dict[str, str]:
        """A machine's environment: its own folders, nothing of this test's process (no VAR_DIR, no pytest)."""
        keep = {"PATH", "LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}
        env = {k: v for k, v in os.environ.items() if k in keep}
        work, var = self.folder / "work", self.folder / "var"
        env.update(
            PYTHONPATH=str(REPO),
            PYTHONUNBUFFERED="1",
            HOME=str(work),
            TMPDIR=str(self.folder / "tmp"),
            VAR_DIR=str(var),
            STATIC_ROOT=str(var / "static"),
            DJANGO_SETTINGS_MODULE="leaderboard.settings",
        )
        (var / "static").mkdir(parents=True, exist_ok=True)
        env.update(extra)
        return env

    def run(self, args: list[str], env: dict[str, str], log_name: str) -> subprocess.Popen:
        log = self.folder / f"{log_name}.log"  # beside, not inside, the host's working folders
        self.logs.append(log)
        process = subprocess.Popen(
            ["ip", "netns", "exec", self.name, *args],
            cwd=self.folder / "work",
            env=env,
            stdout=open(log, "wb"),
            stderr=subprocess.STDOUT,  # noqa: SIM115
            start_new_session=True,
        )
        self.processes.append(process)
        return process

    def log(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in self.logs)

    def files(self) -> list[Path]:
        """Everything the host's processes wrote in their own folders (the static folder aside)."""
        return sorted(
            p
            for sub in ("work", "tmp", "var")
            for p in (self.folder / sub).rglob("*")
            if p.is_file() and "static" not in p.relative_to(self.folder).parts
        )

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=10)
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True)
        subprocess.run(["ip", "link", "del", self.outside], capture_output=True)  # gone with the namespace, usually


def _free_subnet() -> int:
    """A 10.253.N.0/30 no interface of this machine uses yet (another run may have made hosts too)."""
    shown = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True).stdout
    used = {int(part.split(".")[2]) for part in shown.split() if part.startswith("10.253.")}
    return random.choice(sorted(set(range(1, 255)) - used))


@pytest.fixture
def two_hosts(tmp_path, redis_url, postgres, bucket):  # noqa: F811 (the fixture imported above)
    require(os.geteuid() == 0, "making network namespaces needs root")
    require(shutil.which("ip") is not None, "iproute2's ip is not installed")
    tag = uuid.uuid4().hex[:4]
    hosts: list[Host] = []
    relays: list[Relay] = []
    services = {
        "postgres": (
            connection.settings_dict.get("HOST") or "127.0.0.1",
            int(connection.settings_dict.get("PORT") or 5432),
        ),
        "redis": (urlparse(redis_url).hostname or "127.0.0.1", urlparse(redis_url).port or 6379),
        "s3": (urlparse(os.environ["AWS_S3_ENDPOINT_URL"]).hostname, urlparse(os.environ["AWS_S3_ENDPOINT_URL"]).port),
    }
    try:
        for role in ("web", "worker"):
            host = Host(f"lb{role[:3]}{tag}", _free_subnet(), tmp_path / role)
            hosts.append(host)
            for target in services.values():
                relays.append(Relay((host.gateway, target[1]), target))
        yield services, hosts[0], hosts[1]
    finally:
        for host in hosts:
            host.stop()
        for relay in relays:
            relay.close()


def _environment(host: Host, services: dict, bucket_url: str) -> dict[str, str]:  # noqa: F811
    db = connection.settings_dict
    redis_db = urlparse(settings.REDIS_URL).path or "/0"  # this process's database under pytest -n
    return host.env(
        SECRET_KEY="two-hosts-test-" + "k" * 40,
        DEBUG="1",
        ALLOWED_HOSTS=host.address,
        DATABASE_URL=f"postgres://{db['USER']}@{host.gateway}:{services['postgres'][1]}/{db['NAME']}",
        REDIS_URL=f"redis://{host.gateway}:{services['redis'][1]}{redis_db}",
        STORAGE_URL=bucket_url,
        AWS_S3_ENDPOINT_URL=f"http://{host.gateway}:{services['s3'][1]}",
        AWS_ACCESS_KEY_ID=os.environ.get("AWS_ACCESS_KEY_ID", "test"),
        AWS_SECRET_ACCESS_KEY=os.environ.get("AWS_SECRET_ACCESS_KEY", "test"),
        AWS_DEFAULT_REGION=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"),
        SITE_URL=f"http://{host.address}:{WEB_PORT}",
    )


def _multipart(fields: dict[str, str], file_name: str, content: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file_name}"\r\n'
        "Content-Type: text/csv\r\n\r\n".encode()
        + content
        + b"\r\n"
    )
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _get_json(url: str, token: str | None = None):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_an_upload_on_the_web_host_is_scored_by_the_worker_host_through_the_services_alone(
    two_hosts,
    alice,
    bucket,  # noqa: F811
):
    services, web, worker = two_hosts
    standing_phase_with_truth("mudi", mudi_truth_csv())  # the truth goes to the bucket
    token = create_token(alice, "two-hosts", "submit")[1]

    web.run(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "leaderboard.wsgi:application",
            "--bind",
            f"{web.address}:{WEB_PORT}",
            "--workers",
            "1",
            "--access-logfile",
            "-",
        ],
        _environment(web, services, bucket.url),
        "gunicorn",
    )
    worker.run(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "leaderboard",
            "worker",
            "--concurrency=1",
            "--loglevel=INFO",
            "-n",
            f"two-hosts-{uuid.uuid4().hex[:6]}@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        _environment(worker, services, bucket.url),
        "celery",
    )
    site = f"http://{web.address}:{WEB_PORT}"

    def web_answers() -> bool:
        try:
            return urllib.request.urlopen(f"{site}/healthz", timeout=5).status == 200
        except (OSError, urllib.error.HTTPError):
            return False

    wait_for(web_answers, timeout=60, message=f"the web host to answer /healthz:\n{web.log()[-3000:]}")
    wait_for(lambda: "ready." in worker.log(), timeout=90, message=f"the worker host:\n{worker.log()[-3000:]}")
    # The hosts cannot reach each other: only the services' relays are on their links.
    unreachable = subprocess.run(
        ["ip", "netns", "exec", worker.name, "ip", "route", "get", web.address], capture_output=True, text=True
    )
    assert unreachable.returncode != 0 and "unreachable" in unreachable.stderr

    body, content_type = _multipart(
        {"method_name": "TwoHostsNet", "modalities": "graph"}, "predictions.csv", mudi_prediction_csv(wrong=3)
    )
    request = urllib.request.Request(
        f"{site}/api/v1/tasks/mudi/submissions",
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": content_type},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 202
        created = json.loads(response.read())

    submission = Submission.objects.get(pk=created["id"])
    wait_for(
        lambda: Submission.objects.filter(pk=submission.pk, status__in=["scored", "failed"]).exists(),
        timeout=120,
        message=f"the worker host to score it:\n{worker.log()[-3000:]}",
    )
    submission.refresh_from_db()
    assert submission.status == "scored", (submission.error_message, worker.log()[-3000:])
    # Scored there (this test runs no worker of its own).
    assert "Task submissions.score_submission[" in worker.log()
    wait_for(lambda: "succeeded in" in worker.log(), timeout=30, message="the worker host to log the task's end")

    # The web host's board shows it.
    def on_the_board():
        board = _get_json(f"{site}/api/v1/tasks/mudi/leaderboard")
        return json.dumps(board) if "TwoHostsNet" in json.dumps(board) else None

    wait_for(on_the_board, timeout=60, message="the board on the web host to show the submission")

    # Nothing crossed on disk: the upload lives in the bucket under a storage name, not a path.
    assert not submission.file.name.startswith("/")
    assert f"{bucket.prefix}/private/{submission.file.name}" in bucket.keys()
    # Neither host kept a file of its own: no upload, no truth, no temporary copy, no cache.
    assert web.files() == [] and worker.files() == [], (web.files(), worker.files())
    assert str(web.folder) not in worker.log() and str(worker.folder) not in web.log()
    assert str(web.folder) not in json.dumps(created)
