"""API throughput and latency: concurrent uploads through /api/v1/ on gunicorn, scored by real workers.

    .venv/bin/python bench/api.py [--uploads 200] [--board-rows 5000] [--requests 30] [--only-get]
                                  [--database api] [--redis-port 0]

``--only-get`` skips the uploads and the Celery workers (steps 3-4): it seeds
the board, starts gunicorn and times only the leaderboard GET and its 304.

Runs on 127.0.0.1 only, on PostgreSQL database ``api`` (``--database``; dropped
and created again) and a redis-server of its own (``--redis-port``, a free port if 0; never a shared
Redis, so nothing is flushed), with uploads and the file cache in a temporary folder deleted at the
end. Steps:

1. migrate, create the standing phases (limits raised), import a synthetic
   ImDrug HIV truth (3 seeds x 1,000 rows) for the uploads, seed ``--board-rows``
   scored MUDI submissions (bench/leaderboard.py's seeding) and rebuild that board;
2. start gunicorn with 4 workers (DEBUG off, rate limits raised) and 2 Celery
   worker processes (concurrency 1 each) on Redis;
3. warm up (8 uploads, not counted: every process parses the truth once);
4. send ``--uploads`` uploads at once (one thread each, 20 tokens) and time each
   from its POST to its row's ``finished_at``; then check zero lost (every 202
   has a row, every row is scored) and zero scored twice (one attempt each);
5. time ``GET /api/v1/tasks/mudi/leaderboard`` and the same with the ETag
   (304), against ``/healthz`` measured in the same run as the baseline;
6. print throughput, p50/p95 upload-to-scored and PASS/FAIL (board < 100 ms,
   304 < 20 ms, medians). Bounded: it gives up after ``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # before bench/: bench/leaderboard.py would shadow the package
DATABASE = "api"
TARGETS_MS = {"board": 100.0, "not_modified": 20.0}
N_TOKENS = 20


def _bench_leaderboard():
    """bench/leaderboard.py as a module (its name clashes with the package)."""
    spec = importlib.util.spec_from_file_location("bench_leaderboard", REPO / "bench" / "leaderboard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def database_url(name: str) -> str:
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def redis_url(port: int) -> str:
    return f"redis://127.0.0.1:{port}/0"


def environment(tmp: Path, database: str, redis_port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTEST_VERSION", None)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "DATABASE_URL": database_url(database),
            "REDIS_URL": redis_url(redis_port),
            "VAR_DIR": str(tmp / "var"),
            "STATIC_ROOT": str(tmp / "static"),
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_hex(32),
            "ALLOWED_HOSTS": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
            "API_RATE_LIMIT": "1000000/minute",
            "API_UPLOAD_RATE_LIMIT": "1000000/minute",
            "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        }
    )
    (tmp / "var").mkdir()
    return env


def fresh_database(database: str) -> None:
    import psycopg
    from psycopg import sql

    name = sql.Identifier(database)
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        connection.execute(sql.SQL("CREATE DATABASE {}").format(name))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def start(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        args, cwd=REPO, env=env, stdout=open(log, "wb"), stderr=subprocess.STDOUT, start_new_session=True
    )


def wait_for_log(process: subprocess.Popen, log: Path, text: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"{log.name}: not ready:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.1)


def prepare(tmp: Path, board_rows: int) -> tuple[list[str], bytes]:
    """Database content; returns the tokens and a valid upload."""
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
    sync_standing_challenges()
    Phase.objects.update(daily_limit=100_000, total_limit=100_000)
    phase = Phase.objects.get(task_slug="imdrug-hiv-random")
    import_truth(phase, demo_truth(phase.task, tmp).path, synthetic=True)
    phase.refresh_from_db()
    upload = example_frame(phase.task, scoring.test_inputs(phase.task, phase_truth(phase))).to_csv(index=False)
    tokens = []
    for i in range(N_TOKENS):
        user = create_user(
            f"api-bench-{i}", f"api-bench-{i}@example.org", secrets.token_urlsafe(16), email_verified=True
        )
        tokens.append(create_token(user, "bench", "submit")[1])
    began = time.perf_counter()
    seed_board("mudi", board_rows)
    print(f"seeded {board_rows:,} scored MUDI submissions and rebuilt the board in {time.perf_counter() - began:.1f} s")
    return tokens, upload.encode()


def seed_board(task_slug: str, n: int) -> None:
    """``n`` scored submissions of ``task_slug`` from n/2 teams (bench/leaderboard.py's seeding), board rebuilt."""
    from leaderboard.boards.recompute import recompute_phase

    seeder = _bench_leaderboard().Seeder(task_slug)
    seeder.people(max(1, n // 2))
    seeder.submissions(0, n)
    recompute_phase(seeder.phase)


def upload_all(base: str, tokens: list[str], content: bytes, n: int) -> list[tuple[str, float, int]]:
    """n uploads at once; (submission id or "", wall-clock start, status) each."""
    import httpx

    results: list[tuple[str, float, int]] = [("", 0.0, 0)] * n
    barrier = threading.Barrier(n)

    def one(i: int) -> None:
        with httpx.Client(base_url=base, timeout=300) as client:
            barrier.wait()
            began = time.time()
            response = client.post(
                "/api/v1/tasks/imdrug-hiv-random/submissions",
                headers={"Authorization": f"Bearer {tokens[i % len(tokens)]}"},
                data={"method_name": f"bench-{i}"},
                files={"file": ("predictions.csv", content, "text/csv")},
            )
            sid = response.json().get("id", "") if response.status_code == 202 else ""
            results[i] = (sid, began, response.status_code)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def wait_scored(ids: list[str], timeout: float) -> None:
    from leaderboard.submissions.models import Submission

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = Submission.objects.filter(pk__in=ids, status__in=["scored", "failed"]).count()
        if done == len(ids):
            return
        time.sleep(0.5)
    print(f"timed out: {done} of {len(ids)} finished")


def timed_gets(url: str, n: int, headers: dict | None = None) -> tuple[float, int]:
    import httpx

    times, status = [], 0
    with httpx.Client(timeout=30) as client:
        for _ in range(n):
            began = time.perf_counter()
            response = client.get(url, headers=headers or {})
            times.append((time.perf_counter() - began) * 1000)
            status = response.status_code
    return statistics.median(times), status


def timed_alternating(requests: list[tuple[str, dict]], n: int) -> list[tuple[float, int]]:
    """(median ms, last status) of each (url, headers), requested in turn n times: both see the same load."""
    import httpx

    times: list[list[float]] = [[] for _ in requests]
    statuses = [0] * len(requests)
    with httpx.Client(timeout=30) as client:
        for _ in range(n):
            for i, (url, headers) in enumerate(requests):
                began = time.perf_counter()
                statuses[i] = client.get(url, headers=headers).status_code
                times[i].append((time.perf_counter() - began) * 1000)
    return [(statistics.median(t), code) for t, code in zip(times, statuses, strict=True)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=200)
    parser.add_argument("--board-rows", type=int, default=5000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for the uploads to be scored")
    parser.add_argument("--only-get", action="store_true", help="no uploads or workers: time the GET and the 304")
    parser.add_argument("--database", default=DATABASE, help="PostgreSQL database to drop and create (default api)")
    parser.add_argument("--redis-port", type=int, default=0, help="its own redis-server's port (0: free)")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-api-"))
    processes: list[subprocess.Popen] = []
    try:
        import _setup

        redis_port = args.redis_port or _setup.free_port()
        processes.append(_setup.own_redis(tmp, redis_port))
        env = environment(tmp, args.database, redis_port)
        os.environ.update(env)
        fresh_database(args.database)
        tokens, content = prepare(tmp, args.board_rows)
        from leaderboard.boards.exports import header  # noqa: F401 (Django is set up: fail early if not)
        from leaderboard.submissions.models import Result, Submission

        port = _bench_leaderboard().free_port()
        base = f"http://127.0.0.1:{port}"
        web_log = tmp / "gunicorn.log"
        processes.append(start([sys.executable, "-m", "gunicorn", "leaderboard.wsgi", "-b", f"127.0.0.1:{port}",
                                "-w", "4", "--timeout", "300", "--log-level", "info"], env, web_log))  # fmt: skip
        for i in range(0 if args.only_get else 2):
            log = tmp / f"worker-{i}.log"
            processes.append(start([sys.executable, "-m", "celery", "-A", "leaderboard", "worker", "--loglevel=INFO",
                                    "--concurrency=1", "-n", f"bench-api-{i}@%h", "--without-gossip",
                                    "--without-mingle", "--without-heartbeat"], env, log))  # fmt: skip
            wait_for_log(processes[-1], log, "ready.")
        wait_for_log(processes[0], web_log, "Booting worker")
        time.sleep(2)

        uploads_ok = True
        if not args.only_get:
            warm = upload_all(base, tokens, content, 8)
            wait_scored([sid for sid, _, _ in warm if sid], args.timeout)
            print(f"\n{args.uploads} concurrent uploads through the API "
                  "(gunicorn -w 4, 2 Celery workers, Redis, PostgreSQL)")  # fmt: skip
            results = upload_all(base, tokens, content, args.uploads)
            accepted = [r for r in results if r[2] == 202]
            ids = [sid for sid, _, _ in accepted]
            wait_scored(ids, args.timeout)
            rows = {str(s.pk): s for s in Submission.objects.filter(pk__in=ids)}
            lost = len(ids) - sum(1 for sid in ids if sid in rows and rows[sid].status == "scored")
            twice = sum(1 for s in rows.values() if s.attempts != 1)
            n_results = Result.objects.filter(submission_id__in=ids).count()
            per_submission = n_results / max(1, len(rows))
            latencies = [
                rows[sid].finished_at.timestamp() - began
                for sid, began, _ in accepted
                if rows.get(sid) and rows[sid].finished_at
            ]
            first = min(began for _, began, _ in accepted)
            last = max(s.finished_at for s in rows.values() if s.finished_at)
            span = last.timestamp() - first
            statuses = sorted({code for _, _, code in results})
            print(f"  accepted {len(accepted)}/{args.uploads} (statuses {statuses}); lost {lost}; "
                  f"scored more than once {twice}; {per_submission:.0f} result rows each")  # fmt: skip
            print(f"  throughput {len(accepted) / span:.1f} submissions/s ({span:.1f} s, first POST to last score)")
            p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
            print(f"  upload-to-scored p50 {p50:.2f} s, p95 {p95:.2f} s")
            uploads_ok = lost == 0 and twice == 0 and len(accepted) == args.uploads

        baseline, _ = timed_gets(f"{base}/healthz", args.requests)
        url = f"{base}/api/v1/tasks/mudi/leaderboard"
        board_ms, board_status = timed_gets(url, args.requests)
        import httpx

        etag = httpx.get(url).headers["ETag"]
        # The same board by its phase URL still loads the phase first (two queries): the comparison, interleaved
        # with the task URL's one-query 304 so that both see the same machine load.
        from leaderboard.challenges.models import Phase

        mudi = Phase.objects.standing().select_related("challenge").get(task_slug="mudi")
        phase_url = f"{base}/api/v1/challenges/{mudi.challenge.slug}/phases/{mudi.slug}/leaderboard"
        phase_etag = httpx.get(phase_url).headers["ETag"]
        (not_modified_ms, nm_status), (phase_304_ms, _) = timed_alternating(
            [(url, {"If-None-Match": etag}), (phase_url, {"If-None-Match": phase_etag})], args.requests
        )
        print(f"\nleaderboard GET, {args.board_rows:,} entries, median of {args.requests} (ms), baseline /healthz "
              f"{baseline:.1f} ms")  # fmt: skip
        ok_board = board_status == 200 and board_ms < TARGETS_MS["board"]
        ok_304 = nm_status == 304 and not_modified_ms < TARGETS_MS["not_modified"]
        print(f"  200 page 1: {board_ms:.1f} ms ({board_ms / baseline:.1f}x healthz)  "
              f"{'PASS' if ok_board else 'FAIL'} (< {TARGETS_MS['board']:.0f} ms)")  # fmt: skip
        print(f"  304 with its ETag: {not_modified_ms:.1f} ms ({not_modified_ms / baseline:.1f}x healthz)  "
              f"{'PASS' if ok_304 else 'FAIL'} (< {TARGETS_MS['not_modified']:.0f} ms)")  # fmt: skip
        print(f"  304 by the phase URL (loads the phase, then the board): {phase_304_ms:.1f} ms "
              f"({phase_304_ms / baseline:.1f}x healthz)")  # fmt: skip
        good = uploads_ok and ok_board and ok_304
        print("\nRESULT:", "PASS" if good else "FAIL")
        return 0 if good else 1
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, 15)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
