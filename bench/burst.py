"""A burst of uploads through gunicorn and two Celery workers on PostgreSQL and Redis: none lost, none twice.

    .venv/bin/python bench/burst.py [--uploads 200] [--timeout 600]

On 127.0.0.1 only, with the bench's own services: PostgreSQL
database ``bench_security_burst`` (dropped and created again, dropped at the end) and a
redis-server of its own on a spare port (never the shared one); files in a temporary
folder deleted at the end. Steps:

1. migrate, create the standing phases (limits raised), import a synthetic ImDrug HIV
   truth (3 seeds x 1,000 rows), create 20 verified users with submit tokens;
2. start gunicorn with 4 workers (DEBUG off) and 2 Celery worker processes
   (concurrency 1 each);
3. warm up (8 uploads, not counted: each process parses the truth once);
4. send ``--uploads`` uploads at once through the API (one thread each) and time each
   from its POST to its row's ``finished_at``;
5. print accepted, lost (accepted without a scored row), scored twice (more result
   rows than one scoring writes), throughput, p50/p95 upload-to-scored, and the
   machine's load, and PASS/FAIL for zero lost and zero scored twice.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import _setup

DATABASE = "bench_security_burst"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for the uploads to be scored")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs)")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-burst-"))
    processes = []
    try:
        redis_port = _setup.free_port()
        processes.append(_setup.own_redis(tmp, redis_port))
        env = _setup.environment(tmp, database=DATABASE, redis_url=f"redis://127.0.0.1:{redis_port}/0")
        _setup.fresh_database(DATABASE)
        tokens, content, _ = _setup.prepare_uploads(tmp, 20, prefix="burst")
        port = _setup.free_port()
        base = f"http://127.0.0.1:{port}"
        processes.append(_setup.start_gunicorn(env, tmp / "gunicorn.log", port, workers=4))
        for i in range(2):
            processes.append(_setup.start_worker(env, tmp / f"worker-{i}.log", f"burst-{i}"))
        print(f"machine: {_setup.machine()}")

        warm = _setup.upload_all(base, tokens, content, 8)
        _setup.wait_finished([sid for sid, _, _ in warm if sid], args.timeout)
        print(f"\n{args.uploads} uploads at once through the API (gunicorn -w 4, 2 Celery workers, Redis, PostgreSQL)")
        began = time.monotonic()
        results = _setup.upload_all(base, tokens, content, args.uploads)
        accepted = [r for r in results if r[2] == 202]
        ids = [sid for sid, _, _ in accepted]
        _setup.wait_finished(ids, args.timeout)
        span = time.monotonic() - began
        report = _setup.outcome(ids)
        times = _setup.latencies(accepted)
        statuses = sorted({code for _, _, code in results})
        lost = report["missing_rows"] + report["unfinished"] + report["failed"]
        print(f"  accepted {len(accepted)}/{args.uploads} (HTTP statuses {statuses})")
        print(f"  lost {lost}; scored twice {report['scored_twice']}; scored {report['scored']}; "
              f"retried {report['retried']}")  # fmt: skip
        print(f"  throughput {len(ids) / span:.1f} submissions/s ({span:.1f} s, first POST to last score)")
        p50, p95 = _setup.percentile(times, 0.5), _setup.percentile(times, 0.95)
        print(f"  upload-to-scored p50 {p50:.2f} s, p95 {p95:.2f} s")
        print(f"machine after: {_setup.machine()}")
        good = len(accepted) == args.uploads and lost == 0 and report["scored_twice"] == 0
        print("\nRESULT:", "PASS" if good else "FAIL")
        return 0 if good else 1
    finally:
        _setup.teardown(processes, DATABASE, tmp, keep=args.keep)


if __name__ == "__main__":
    sys.exit(main())
