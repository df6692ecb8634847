"""Shared fixtures: the cast, service checks, a real Celery worker, a real browser.

The cast (STYLE.md): alice the researcher, bob her teammate in "Alice Lab",
charlie an outsider, olga the organizer (staff).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests import storage_marker

REPO = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() == "true"
PASSWORD = "correct-horse-battery-staple"


def shared_dir() -> Path:
    return Path(os.environ.get("LEADERBOARD_SHARED_DIR", REPO.parent / "shared")).resolve()


def require(condition: bool, reason: str) -> None:
    """Skip locally when a service or file is missing; fail under CI=true, where it must be there."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def shared_data() -> Path:
    """The ../shared/data folder with the real benchmark files."""
    path = shared_dir() / "data"
    require(path.is_dir(), f"benchmark data folder {path} not found")
    return path


def _port_open(url: str, default_port: int) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or default_port), timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture
def redis_url() -> str:
    from django.conf import settings

    url = settings.REDIS_URL  # this process's database (its own one under pytest -n)
    require(bool(url), "REDIS_URL is not set")
    require(_port_open(url, 6379), f"Redis at {url} is not reachable")
    return url


@pytest.fixture
def postgres(settings) -> None:
    engine = settings.DATABASES["default"]["ENGINE"]
    require("postgresql" in engine, "the suite is not running on PostgreSQL (set DATABASE_URL)")


@pytest.fixture(autouse=True)
def _fresh_rate_limits(settings) -> None:
    """Each test starts with its own rate-limit counters (the cache outlives a test)."""
    settings.RATE_LIMIT_KEY_PREFIX = f"{uuid.uuid4().hex}:"


@pytest.fixture(autouse=True)
def _plotly_validates_every_figure(monkeypatch) -> None:
    """Every chart figure a test builds passes plotly's own validator.

    The site builds figures as plain data (leaderboard.submissions.charts: graph
    objects cost ~50 ms of a cold board page); this is where a misspelt or
    misplaced property is still caught.
    """
    import plotly.graph_objects as go

    from leaderboard.submissions import charts

    plain = charts.Figure.to_plotly_json

    def validated(self):
        data = plain(self)
        go.Figure(data)  # raises ValueError naming the property and what it accepts
        return data

    monkeypatch.setattr(charts.Figure, "to_plotly_json", validated)


@contextlib.contextmanager
def rows_for_the_module(django_db_blocker):
    """Build expensive rows once (in a module- or session-scoped fixture) and roll them back after.

    Inside, the fixture writes to the test database in a transaction that stays open while its
    tests run; each test (with `db`, never `transactional_db`) runs in a savepoint of it, so what a
    test changes is undone after that test and the rows are there, unchanged, for the next.
    """
    from django.db import transaction

    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)


# --- the cast -----------------------------------------------------------------


@pytest.fixture
def alice(db):
    from leaderboard.accounts.services import create_user

    return create_user("alice", "alice@example.org", PASSWORD, email_verified=True)


@pytest.fixture
def bob(db, alice):
    from leaderboard.accounts.models import Membership
    from leaderboard.accounts.services import create_team, create_user

    bob = create_user("bob", "bob@example.org", PASSWORD, email_verified=True)
    lab = create_team(alice, "Alice Lab")
    Membership.objects.create(team=lab, user=bob)
    return bob


@pytest.fixture
def alice_lab(bob):
    from leaderboard.accounts.models import Team

    return Team.objects.get(name="Alice Lab")


@pytest.fixture
def charlie(db):
    from leaderboard.accounts.services import create_user

    return create_user("charlie", "charlie@example.org", PASSWORD, email_verified=True)


@pytest.fixture
def olga(db):
    from leaderboard.accounts.services import create_user

    return create_user("olga", "olga@example.org", PASSWORD, is_staff=True, email_verified=True)


def signup_link(message) -> str:
    """The path of the link that finishes a sign-up, from its mail."""
    import re

    return re.search(r"https?://[^/\s]+(/accounts/signup/confirm/\S+/)", message.body).group(1)


def finish_sign_up(client, message):
    """Open a sign-up mail's link and press its button, as the address's owner would; the POST's response."""
    path = signup_link(message)
    assert client.get(path).status_code == 200
    return client.post(path)


# --- a real Celery worker -------------------------------------------------------


def _database_url(settings_dict: dict) -> str:
    engine = settings_dict["ENGINE"]
    if engine.endswith("sqlite3"):
        return f"sqlite:///{settings_dict['NAME']}"
    user = settings_dict.get("USER") or ""
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{auth}{host}:{port}/{settings_dict['NAME']}"


def process_env(extra_env: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a subprocess (worker, beat, runall) that shares this test's database, broker and files."""
    from django.conf import settings
    from django.db import connection

    env = dict(os.environ)
    # This pytest -n worker's own Redis database and bucket prefix, already derived: not derived once more.
    env.pop("PYTEST_XDIST_WORKER", None)
    for name in ("REDIS_URL", "STORAGE_URL"):
        if getattr(settings, name):
            env[name] = getattr(settings, name)
    env.update(
        {
            "DATABASE_URL": _database_url(connection.settings_dict),
            "VAR_DIR": str(settings.VAR_DIR),
            "MEDIA_ROOT": str(settings.MEDIA_ROOT),
            "PRIVATE_STORAGE_ROOT": str(settings.PRIVATE_STORAGE_ROOT),
            "CELERY_FS_DIR": str(settings.CELERY_FS_DIR),
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
            "PYTHONUNBUFFERED": "1",
        }
    )
    cache = settings.CACHES["default"]
    if cache["BACKEND"].endswith("FileBasedCache"):
        env["CACHE_DIR"] = cache["LOCATION"]
    env.update(extra_env or {})
    return env


class WorkerProcess:
    """A `celery worker` subprocess on the test database and the test broker."""

    def __init__(self, log_path: Path, extra_env: dict[str, str] | None = None) -> None:
        self.log_path = log_path
        env = process_env(extra_env)
        self.name = f"test-{uuid.uuid4().hex[:8]}@%h"
        self._log = open(log_path, "wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "leaderboard",
                "worker",
                "--loglevel=INFO",
                "--concurrency=1",
                "-n",
                self.name,
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=REPO,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.wait_ready()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "ready." in self.log():
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited early:\n{self.log()}")
            time.sleep(0.2)
        raise RuntimeError(f"worker not ready after {timeout}s:\n{self.log()}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Kill the worker and its pool children (its own process group)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()


@pytest.fixture
def worker_factory(transactional_db, tmp_path):
    """Start real worker processes: `worker_factory()` -> WorkerProcess. Stopped after the test."""
    workers: list[WorkerProcess] = []

    def start(**extra_env: str) -> WorkerProcess:
        w = WorkerProcess(tmp_path / f"worker-{len(workers)}.log", extra_env)
        workers.append(w)
        return w

    yield start
    for w in workers:
        w.stop()


@pytest.fixture
def worker(worker_factory):
    """One real Celery worker consuming the test broker (needs committed rows: transactional_db)."""
    return worker_factory()


def wait_for(predicate, timeout: float = 30, interval: float = 0.2, message: str = "condition"):
    """Poll until predicate() is truthy; return its value or fail with a message."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout}s waiting for {message}")


# --- a real browser ---------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
ARTIFACTS = REPO / "test-artifacts"


@pytest.fixture(scope="session")
def browser():
    require(Path(CHROMIUM).exists(), f"{CHROMIUM} is not installed (apt-get install chromium)")
    # Playwright's sync API runs an event loop in this thread; the ORM calls tests
    # make between page actions are still synchronous and safe here.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser, live_server):
    """A fresh browser page; console errors are collected in page.console_errors."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    # Charts are lazy (drawn when scrolled into view); tests that read charts get them all at load.
    # tests/browser/test_lazy_charts_browser.py opens its own context to test the lazy drawing.
    context.add_init_script("window.chartsEager = true;")
    pg = context.new_page()
    pg.console_errors = []
    pg.on("console", lambda msg: msg.type == "error" and pg.console_errors.append(msg.text))
    pg.on("pageerror", lambda exc: pg.console_errors.append(str(exc)))
    pg.set_default_timeout(15_000)
    yield pg
    context.close()


def viewport_screenshot(pg, name: str) -> Path:
    """What the visitor sees in the window (not the whole page), into test-artifacts/.

    Tests never write docs/screenshots/: the ones there were looked at and copied by hand.
    """
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=False)
    return path


def save_screenshot(pg, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    return path


def pytest_sessionfinish(session, exitstatus):
    # Remove this run's private var/test-<pid>/ folder (uploads, broker, SQLite files).
    from django.conf import settings

    if settings.configured and getattr(settings, "TESTING", False):
        var_dir = Path(settings.VAR_DIR)
        if var_dir.name.startswith("test-") and var_dir.parent == REPO / "var":
            shutil.rmtree(var_dir, ignore_errors=True)


@pytest.fixture
def result_emails_sent_at_once(monkeypatch):
    """Run the result e-mail job in-process when it is enqueued (production sends it to the background queue)."""
    from leaderboard.submissions import emails

    monkeypatch.setattr(emails.email_result, "delay", lambda submission_id: emails.email_result(submission_id))


# --- the storage marker (tests/storage_marker.py) ------------------------------------


def pytest_configure(config):
    storage_marker.install()


def pytest_runtest_setup(item):
    storage_marker.touched.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item):
    yield  # the fixtures' own teardown first, whatever is found below
    touched = list(storage_marker.touched)
    storage_marker.touched.clear()
    storage_marker.check(item, touched)
