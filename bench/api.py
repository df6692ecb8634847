"""API throughput and latency: concurrent uploads through /api/v1/ on gunicorn, scored by real workers.

    .venv/bin/python bench/api.py [--uploads 200] [--board-rows 5000] [--requests 30]

Runs on 127.0.0.1 only, on PostgreSQL database ``api`` (dropped and created
again) and Redis database 7 (flushed), with uploads and the file cache in a
temporary folder deleted at the end. Steps:

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
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _setup

REPO = _setup.REPO
DATABASE = "api"
REDIS_URL = "redis://127.0.0.1:6379/7"
TARGETS_MS = {"board": 100.0, "not_modified": 20.0}
N_TOKENS = 20
percentile = _setup.percentile
start = _setup.start
wait_for_log = _setup.wait_for_log
upload_all = _setup.upload_all


def _bench_leaderboard():
    """bench/leaderboard.py as a module (its name clashes with the package)."""
    spec = importlib.util.spec_from_file_location("bench_leaderboard", REPO / "bench" / "leaderboard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fresh_services() -> None:
    import redis

    _setup.fresh_database(DATABASE)
    redis.Redis.from_url(REDIS_URL).flushdb()


def prepare(tmp: Path, board_rows: int) -> tuple[list[str], bytes]:
    """Database content (bench/_setup.py's uploads phase, plus a seeded MUDI board); the tokens and an upload."""
    tokens, upload, _ = _setup.prepare_uploads(tmp, N_TOKENS, prefix="api-bench")
    from leaderboard.boards.recompute import recompute_phase

    began = time.perf_counter()
    seeder = _bench_leaderboard().Seeder("mudi")
    seeder.people(max(1, board_rows // 2))
    seeder.submissions(0, board_rows)
    recompute_phase(seeder.phase, enqueue_tests=False)
    print(f"seeded {board_rows:,} scored MUDI submissions and rebuilt the board in {time.perf_counter() - began:.1f} s")
    return tokens, upload


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=200)
    parser.add_argument("--board-rows", type=int, default=5000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for the uploads to be scored")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-api-"))
    processes: list[subprocess.Popen] = []
    try:
        env = _setup.environment(tmp, database=DATABASE, redis_url=REDIS_URL)
        fresh_services()
        tokens, content = prepare(tmp, args.board_rows)
        from leaderboard.boards.exports import header  # noqa: F401 (Django is set up: fail early if not)
        from leaderboard.submissions.models import Result, Submission

        port = _setup.free_port()
        base = f"http://127.0.0.1:{port}"
        web_log = tmp / "gunicorn.log"
        processes.append(start([sys.executable, "-m", "gunicorn", "leaderboard.wsgi", "-b", f"127.0.0.1:{port}",
                                "-w", "4", "--timeout", "300", "--log-level", "info"], env, web_log))  # fmt: skip
        for i in range(2):
            log = tmp / f"worker-{i}.log"
            processes.append(start([sys.executable, "-m", "celery", "-A", "leaderboard", "worker", "--loglevel=INFO",
                                    "--concurrency=1", "-n", f"bench-api-{i}@%h", "--without-gossip",
                                    "--without-mingle", "--without-heartbeat"], env, log))  # fmt: skip
            wait_for_log(processes[-1], log, "ready.")
        wait_for_log(processes[0], web_log, "Booting worker")
        time.sleep(2)

        warm = upload_all(base, tokens, content, 8)
        wait_scored([sid for sid, _, _ in warm if sid], args.timeout)
        print(
            f"\n{args.uploads} concurrent uploads through the API (gunicorn -w 4, 2 Celery workers, Redis, PostgreSQL)"
        )
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

        baseline, _ = timed_gets(f"{base}/healthz", args.requests)
        url = f"{base}/api/v1/tasks/mudi/leaderboard"
        board_ms, board_status = timed_gets(url, args.requests)
        import httpx

        etag = httpx.get(url).headers["ETag"]
        not_modified_ms, nm_status = timed_gets(url, args.requests, {"If-None-Match": etag})
        print(f"\nleaderboard GET, {args.board_rows:,} entries, median of {args.requests} (ms), baseline /healthz "
              f"{baseline:.1f} ms")  # fmt: skip
        ok_board = board_status == 200 and board_ms < TARGETS_MS["board"]
        ok_304 = nm_status == 304 and not_modified_ms < TARGETS_MS["not_modified"]
        print(f"  200 page 1: {board_ms:.1f} ms ({board_ms / baseline:.1f}x healthz)  "
              f"{'PASS' if ok_board else 'FAIL'} (< {TARGETS_MS['board']:.0f} ms)")  # fmt: skip
        print(f"  304 with its ETag: {not_modified_ms:.1f} ms ({not_modified_ms / baseline:.1f}x healthz)  "
              f"{'PASS' if ok_304 else 'FAIL'} (< {TARGETS_MS['not_modified']:.0f} ms)")  # fmt: skip
        good = lost == 0 and twice == 0 and len(accepted) == args.uploads and ok_board and ok_304
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
