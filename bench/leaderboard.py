"""Leaderboard speed: seed 5,000 scored submissions on one task, serve them over real HTTP, time it.

    .venv/bin/python bench/leaderboard.py [--task mudi] [--submissions 5000] [--requests 30]

Everything lives in a temporary folder (SQLite database, file cache, collected
static files) that is deleted at the end. Steps:

1. migrate a fresh SQLite database and bulk-insert users, teams, submissions
   and their Result rows with the ORM (no scoring: the numbers are random but
   shaped like the task's real results; 10% of submissions are private);
2. rebuild the boards once (``recompute_phase``), as the worker does after a score;
3. start gunicorn (1 sync worker, DEBUG off) on a free port on 127.0.0.1;
4. request each URL ``--requests`` times and report the median and p90 wall time
   measured by this client on localhost: "warm" requests are served as users get
   them (cache filled by the first request), "cold" ones run after the board's
   version was bumped, so rows and charts are rebuilt from the database every time;
5. print PASS/FAIL against the targets (page < 100 ms, CSV < 300 ms, median of
   warm requests) and, as the baseline measured in the same run, /healthz.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGETS_MS = {"page": 100.0, "csv": 300.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "VAR_DIR": str(tmp / "var"),
            "STATIC_ROOT": str(tmp / "static"),
            "CACHE_DIR": str(tmp / "cache"),
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_hex(32),
            "ALLOWED_HOSTS": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
        }
    )
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    env.pop("PYTEST_VERSION", None)
    return env


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)


def fake_metrics(task, rng) -> dict[str, float]:
    """Random values with the keys (and per-seed keys) a real score of ``task`` stores."""
    from leaderboard.boards.spec import view_spec, views_for

    out: dict[str, float] = {}
    for view in views_for(task):
        spec = view_spec(task, view)
        for key in spec.stored_keys():
            if key.startswith("seed/"):
                continue
            out[key] = float(rng.uniform(0.0, 0.05) if key.endswith(("/std", "/stderr")) else rng.uniform(0.2, 0.9))
        for _, key in spec.seed_keys(spec.metric):
            out[key] = float(rng.uniform(0.2, 0.9))
    for metric in task.metrics:  # every headline metric, as the scorer reports them
        out.setdefault(metric.key, float(rng.uniform(0.2, 0.9)))
    return out


def seed(task_slug: str, n_submissions: int, methods_per_team: int) -> tuple[int, float]:
    """Insert the data; returns (phase id, seconds the board rebuild took)."""
    import datetime as dt

    import django
    import numpy as np

    django.setup()
    import scoring
    from leaderboard.accounts.models import Membership, Team, User
    from leaderboard.boards.recompute import recompute_phase
    from leaderboard.challenges.models import Phase
    from leaderboard.challenges.services import sync_standing_challenges
    from leaderboard.submissions.models import Result, Submission

    sync_standing_challenges()
    phase = Phase.objects.standing().get(task_slug=task_slug)
    task = scoring.get_task(task_slug)
    rng = np.random.default_rng(0)
    n_teams = max(1, n_submissions // methods_per_team)
    users = User.objects.bulk_create(
        [User(username=f"user{i}", email=f"user{i}@example.org", password="!") for i in range(n_teams)]
    )
    teams = Team.objects.bulk_create([Team(name=f"Team {i}", slug=f"team-{i}", personal=True) for i in range(n_teams)])
    Membership.objects.bulk_create(
        [Membership(team=t, user=u, role=Membership.Role.OWNER) for t, u in zip(teams, users, strict=True)]
    )
    start = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    submissions, results = [], []
    choices = next((d.choices for d in task.declarations if d.choices), None)
    for i in range(n_submissions):
        team_index = i % n_teams
        metrics = fake_metrics(task, rng)
        declarations = {}
        if choices:
            declarations = {task.declarations[0].key: sorted(rng.choice(choices, size=1 + i % 2, replace=False))}
        sub = Submission(
            id=uuid.uuid4(),
            phase=phase,
            team=teams[team_index],
            user=users[team_index],
            file_name="predictions.csv",
            sha256="0" * 64,
            method_name=f"Method {i // n_teams}",
            is_public=i % 10 != 0,
            is_baseline=i < 3,
            declarations=declarations,
            status=Submission.Status.SCORED,
            scorer_version=scoring.__version__,
            primary_value=metrics.get(task.primary),
            report={},
        )
        submissions.append(sub)
        results += Result.rows_for(sub, metrics)
    Submission.objects.bulk_create(submissions, batch_size=1000)
    # created_at is auto_now_add: spread the dates afterwards so "best over time" has a history.
    for i, sub in enumerate(submissions):
        sub.created_at = start + dt.timedelta(minutes=7 * i)
    Submission.objects.bulk_update(submissions, ["created_at"], batch_size=1000)
    Result.objects.bulk_create(results, batch_size=5000)
    began = time.perf_counter()
    recompute_phase(phase, enqueue_tests=False)
    return phase.pk, time.perf_counter() - began


def bump_version(phase_id: int) -> None:
    """Make every cached view of the phase unreachable (what a new score does)."""
    from leaderboard.boards.models import Board

    for board in Board.objects.filter(phase_id=phase_id):
        Board.objects.filter(pk=board.pk).update(version=uuid.uuid4())


def fetch(url: str) -> tuple[float, int]:
    began = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as response:
        size = len(response.read())
        assert response.status == 200, (url, response.status)
    return (time.perf_counter() - began) * 1000, size


def measure(url: str, n: int, phase_id: int | None = None) -> dict:
    """Median and p90 of n requests; with phase_id, each request follows a version bump (cold)."""
    times, size = [], 0
    fetch(url)  # first request warms the process (imports, template compilation) and the cache
    for _ in range(n):
        if phase_id is not None:
            bump_version(phase_id)
        elapsed, size = fetch(url)
        times.append(elapsed)
    times.sort()
    return {"median": statistics.median(times), "p90": times[int(0.9 * (len(times) - 1))], "bytes": size}


def wait_until_up(base: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("gunicorn exited early")
        try:
            fetch(base + "/healthz")
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="mudi")
    parser.add_argument("--submissions", type=int, default=5000)
    parser.add_argument("--methods-per-team", type=int, default=2)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-leaderboard-"))
    env = environment(tmp)
    os.environ.update(env)
    sys.path.insert(0, str(REPO))
    server = None
    try:
        print(f"preparing a database in {tmp} ...", flush=True)
        manage(env, "migrate", "--noinput")
        manage(env, "collectstatic", "--noinput")
        began = time.perf_counter()
        phase_id, rebuild = seed(args.task, args.submissions, args.methods_per_team)
        from leaderboard.boards.models import Board, BoardRow

        rows = BoardRow.objects.filter(board__phase_id=phase_id).count()
        boards = Board.objects.filter(phase_id=phase_id).count()
        print(f"seeded {args.submissions} scored submissions on {args.task} in {time.perf_counter() - began:.1f} s; "
              f"board rebuild {rebuild:.2f} s -> {boards} view(s), {rows} rows")  # fmt: skip

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "leaderboard.wsgi",
                "-b",
                f"127.0.0.1:{port}",
                "-w",
                "1",
                "--log-level",
                "warning",
            ],  # fmt: skip
            cwd=REPO,
            env=env,
        )
        wait_until_up(base, server)
        slug = args.task
        urls = {
            "healthz (baseline)": ("/healthz", None),
            "page": (f"/tasks/{slug}/", "page"),
            "page 3, reversed sort": (f"/tasks/{slug}/?sort=-{_second_column(slug)}&page=3", "page"),
            "csv": (f"/tasks/{slug}/leaderboard.csv", "csv"),
            "json": (f"/tasks/{slug}/leaderboard.json", None),
            "benchmarks": ("/benchmarks/", None),
        }
        baseline = None
        failed = False
        print(f"\n{args.requests} requests each, wall time on localhost (ms); cold = board version bumped first")
        print(f"{'url':<28}{'warm median':>12}{'warm p90':>10}{'cold median':>13}{'cold p90':>10}{'KB':>8}  vs target")
        for name, (path, target) in urls.items():
            warm = measure(base + path, args.requests)
            cold = measure(base + path, args.requests, phase_id) if target else None
            if baseline is None:
                baseline = warm["median"]
            verdict = ""
            if target:
                ok = warm["median"] < TARGETS_MS[target]
                failed |= not ok
                verdict = f"{'PASS' if ok else 'FAIL'} (< {TARGETS_MS[target]:.0f} ms warm)"
                verdict += f", cold {'PASS' if cold['median'] < TARGETS_MS[target] else 'over'}"
            cold_text = f"{cold['median']:>13.1f}{cold['p90']:>10.1f}" if cold else f"{'':>13}{'':>10}"
            print(f"{name:<28}{warm['median']:>12.1f}{warm['p90']:>10.1f}{cold_text}{warm['bytes'] / 1024:>8.0f}"
                  f"  {verdict}  ({warm['median'] / baseline:.1f}x healthz)")  # fmt: skip
        print("\nRESULT:", "FAIL" if failed else "PASS")
        return 1 if failed else 0
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def _second_column(slug: str) -> str:
    import scoring
    from leaderboard.boards.spec import view_spec

    return view_spec(scoring.get_task(slug)).columns[1].key


if __name__ == "__main__":
    raise SystemExit(main())
