"""50 simulated users browsing boards and submitting for 2 minutes (locust, headless): requests/s, p95 per page.

    .venv/bin/python bench/load.py [--users 50] [--minutes 2]

On 127.0.0.1 only, with the bench's own services: PostgreSQL
database ``bench_security_load`` (dropped and created again, dropped at the end) and a
redis-server of its own on a spare port. gunicorn -w 4 and 2 Celery workers
(concurrency 1); 40 uploads are scored first so the ImDrug HIV board has entries.
Then locust (run as a subprocess, headless, from this script) starts ``--users`` users
at 10 per second; each, with 1-3 s between actions, opens the home page, the
benchmarks page, a board (HTML, CSV or JSON), the challenge list, a submission page
or the API's board, and one in ten actions uploads a file through the API. A 429
(a quota or rate limit doing its job) is counted apart; any 5xx is a failure. Prints
requests per second, p50/p95 per page, the 5xx count and PASS/FAIL for zero 5xx.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import _setup

DATABASE = "bench_security_load"

LOCUSTFILE = r"""
import json, os, random
from locust import HttpUser, between, task

TOKENS = json.loads(os.environ["BENCH_TOKENS"])
SUBMISSIONS = json.loads(os.environ["BENCH_SUBMISSIONS"])
UPLOAD = open(os.environ["BENCH_UPLOAD"], "rb").read()


class Visitor(HttpUser):
    wait_time = between(1, 3)

    def on_start(self):
        self.token = random.choice(TOKENS)

    def get(self, url, name):
        with self.client.get(url, name=name, catch_response=True) as response:
            if response.status_code >= 500 or response.status_code == 0:
                response.failure(f"{response.status_code}")
            else:
                response.success()

    @task(3)
    def board(self):
        self.get("/tasks/imdrug-hiv-random/", "board")

    @task(1)
    def board_sorted(self):
        self.get("/tasks/imdrug-hiv-random/?sort=-team&page=2", "board sorted, page 2")

    @task(1)
    def board_csv(self):
        self.get("/tasks/imdrug-hiv-random/leaderboard.csv", "board CSV")

    @task(1)
    def board_json(self):
        self.get("/tasks/imdrug-hiv-random/leaderboard.json", "board JSON")

    @task(2)
    def home(self):
        self.get("/", "home")

    @task(2)
    def benchmarks(self):
        self.get("/benchmarks/", "benchmarks")

    @task(1)
    def challenges(self):
        self.get("/challenges/", "challenges")

    @task(2)
    def submission(self):
        self.get(f"/submissions/{random.choice(SUBMISSIONS)}/", "submission page")

    @task(1)
    def api_board(self):
        self.get("/api/v1/tasks/imdrug-hiv-random/leaderboard", "API board")

    @task(1)
    def submit(self):
        with self.client.post(
            "/api/v1/tasks/imdrug-hiv-random/submissions",
            name="API upload",
            headers={"Authorization": f"Bearer {self.token}"},
            data={"method_name": "load"},
            files={"file": ("predictions.csv", UPLOAD, "text/csv")},
            catch_response=True,
        ) as response:
            if response.status_code >= 500 or response.status_code == 0:
                response.failure(f"{response.status_code}")
            else:
                response.success()
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--minutes", type=float, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs)")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-load-"))
    processes: list[subprocess.Popen] = []
    try:
        redis_port = _setup.free_port()
        processes.append(_setup.own_redis(tmp, redis_port))
        env = _setup.environment(tmp, database=DATABASE, redis_url=f"redis://127.0.0.1:{redis_port}/0")
        _setup.fresh_database(DATABASE)
        tokens, content, _ = _setup.prepare_uploads(tmp, args.users, prefix="load")
        port = _setup.free_port()
        base = f"http://127.0.0.1:{port}"
        processes.append(_setup.start_gunicorn(env, tmp / "gunicorn.log", port, workers=4))
        for i in range(2):
            processes.append(_setup.start_worker(env, tmp / f"worker-{i}.log", f"load-{i}"))
        seeded = _setup.upload_all(base, tokens, content, 40)
        submissions = [sid for sid, _, _ in seeded if sid]
        _setup.wait_finished(submissions, 300)
        print(f"machine: {_setup.machine()}")

        (tmp / "locustfile.py").write_text(LOCUSTFILE)
        (tmp / "upload.csv").write_bytes(content)
        locust_env = {
            **env,
            "BENCH_TOKENS": json.dumps(tokens),
            "BENCH_SUBMISSIONS": json.dumps(submissions),
            "BENCH_UPLOAD": str(tmp / "upload.csv"),
        }
        seconds = int(args.minutes * 60)
        print(f"\nlocust: {args.users} users (10 started per second) for {seconds} s against {base}")
        subprocess.run(
            [sys.executable, "-m", "locust", "-f", str(tmp / "locustfile.py"), "--headless", "-u", str(args.users),
             "-r", "10", "-t", f"{seconds}s", "--host", base, "--csv", str(tmp / "stats"), "--only-summary",
             "--loglevel", "WARNING"],
            env=locust_env, cwd=tmp, timeout=seconds + 120, capture_output=True,
        )  # fmt: skip
        with open(tmp / "stats_stats.csv") as handle:
            rows = list(csv.DictReader(handle))
        server_errors = 0
        if (tmp / "stats_failures.csv").exists():
            with open(tmp / "stats_failures.csv") as handle:
                server_errors = sum(int(r["Occurrences"]) for r in csv.DictReader(handle))
        print(f"  {'page':<24} {'requests':>9} {'p50 ms':>8} {'p95 ms':>8} {'5xx':>5}")
        total = None
        for row in rows:
            if row["Name"] == "Aggregated":
                total = row
                continue
            print(f"  {row['Name']:<24} {row['Request Count']:>9} {row['50%']:>8} {row['95%']:>8} "
                  f"{row['Failure Count']:>5}")  # fmt: skip
        if total:
            print(f"  {'all':<24} {total['Request Count']:>9} {total['50%']:>8} {total['95%']:>8} "
                  f"{total['Failure Count']:>5}")  # fmt: skip
            print(f"  requests per second: {float(total['Requests/s']):.1f}")
        from django.db.models import Count

        from leaderboard.submissions.models import Submission

        counts = dict(Submission.objects.exclude(pk__in=submissions).values_list("status").annotate(n=Count("id")))
        print(f"  uploads during the run: {counts}")
        print(f"machine after: {_setup.machine()}")
        good = total is not None and server_errors == 0 and int(total["Failure Count"]) == 0
        print("\nRESULT:", "PASS" if good else "FAIL")
        return 0 if good else 1
    finally:
        _setup.teardown(processes, DATABASE, tmp, keep=args.keep)


if __name__ == "__main__":
    sys.exit(main())
