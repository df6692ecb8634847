"""Leaderboard at scale: one task with 5,000 to 100,000 scored submissions, on SQLite and PostgreSQL.

    .venv/bin/python bench/leaderboard.py [--sizes 5000,20000,100000] [--task mudi] [--chart docs/performance.png]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/boards .venv/bin/python bench/leaderboard.py ...

Each (database, size) runs in its own child process on a fresh database (a
temporary SQLite file; with ``DATABASE_URL`` pointing at PostgreSQL, that
database is dropped and created again, so never point it at a database you
need; ``test`` and ``postgres`` are refused). The child:

1. migrates, bulk-inserts users, teams, submissions (10% private, two methods
   per team) and their Result rows (random numbers shaped like real results);
2. builds the boards once with ``recompute_phase``: the full rebuild, which the
   old design ran after every score ("old: rebuild per score" below); ANALYZE
   after seeding and after the rebuild (autovacuum's job on a live database);
3. stores ``--updates`` new scores one by one and times the worker's
   ``update_board`` for each (the transaction, then the cache warm-up apart);
4. starts gunicorn (1 sync worker, DEBUG off) and measures over HTTP on
   localhost: the time from a score being stored to the board page showing it
   (the score goes into the top ten, the worker update runs in-process as the
   scoring worker does, then the page is polled), the board page warm (cached)
   and cold (board version bumped before each request), the CSV export's time
   to first byte and total, and the compare page with 4 submissions;
5. measures the CSV's peak Python memory (tracemalloc) streamed as the view
   does, and built in memory as the old design did.

Bounded in time: every child has ``--child-timeout`` (default 1,500 s) and the
whole run stops starting new sizes after ``--budget`` seconds (default 3,000).
Results are printed as a table and, with ``--chart``, drawn as a PNG.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import urllib.request
import uuid
from pathlib import Path

import _setup  # noqa: E402  (bench/ helpers; puts the repository first on sys.path)

REPO = Path(__file__).resolve().parent.parent
TARGETS_MS = {"update": 100.0, "visible_p95": 1000.0, "page_cold": 100.0, "csv_first_byte": 100.0}
TARGET_CSV_MB = 100.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment(tmp: Path, database_url: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "VAR_DIR": str(tmp / "var"),
            "STATIC_ROOT": str(tmp / "static"),
            "CACHE_DIR": str(tmp / "cache"),
            "CELERY_FS_DIR": str(tmp / "broker"),
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_hex(32),
            "ALLOWED_HOSTS": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
        }
    )
    for name in ("DATABASE_URL", "REDIS_URL", "PYTEST_VERSION", "CELERY_BROKER_URL", "STORAGE_URL"):
        env.pop(name, None)
    if database_url:
        env["DATABASE_URL"] = database_url
    return env




# --- the child: one database, one size ------------------------------------------------------


def fake_metrics(task, rng) -> dict[str, float]:
    """Random values with the keys (and per-seed keys) a real score of ``task`` stores."""
    from leaderboard.boards.spec import direction_spec, directions_for

    out: dict[str, float] = {}
    for direction in directions_for(task):
        spec = direction_spec(task, direction)
        for key in spec.stored_keys():
            if key.startswith("seed/"):
                continue
            out[key] = float(rng.uniform(0.0, 0.05) if key.endswith(("/std", "/stderr")) else rng.uniform(0.2, 0.9))
        for _, key in spec.seed_keys(spec.metric):
            out[key] = float(rng.uniform(0.2, 0.9))
    for metric in task.metrics:  # every headline metric, as the scorer reports them
        out.setdefault(metric.key, float(rng.uniform(0.2, 0.9)))
    return out


class Seeder:
    def __init__(self, task_slug: str) -> None:
        import numpy as np

        import scoring
        from leaderboard.challenges.models import Phase
        from leaderboard.challenges.services import sync_standing_challenges

        sync_standing_challenges()
        self.phase = Phase.objects.standing().get(task_slug=task_slug)
        self.task = scoring.get_task(task_slug)
        self.rng = np.random.default_rng(0)
        self.choices = next((d.choices for d in self.task.declarations if d.choices), None)
        self.teams: list = []
        self.users: list = []

    def people(self, n_teams: int) -> None:
        from leaderboard.accounts.models import Membership, Team, User

        self.users = User.objects.bulk_create(
            [User(username=f"user{i}", email=f"user{i}@example.org", password="!") for i in range(n_teams)]
        )
        self.teams = Team.objects.bulk_create(
            [Team(name=f"Team {i}", slug=f"team-{i}", personal=True) for i in range(n_teams)]
        )
        pairs = zip(self.teams, self.users, strict=True)
        Membership.objects.bulk_create([Membership(team=t, user=u, role=Membership.Role.OWNER) for t, u in pairs])

    def submissions(self, start: int, count: int, *, method=None, metrics=None, public=None, when=None) -> list:
        """Bulk-insert ``count`` scored submissions (numbers ``start``...) with their results."""
        import datetime as dt

        import scoring
        from leaderboard.submissions.models import Result, Submission

        n_teams = len(self.teams)
        epoch = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
        subs, results = [], []
        for i in range(start, start + count):
            team_index = i % n_teams
            values = metrics or fake_metrics(self.task, self.rng)
            declarations = {}
            if self.choices:
                chosen = self.rng.choice(self.choices, size=1 + i % 2, replace=False)
                declarations = {self.task.declarations[0].key: sorted(str(c) for c in chosen)}
            sub = Submission(
                id=uuid.uuid4(),
                phase=self.phase,
                team=self.teams[team_index],
                user=self.users[team_index],
                file_name="predictions.csv",
                sha256="0" * 64,
                method_name=method or f"Method {i // n_teams}",
                is_public=(i % 10 != 0) if public is None else public,
                is_baseline=i < 3,
                declarations=declarations,
                status=Submission.Status.SCORED,
                scorer_version=scoring.__version__,
                primary_value=values.get(self.task.primary),
                report={},
            )
            subs.append(sub)
            results += Result.rows_for(sub, values)
        Submission.objects.bulk_create(subs, batch_size=2000)
        # created_at is auto_now_add: spread the dates afterwards so "best over time" has a history.
        for i, sub in zip(range(start, start + count), subs, strict=True):
            sub.created_at = when or (epoch + dt.timedelta(minutes=7 * i))
        Submission.objects.bulk_update(subs, ["created_at"], batch_size=2000)
        Result.objects.bulk_create(results, batch_size=5000)
        return subs


def bump_version(phase_id: int) -> None:
    """Make every cached view of the phase unreachable (what a board update does)."""
    from leaderboard.boards.models import Board

    Board.objects.filter(phase_id=phase_id).update(version=uuid.uuid4())


def fetch(url: str) -> tuple[float, float, bytes]:
    """(ms to the first body byte, ms in total, body)."""
    began = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as response:
        first = response.read(1)
        first_at = time.perf_counter()
        body = first + response.read()
        assert response.status == 200, (url, response.status)
    done = time.perf_counter()
    return (first_at - began) * 1000, (done - began) * 1000, body


def median_ms(times: list[float]) -> float:
    return statistics.median(times)


def p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


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


def child(args) -> dict:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", "--noinput", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)

    from leaderboard.boards import exports, recompute
    from leaderboard.boards.models import Board, BoardRow
    from leaderboard.boards.query import Controls
    from leaderboard.boards.recompute import recompute_phase, update_board
    from leaderboard.boards.spec import direction_spec, directions_for

    out: dict = {"backend": connection.vendor, "size": args.size}
    seeder = Seeder(args.task)
    began = time.perf_counter()
    seeder.people(max(1, args.size // 2))
    seeder.submissions(0, args.size)
    out["seed_s"] = time.perf_counter() - began
    with connection.cursor() as cursor:  # fresh statistics, as autovacuum keeps them on a live database
        cursor.execute("ANALYZE")

    began = time.perf_counter()
    recompute_phase(seeder.phase)
    out["rebuild_ms"] = (time.perf_counter() - began) * 1000
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    out["rows"] = BoardRow.objects.filter(board__phase=seeder.phase).count()
    phase_id = seeder.phase.pk

    # Worker time of one update after a new score; the cache warm-up (charts, first page) timed apart.
    warm_times: list[float] = []
    real_warm = recompute._warm

    def timed_warm(boards):
        t = time.perf_counter()
        real_warm(boards)
        warm_times.append((time.perf_counter() - t) * 1000)

    recompute._warm = timed_warm
    totals = []
    for k in range(args.updates):
        (sub,) = seeder.submissions(args.size + k, 1)
        t = time.perf_counter()
        update_board(seeder.phase, sub.pk)
        totals.append((time.perf_counter() - t) * 1000)
    updates = [total - warm for total, warm in zip(totals, warm_times, strict=True)]
    out["update_ms"] = median_ms(updates)
    out["update_p95_ms"] = p95(updates)
    out["warm_ms"] = median_ms(warm_times)
    recompute._warm = real_warm

    spec = direction_spec(seeder.task, directions_for(seeder.task)[0])
    board = Board.objects.get(phase=seeder.phase, direction=spec.key)
    controls = Controls(direction=spec.key, default_direction=spec.key)

    # CSV peak memory: streamed (the view's iterator), and built in memory as the old design did.
    from leaderboard.boards.query import ranked_rows

    tracemalloc.start()
    size = sum(len(chunk) for chunk in exports.export_chunks("csv", board, spec, controls, []))
    out["csv_peak_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    tracemalloc.start()
    body = exports.to_csv(spec, list(ranked_rows(board, controls, [])), controls, exports.truth_of(board))
    out["csv_old_peak_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    out["csv_mb"] = size / 1e6
    del body
    connection.close()

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "leaderboard.wsgi", "-b", f"127.0.0.1:{port}", "-w", "1",
         "--log-level", "warning", "--timeout", "300"],
        cwd=REPO,
    )  # fmt: skip
    try:
        wait_until_up(base, server)
        slug = args.task
        page = f"{base}/tasks/{slug}/"
        fetch(page)
        out["page_warm_ms"] = median_ms([fetch(page)[1] for _ in range(args.requests)])
        cold = []
        for _ in range(args.requests):
            bump_version(phase_id)
            cold.append(fetch(page)[1])
        out["page_cold_ms"] = median_ms(cold)

        # From a score being stored to the page showing it: a top-ten score, the worker's update, then polling.
        visible = []
        for k in range(args.updates):
            tenth = BoardRow.objects.filter(board=board, is_public=True).order_by("quality", "tail")[9:10].get().metrics
            method = f"Fresh {k}"
            value = dict(tenth)
            value[spec.metric] = tenth[spec.metric] + 1e-9
            t = time.perf_counter()
            (sub,) = seeder.submissions(args.size + args.updates + k, 1, method=method, metrics=value, public=True)
            update_board(seeder.phase, sub.pk)
            while method.encode() not in fetch(page)[2]:
                if time.perf_counter() - t > 30:
                    raise SystemExit(f"{method} never appeared on the page")
            visible.append((time.perf_counter() - t) * 1000)
        out["visible_median_ms"] = median_ms(visible)
        out["visible_p95_ms"] = p95(visible)

        csv_url = f"{base}/tasks/{slug}/leaderboard.csv"
        firsts, totals = [], []
        for _ in range(max(3, args.requests // 3)):
            first, total, _ = fetch(csv_url)
            firsts.append(first)
            totals.append(total)
        out["csv_first_byte_ms"] = median_ms(firsts)
        out["csv_total_ms"] = median_ms(totals)

        ids = ",".join(
            str(s)
            for s in BoardRow.objects.filter(board=board, is_public=True)
            .order_by("quality", "tail")
            .values_list("submission_id", flat=True)[:4]
        )
        compare = f"{base}/compare/?ids={ids}"
        fetch(compare)
        out["compare_ms"] = median_ms([fetch(compare)[1] for _ in range(args.requests)])
        out["healthz_ms"] = median_ms([fetch(base + "/healthz")[1] for _ in range(args.requests)])
    finally:
        server.terminate()
        server.wait(timeout=30)
    return out


# --- the parent: every database and size, the table and the chart -----------------------------

COLUMNS = [
    ("backend", "db", "{}"),
    ("size", "submissions", "{:,}"),
    ("rows", "board rows", "{:,}"),
    ("rebuild_ms", "old: rebuild per score ms", "{:,.0f}"),
    ("update_ms", "new: update ms (median)", "{:.1f}"),
    ("warm_ms", "cache warm ms", "{:.1f}"),
    ("visible_p95_ms", "score->page p95 ms", "{:.0f}"),
    ("page_warm_ms", "page warm ms", "{:.1f}"),
    ("page_cold_ms", "page cold ms", "{:.1f}"),
    ("csv_first_byte_ms", "CSV 1st byte ms", "{:.1f}"),
    ("csv_total_ms", "CSV total ms", "{:,.0f}"),
    ("csv_peak_mb", "CSV peak MB", "{:.1f}"),
    ("csv_old_peak_mb", "old CSV peak MB", "{:.1f}"),
    ("compare_ms", "compare ms", "{:.1f}"),
]


def table(results: list[dict]) -> str:
    head = "| " + " | ".join(label for _, label, _ in COLUMNS) + " |"
    rule = "|" + "|".join("---" for _ in COLUMNS) + "|"
    lines = [head, rule]
    for r in results:
        lines.append("| " + " | ".join(fmt.format(r[key]) if key in r else "—" for key, _, fmt in COLUMNS) + " |")
    return "\n".join(lines)


def verdicts(results: list[dict]) -> list[str]:
    out = []
    for r in results:
        checks = [(name, r.get(key), TARGETS_MS[name]) for name, key in (
            ("update", "update_ms"), ("visible_p95", "visible_p95_ms"), ("page_cold", "page_cold_ms"),
            ("csv_first_byte", "csv_first_byte_ms"))]  # fmt: skip
        parts = [f"{name} {'PASS' if v is not None and v < limit else 'FAIL'}" for name, v, limit in checks]
        mem = r.get("csv_peak_mb")
        parts.append(f"csv memory {'PASS' if mem is not None and mem < TARGET_CSV_MB else 'FAIL'}")
        parts.append(f"compare {'PASS' if r.get('compare_ms', 1e9) < 200 else 'FAIL'}")
        out.append(f"{r['backend']} {r['size']:,}: " + ", ".join(parts))
    return out


def chart(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for backend, marker in (("sqlite", "o"), ("postgresql", "s")):
        rows = sorted((r for r in results if r["backend"] == backend), key=lambda r: r["size"])
        if not rows:
            continue
        sizes = [r["size"] for r in rows]
        left.plot(sizes, [r["rebuild_ms"] for r in rows], marker=marker, label=f"old: full rebuild ({backend})")
        left.plot(sizes, [r["update_ms"] for r in rows], marker=marker, label=f"new: one update ({backend})")
        right.plot(sizes, [r["csv_old_peak_mb"] for r in rows], marker=marker, label=f"old: CSV in memory ({backend})")
        right.plot(sizes, [r["csv_peak_mb"] for r in rows], marker=marker, label=f"new: CSV streamed ({backend})")
    left.set(xscale="log", yscale="log", xlabel="scored submissions on the task", ylabel="worker ms after one score")
    left.set_title("Board work after one new score")
    right.set(xscale="log", yscale="log", xlabel="scored submissions on the task", ylabel="peak Python MB")
    right.set_title("CSV export memory")
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="mudi")
    parser.add_argument("--sizes", default="5000,20000,100000")
    parser.add_argument("--updates", type=int, default=20)
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--backends", default="", help="sqlite,postgresql (default: sqlite, plus postgresql if set)")
    parser.add_argument("--chart", type=Path, help="write the chart PNG here")
    parser.add_argument("--json", type=Path, help="write the raw results here")
    parser.add_argument("--child-timeout", type=float, default=1500)
    parser.add_argument("--budget", type=float, default=3000, help="start no new size after this many seconds")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        sys.path.insert(0, str(REPO))
        print("RESULT " + json.dumps(child(args), default=str), flush=True)
        return 0

    database_url = os.environ.get("DATABASE_URL", "")
    backends = args.backends.split(",") if args.backends else ["sqlite"] + (
        ["postgresql"] if database_url.startswith("postgres") else []
    )  # fmt: skip
    sizes = [int(s) for s in args.sizes.split(",")]
    results: list[dict] = []
    started = time.monotonic()
    for size in sizes:
        for backend in backends:
            if time.monotonic() - started > args.budget:
                print(f"budget of {args.budget:.0f} s spent: skipping {backend} {size:,}", flush=True)
                continue
            tmp = Path(tempfile.mkdtemp(prefix="bench-leaderboard-"))
            try:
                url = None
                if backend == "postgresql":
                    _setup.reset_postgres(database_url, "DATABASE_URL")
                    url = database_url
                env = environment(tmp, url)
                (tmp / "var").mkdir(parents=True, exist_ok=True)
                print(f"{backend} {size:,}: running ...", flush=True)
                began = time.monotonic()
                done = subprocess.run(
                    [sys.executable, __file__, "--child", "--size", str(size), "--task", args.task,
                     "--updates", str(args.updates), "--requests", str(args.requests)],
                    cwd=REPO, env=env, capture_output=True, text=True, timeout=args.child_timeout,
                )  # fmt: skip
                line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
                if line is None:
                    print(done.stdout[-2000:], done.stderr[-4000:], sep="\n")
                    continue
                result = json.loads(line[len("RESULT ") :])
                result["wall_s"] = time.monotonic() - began
                results.append(result)
                print(f"  done in {result['wall_s']:.0f} s (seeding {result['seed_s']:.0f} s)", flush=True)
            except subprocess.TimeoutExpired:
                print(f"  {backend} {size:,}: over {args.child_timeout:.0f} s, stopped", flush=True)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    print()
    print(table(results))
    print()
    print("\n".join(verdicts(results)))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    if args.chart and results:
        chart(results, args.chart)
        print(f"chart: {args.chart}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
