"""Faults during a burst of uploads: every submission ends scored exactly once, or failed with a reason, not charged.

    .venv/bin/python bench/faults.py [--uploads 120] [--timeout 480] [--fault all|pool|worker|redis|database|disk]

On 127.0.0.1 only, with the bench's own services: PostgreSQL
database ``bench_security_faults`` (dropped and created again, dropped at the end), a
redis-server of its own on a spare port, and (as root) a 64 MB tmpfs of its own for the
storage. Only processes this bench started are signalled; only connections to its own
database are terminated. gunicorn -w 4, 2 Celery workers (concurrency 1) and Celery beat
(the sweep, every 60 s) run with a short lease (hard time limit 60 s + 5 s margin) and
re-send after 15 s, so recovery fits in minutes. While the burst is being scored:

1. SIGKILL of a worker's pool process (the parent starts a new one);
2. SIGKILL of a whole worker (its process group), restarted 3 s later;
3. a Redis restart (SIGKILL, then a new server on the same port: every message is lost);
4. ``pg_terminate_backend`` of every connection to the bench's database (result writes included);
5. a full disk: the storage tmpfs filled, 10 uploads sent, the space freed, 10 more sent.

``--fault`` runs one of them alone (its own counts: docs/operations.md runs each so); the
default runs all five in one burst. Then it waits (bounded) for every accepted upload to
finish, with no operator action, and prints: scored, failed (with reasons; charged
failures must be 0), lost, scored twice, and the answers to the uploads sent while the
disk was full.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import _setup

DATABASE = "bench_security_faults"


def log(began: float, message: str) -> None:
    print(f"  [{time.monotonic() - began:6.1f} s] {message}", flush=True)


def mount_tmpfs(path: Path, megabytes: int) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return False
    command = ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(path)]
    result = subprocess.run(command, capture_output=True)
    return result.returncode == 0


def fill(path: Path) -> Path:
    filler = path / "filler.bin"
    with open(filler, "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * (1024 * 1024))
                handle.flush()
        except OSError:
            pass
    return filler


def terminate_connections() -> int:
    import psycopg

    with psycopg.connect(f"{_setup.POSTGRES}/postgres", autocommit=True) as connection:
        rows = connection.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [DATABASE],
        ).fetchall()
    return len(rows)


FAULTS = ("pool", "worker", "redis", "database", "disk")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=120)
    parser.add_argument("--timeout", type=float, default=480, help="seconds to wait for every upload to finish")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs)")
    parser.add_argument("--fault", choices=FAULTS + ("all",), default="all", help="run one fault alone")
    args = parser.parse_args()

    def want(fault: str) -> bool:
        return args.fault in ("all", fault)

    tmp = Path(tempfile.mkdtemp(prefix="bench-faults-"))
    storage = tmp / "storage"
    mounted = mount_tmpfs(storage, 64)
    processes: list[subprocess.Popen] = []
    try:
        redis_port = _setup.free_port()
        redis = _setup.own_redis(tmp, redis_port)
        env = _setup.environment(
            tmp,
            database=DATABASE,
            redis_url=f"redis://127.0.0.1:{redis_port}/0",
            MEDIA_ROOT=str(storage / "media"),
            PRIVATE_STORAGE_ROOT=str(storage / "private"),
            CELERY_TASK_TIME_LIMIT="60",
            CELERY_TASK_SOFT_TIME_LIMIT="50",
            SUBMISSION_LEASE_MARGIN_SECONDS="5",
            SWEEP_REQUEUE_AFTER_SECONDS="15",
        )
        _setup.fresh_database(DATABASE)
        tokens, content, _ = _setup.prepare_uploads(tmp, 20, prefix="faults")
        port = _setup.free_port()
        base = f"http://127.0.0.1:{port}"
        processes.append(_setup.start_gunicorn(env, tmp / "gunicorn.log", port, workers=4))
        workers = [_setup.start_worker(env, tmp / f"worker-{i}.log", f"faults-{i}") for i in range(2)]
        processes += workers
        processes.append(_setup.start_beat(env, tmp))
        print(f"machine: {_setup.machine()}; storage on {'a 64 MB tmpfs' if mounted else 'the local disk'}")
        warm = _setup.upload_all(base, tokens, content, 4)
        _setup.wait_finished([sid for sid, _, _ in warm if sid], 120)

        print(f"\n{args.uploads} uploads at once, with faults while they are scored:")
        began = time.monotonic()
        burst: list = []
        sender = threading.Thread(target=lambda: burst.extend(_setup.upload_all(base, tokens, content, args.uploads)))
        sender.start()

        time.sleep(3)
        if want("pool"):
            pool = _setup.children(workers[0].pid)
            if pool:
                os.kill(pool[0], signal.SIGKILL)
            log(began, f"1. SIGKILL of worker 0's pool process {pool[:1]}")
            time.sleep(3)
        if want("worker"):
            os.killpg(workers[1].pid, signal.SIGKILL)
            workers[1].wait(timeout=30)
            log(began, "2. SIGKILL of worker 1's process group")
            time.sleep(3)
            workers[1] = _setup.start_worker(env, tmp / "worker-1b.log", "faults-1b")
            processes.append(workers[1])
            log(began, "   worker 1 started again")
            time.sleep(3)
        if want("redis"):
            os.killpg(redis.pid, signal.SIGKILL)
            redis.wait(timeout=30)
            log(began, "3. Redis killed")
            time.sleep(2)
            redis = _setup.own_redis(tmp, redis_port)
            log(began, "   Redis started again on the same port (empty)")
            time.sleep(3)
        if want("database"):
            n = terminate_connections()
            log(began, f"4. pg_terminate_backend of {n} connections to {DATABASE}")
        sender.join()
        accepted = [r for r in burst if r[2] == 202]
        log(began, f"   burst sent: {len(accepted)} accepted, statuses {sorted({r[2] for r in burst})}")

        full_statuses, after_statuses = [], []
        if mounted and want("disk"):
            filler = fill(storage)
            log(began, "5. storage tmpfs full")
            full = _setup.upload_all(base, tokens, content, 10)
            full_statuses = sorted(r[2] for r in full)
            accepted += [r for r in full if r[2] == 202]
            filler.unlink()
            log(began, f"   10 uploads while full: statuses {full_statuses}; space freed")
            after = _setup.upload_all(base, tokens, content, 10)
            after_statuses = sorted(r[2] for r in after)
            accepted += [r for r in after if r[2] == 202]
            log(began, f"   10 uploads after: statuses {after_statuses}")
        elif want("disk"):
            log(began, "5. full disk skipped: not root, or tmpfs could not be mounted")

        ids = [sid for sid, _, _ in accepted]
        done = _setup.wait_finished(ids, args.timeout)
        log(began, f"{done} of {len(ids)} accepted uploads finished, no operator action")
        report = _setup.outcome(ids)
        lost = report["missing_rows"] + report["unfinished"]
        print(f"\n  fault: {args.fault}; sent {len(burst) + len(full_statuses) + len(after_statuses)}, "
              f"accepted {len(ids)}, scored once {report['scored'] - report['scored_twice']}, "
              f"scored twice {report['scored_twice']}, lost {lost}, "
              f"failed not charged {report['failed'] - report['charged_failures']}")  # fmt: skip
        print(f"  scored {report['scored']}, failed {report['failed']} (charged {report['charged_failures']}, "
              f"without a reason {report['failed_without_reason']}), lost {lost}, "
              f"scored twice {report['scored_twice']}, retried {report['retried']} "
              f"(most attempts {report['attempts_max']})")  # fmt: skip
        for reason in report["failed_reasons"]:
            print(f"    failed: {reason}")
        server_errors = sum(1 for r in burst if r[2] >= 500 or r[2] == 0)
        print(f"  uploads answered 5xx or not at all during the faults: {server_errors}")
        print(f"machine after: {_setup.machine()}")
        good = (
            lost == 0
            and report["scored_twice"] == 0
            and report["charged_failures"] == 0
            and report["failed_without_reason"] == 0
        )
        print("\nRESULT:", "PASS" if good else "FAIL")
        return 0 if good else 1
    finally:
        started = processes + [redis] if "redis" in locals() else processes
        _setup.teardown(started, DATABASE, tmp, keep=args.keep, unmount=storage if mounted else None)


if __name__ == "__main__":
    sys.exit(main())
