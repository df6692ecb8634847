"""What the benches that run the real stack share: environment, services, processes, uploads, percentiles.

Used by bench/api.py, bench/pipeline.py, bench/burst.py, bench/faults.py and bench/load.py.
Every process a bench starts is its own session (``start_new_session``), so the bench
stops exactly what it started, by process group, and nothing else. Services are the
bench's own: a PostgreSQL database it drops and creates by name, and (``own_redis``) a
redis-server on a spare port in the bench's temporary folder, never the shared one.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path[:1]:
    sys.path.insert(0, str(REPO))  # before bench/: bench/leaderboard.py would shadow the package
POSTGRES = "postgres://postgres@127.0.0.1:5432"


def reset_postgres(database_url: str, source: str) -> None:
    """Drop and create a bench database, refusing the names CI and the server use (``source``: where it came from)."""
    from urllib.parse import urlparse

    import psycopg

    parsed = urlparse(database_url)
    name = parsed.path.lstrip("/")
    if name in ("", "test", "postgres", "template0", "template1"):
        raise SystemExit(f"refusing to reset the database {name!r}: point {source} at a bench database")
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def environment(tmp: Path, *, database: str | None = None, redis_url: str | None = None, **extra: str) -> dict:
    """The settings of every process of a bench run (DEBUG off, rate limits raised, files under ``tmp``).

    Also applied to this process, which seeds the database and reads the results.
    """
    env = dict(os.environ)
    env.pop("PYTEST_VERSION", None)
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "VAR_DIR": str(tmp / "var"),
            "CACHE_DIR": str(tmp / "cache"),
            "STATIC_ROOT": str(tmp / "static"),
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_hex(32),
            "ALLOWED_HOSTS": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
            "API_RATE_LIMIT": "1000000/minute",
            "API_UPLOAD_RATE_LIMIT": "1000000/minute",
            "MAX_CONCURRENT_UPLOADS": "1000",
            "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        }
    )
    if database:
        env["DATABASE_URL"] = f"{POSTGRES}/{database}"
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(extra)
    (tmp / "var").mkdir(exist_ok=True)
    os.environ.clear()
    os.environ.update(env)
    return env


def fresh_database(name: str) -> None:
    """Drop and create PostgreSQL database ``name`` (the bench's own)."""
    import psycopg

    with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    """A process in its own session (so it is stopped by process group), output to ``log``."""
    return subprocess.Popen(
        args, cwd=REPO, env=env, stdout=open(log, "ab"), stderr=subprocess.STDOUT, start_new_session=True
    )


def wait_for_log(process: subprocess.Popen, log: Path, text: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"{log.name}: not ready:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.1)


def own_redis(tmp: Path, port: int) -> subprocess.Popen:
    """A redis-server of the bench's own on ``port`` (no persistence: a restart loses every message)."""
    log = tmp / f"redis-{port}.log"
    process = start(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(tmp)],
        dict(os.environ),
        log,
    )  # fmt: skip
    wait_for_log(process, log, "Ready to accept connections")
    return process


def start_worker(env: dict, log: Path, name: str, concurrency: int = 1) -> subprocess.Popen:
    process = start(
        [sys.executable, "-m", "celery", "-A", "leaderboard", "worker", "--loglevel=INFO",
         f"--concurrency={concurrency}", "-n", f"{name}@%h", "--without-gossip", "--without-mingle",
         "--without-heartbeat"],
        env,
        log,
    )  # fmt: skip
    wait_for_log(process, log, "ready.")
    return process


def start_beat(env: dict, tmp: Path) -> subprocess.Popen:
    log = tmp / "beat.log"
    return start(
        [sys.executable, "-m", "celery", "-A", "leaderboard", "beat", "--loglevel=INFO",
         "-s", str(tmp / "celerybeat-schedule")],
        env,
        log,
    )  # fmt: skip


def start_gunicorn(env: dict, log: Path, port: int, workers: int = 4) -> subprocess.Popen:
    process = start(
        [sys.executable, "-m", "gunicorn", "leaderboard.wsgi", "-b", f"127.0.0.1:{port}", "-w", str(workers),
         "--timeout", "300", "--log-level", "info"],
        env,
        log,
    )  # fmt: skip
    wait_for_log(process, log, "Booting worker")
    _wait_http(f"http://127.0.0.1:{port}/healthz")
    return process


def _wait_http(url: str, timeout: float = 60) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=5).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"{url} did not answer")


def stop_all(processes: list[subprocess.Popen]) -> None:
    """SIGTERM each started process group, then SIGKILL what is left after 30 s."""
    for process in processes:
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def teardown(processes: list[subprocess.Popen], database: str, tmp: Path, *, keep: bool,
             unmount: Path | None = None) -> None:  # fmt: skip
    """What every bench does last: stop its processes, drop its database, unmount, remove (or keep) its folder."""
    stop_all(processes)
    try:
        from django.db import connections

        connections.close_all()
    except Exception:  # noqa: BLE001 (Django may not be set up)
        pass
    drop_database(database)
    if unmount is not None:
        subprocess.run(["umount", str(unmount)], capture_output=True)
    if keep:
        print(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (a Celery worker's pool processes)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def prepare_uploads(tmp: Path, n_users: int, prefix: str = "bench") -> tuple[list[str], bytes, list]:
    """Migrate, create the standing phases (limits raised), import a synthetic ImDrug HIV truth.

    Returns ``n_users`` verified users' submit tokens, a valid upload for the phase, and the users.
    """
    import django

    django.setup()
    from django.core.management import call_command

    import scoring
    from leaderboard.accounts.services import create_user
    from leaderboard.api.tokens import create_token
    from leaderboard.challenges.demo_truths import demo_truth
    from leaderboard.challenges.models import Phase
    from leaderboard.challenges.services import import_truth, sync_standing_challenges
    from leaderboard.challenges.truth_cache import phase_truth
    from leaderboard.submissions.examples import example_frame

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)  # DEBUG is off: pages need the manifest
    sync_standing_challenges()
    Phase.objects.update(daily_limit=100_000, total_limit=100_000, concurrent_limit=None)
    phase = Phase.objects.get(task_slug="imdrug-hiv-random")
    import_truth(phase, demo_truth(phase.task, tmp).path, synthetic=True)
    phase.refresh_from_db()
    upload = example_frame(phase.task, scoring.test_inputs(phase.task, phase_truth(phase))).to_csv(index=False)
    tokens, users = [], []
    for i in range(n_users):
        user = create_user(f"{prefix}-{i}", f"{prefix}-{i}@example.org", secrets.token_urlsafe(16), email_verified=True)
        tokens.append(create_token(user, "bench", "submit")[1])
        users.append(user)
    return tokens, upload.encode(), users


UPLOAD_PATH = "/api/v1/tasks/imdrug-hiv-random/submissions"


def upload_all(base: str, tokens: list[str], content: bytes, n: int) -> list[tuple[str, float, int]]:
    """n uploads at once through the API; (submission id or "", wall-clock start, status) each."""
    import httpx

    results: list[tuple[str, float, int]] = [("", 0.0, 0)] * n
    barrier = threading.Barrier(n)

    def one(i: int) -> None:
        with httpx.Client(base_url=base, timeout=300) as client:
            barrier.wait()
            began = time.time()
            try:
                response = client.post(
                    UPLOAD_PATH,
                    headers={"Authorization": f"Bearer {tokens[i % len(tokens)]}"},
                    data={"method_name": f"bench-{i}"},
                    files={"file": ("predictions.csv", content, "text/csv")},
                )
            except httpx.HTTPError:
                results[i] = ("", began, 0)
                return
            sid = response.json().get("id", "") if response.status_code == 202 else ""
            results[i] = (sid, began, response.status_code)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def wait_finished(ids: list[str], timeout: float) -> int:
    """Wait until every row is scored or failed; the number finished."""
    from django.db import close_old_connections

    from leaderboard.submissions.models import Submission

    deadline = time.monotonic() + timeout
    done = 0
    while time.monotonic() < deadline:
        close_old_connections()
        try:
            done = Submission.objects.filter(pk__in=ids, status__in=["scored", "failed"]).count()
        except Exception:  # noqa: BLE001 (a fault bench drops this connection too: ask again)
            from django.db import connection

            connection.close()
            time.sleep(0.5)
            continue
        if done == len(ids):
            return done
        time.sleep(0.5)
    return done


def outcome(ids: list[str]) -> dict:
    """Every accepted upload's end: scored (once: one set of result rows), or failed with a reason, not charged."""
    from django.db.models import Count

    from leaderboard.submissions.models import Result, Submission

    rows = {str(s.pk): s for s in Submission.objects.filter(pk__in=ids)}
    results = dict(Result.objects.filter(submission_id__in=ids).values_list("submission_id").annotate(n=Count("id")))
    counts = sorted({n for n in results.values()})
    scored = [s for s in rows.values() if s.status == "scored"]
    failed = [s for s in rows.values() if s.status == "failed"]
    expected = counts[0] if counts else 0
    return {
        "accepted": len(ids),
        "missing_rows": len(ids) - len(rows),
        "scored": len(scored),
        "failed": len(failed),
        "failed_without_reason": sum(1 for s in failed if not s.error_message),
        "failed_reasons": sorted({f"{s.error_kind}: {s.error_message[:60]}" for s in failed}),
        "charged_failures": Submission.objects.charged().filter(pk__in=[s.pk for s in failed]).count(),
        "unfinished": len(rows) - len(scored) - len(failed),
        "scored_twice": sum(1 for s in scored if results.get(s.pk, 0) > expected),
        "attempts_max": max((s.attempts for s in rows.values()), default=0),
        "retried": sum(1 for s in rows.values() if s.attempts > 1),
    }


def latencies(accepted: list[tuple[str, float, int]]) -> list[float]:
    from leaderboard.submissions.models import Submission

    rows = Submission.objects.filter(pk__in=[a[0] for a in accepted]).values_list("pk", "finished_at")
    finished = {str(pk): at for pk, at in rows}
    return [finished[sid].timestamp() - began for sid, began, _ in accepted if finished.get(sid)]


def machine() -> str:
    """One line about the machine and its load when the numbers were taken."""
    load = os.getloadavg()
    return f"{os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min)"
