"""Run the web server, two scoring workers, a background worker and Celery beat together in the foreground.

This is what ``make run`` ends with. Each child's output is printed with a name
prefix; the URL and the demo login are printed once the web server answers.
Scoring has workers of its own: ``worker`` consumes the queue of small uploads, ``large`` the
queue of large and compressed ones (then the small one); the background worker (``bg``) runs
board, statistics, e-mail and chore jobs. Ctrl-C or SIGTERM stops all five;
if any one of them exits, the others are stopped too, so a broken worker never hides behind a working web server. If
runall itself dies without a chance to stop them (SIGKILL, a crash, a harness
stopping its process group), the kernel sends each child SIGTERM
(``PR_SET_PDEATHSIG``), so no orphan keeps the port.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection

from leaderboard.ops.demo import DEMO_USERNAME, demo_login_exists, demo_password

# How long each child gets to shut down cleanly after SIGTERM before it is killed.
STOP_TIMEOUT_SECONDS = 15


# From <linux/prctl.h>: deliver a signal to this process when its parent dies.
PR_SET_PDEATHSIG = 1


def _load_libc() -> ctypes.CDLL | None:
    """libc for ``prctl``, loaded in the parent so a forked child only calls into it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None


def die_with_parent(libc: ctypes.CDLL | None = None):
    """A ``preexec_fn`` making the child receive SIGTERM when runall dies, however it dies.

    SIGTERM rather than SIGKILL so the Celery worker still stops its own pool
    processes (its grandchildren) on the way out. If runall died between the fork
    and the ``prctl`` call, the child would never get the signal, so it checks
    its parent and stops itself.
    """
    libc = libc or _load_libc()
    parent = os.getpid()

    def preexec() -> None:
        if libc is not None:
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def site_url_for(addr: str, port: int) -> str:
    """The address a browser on this machine uses for a server listening on ``addr:port``."""
    host = "127.0.0.1" if addr in {"0.0.0.0", "::", ""} else addr
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


def child_env(addr: str, port: int) -> dict[str, str]:
    """The environment of web, worker and beat.

    Children must agree with this process on where local state lives, whatever
    decided it here (VAR_DIR set or derived), so the resolved folders are passed on.
    ``SITE_URL`` (the host of links in emails and exports) follows ``--port`` unless
    it was set explicitly, e.g. to a public address in front of this server.
    """
    env = dict(os.environ)
    env.update(
        {
            "VAR_DIR": str(settings.VAR_DIR),
            "CELERY_FS_DIR": str(settings.CELERY_FS_DIR),
            "MEDIA_ROOT": str(settings.MEDIA_ROOT),
            "PRIVATE_STORAGE_ROOT": str(settings.PRIVATE_STORAGE_ROOT),
            "PYTHONUNBUFFERED": "1",
        }
    )
    if not os.environ.get("SITE_URL"):
        env["SITE_URL"] = site_url_for(addr, port)
    return env


class Command(BaseCommand):
    help = "Run web (runserver), a scoring and a background Celery worker and beat in the foreground; Ctrl-C stops all."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--addr", default="127.0.0.1", help="Address the web server listens on.")
        parser.add_argument(
            "--port",
            type=int,
            default=int(os.environ.get("PORT") or 8000),
            help="Port the web server listens on (default: $PORT, else 8000); links in emails follow it.",
        )
        parser.add_argument(
            "--concurrency",
            type=int,
            default=2,
            help="Scoring processes: N-1 for small uploads (at least 1), 1 for large ones.",
        )

    def handle(self, *args, addr: str, port: int, concurrency: int, **options) -> None:
        self._lock = threading.Lock()
        self._stop = threading.Event()
        url = f"http://{addr}:{port}/"
        children = self._start_children(self._commands(addr, port, concurrency), child_env(addr, port))

        def request_stop(signum, frame) -> None:
            self._stop.set()

        signal.signal(signal.SIGINT, request_stop)
        signal.signal(signal.SIGTERM, request_stop)
        threading.Thread(target=self._announce_when_up, args=(addr, port, url), daemon=True).start()

        exit_code = 0
        while not self._stop.is_set():
            for name, proc in children.items():
                if proc.poll() is not None:
                    self._say(f"{name} exited with code {proc.returncode}; stopping the others.")
                    exit_code = 1
                    self._stop.set()
                    break
            self._stop.wait(0.5)

        self._say("Stopping web, workers and beat...")
        self._stop_children(children)
        self._say("All stopped.")
        if exit_code:
            sys.exit(exit_code)

    def _commands(self, addr: str, port: int, concurrency: int) -> dict[str, list[str]]:
        manage = str(Path(settings.BASE_DIR) / "manage.py")
        celery = [sys.executable, "-m", "celery", "-A", "leaderboard"]
        gossipless = []
        if settings.CELERY_BROKER_URL.startswith("filesystem://"):
            # The filesystem transport has no broadcast exchange for these worker-to-worker chats.
            gossipless = ["--without-gossip", "--without-mingle"]
        small, large, background = settings.SCORING_QUEUE, settings.SCORING_LARGE_QUEUE, settings.BACKGROUND_QUEUE
        return {
            "web": [sys.executable, manage, "runserver", f"{addr}:{port}", "--noreload"],
            # Scoring has worker processes of its own, so an upload never waits behind board work; large
            # and compressed uploads have theirs, which also help with small ones when idle.
            "worker": [
                *celery,
                "worker",
                "--loglevel=INFO",
                "-n",
                "scoring@%h",
                "-Q",
                small,
                f"--concurrency={max(1, concurrency - 1)}",
                *gossipless,
            ],  # fmt: skip
            "large": [
                *celery,
                "worker",
                "--loglevel=INFO",
                "-n",
                "large@%h",
                "-Q",
                f"{large},{small}",
                "--concurrency=1",
                *gossipless,
            ],  # fmt: skip
            "bg": [
                *celery,
                "worker",
                "--loglevel=INFO",
                "-n",
                "background@%h",
                "-Q",
                background,
                "--concurrency=1",
                *gossipless,
            ],
            "beat": [*celery, "beat", "--loglevel=INFO", f"--schedule={settings.CELERY_BEAT_SCHEDULE_FILENAME}"],
        }

    def _start_children(self, commands: dict[str, list[str]], env: dict[str, str]) -> dict[str, subprocess.Popen]:
        Path(settings.CELERY_BEAT_SCHEDULE_FILENAME).parent.mkdir(parents=True, exist_ok=True)
        children = {}
        preexec = die_with_parent()
        # All children are forked before any relay thread starts: a preexec_fn is only
        # safe to run in a process that had a single thread when it forked.
        for name, command in commands.items():
            # A session of its own: Ctrl-C reaches only runall, which then stops each child in order.
            children[name] = subprocess.Popen(
                command,
                cwd=settings.BASE_DIR,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=preexec,
            )
        for name, proc in children.items():
            threading.Thread(target=self._relay, args=(name, proc), daemon=True).start()
        return children

    def _relay(self, name: str, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None  # started with stdout=PIPE
        for raw in iter(proc.stdout.readline, b""):
            self._say(raw.decode(errors="replace").rstrip(), prefix=name)

    def _say(self, line: str, prefix: str = "runall") -> None:
        with self._lock:
            self.stdout.write(f"{prefix:>6} | {line}")
            self.stdout.flush()

    def _announce_when_up(self, addr: str, port: int, url: str) -> None:
        deadline = time.monotonic() + 120
        while not self._stop.is_set() and time.monotonic() < deadline:
            try:
                with socket.create_connection((addr, port), timeout=1):
                    break
            except OSError:
                time.sleep(0.3)
        else:
            return
        lines = [f"The site is up: {url}", f"Health: {url}healthz"]
        try:
            if demo_login_exists():
                lines.append(f"Demo login: {DEMO_USERNAME} / {demo_password()} (may host challenges)")
            lines.append(
                f"Host role for another account: python manage.py grant_host USERNAME, or staff at {url}staff/hosts/"
            )
        finally:
            connection.close()  # this thread's own connection
        lines.append("Press Ctrl-C to stop web, workers and beat.")
        width = max(len(line) for line in lines)
        self._say("=" * width)
        for line in lines:
            self._say(line)
        self._say("=" * width)

    def _stop_children(self, children: dict[str, subprocess.Popen]) -> None:
        for proc in children.values():
            # SIGTERM to the main process only: the Celery worker then stops its own pool
            # (a warm shutdown) instead of having its pool processes shot from outside.
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + STOP_TIMEOUT_SECONDS
        for name, proc in children.items():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self._say(f"{name} did not stop in {STOP_TIMEOUT_SECONDS}s; killing it.")
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
