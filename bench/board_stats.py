"""Board statistics after a new leader: marks, matrix and intervals at 5,000 to 100,000 entries.

    .venv/bin/python bench/board_stats.py [--sizes 5000,20000,100000] [--task chemicalx-twosides]
        [--database-url postgres://postgres@127.0.0.1:5432/bench_board_stats] [--leaders 7]

Each size runs in its own child process on a fresh database: a temporary SQLite file, or the
PostgreSQL database named by ``--database-url``, dropped and created again (so never point it at
a database you need; ``test`` and ``postgres`` are refused). The child:

1. bulk-inserts ``size`` scored submissions of one task, one team each, with per-seed values
   shaped like real results (means drawn from a Beta(2, 5) spread over [0.5, 0.8], so the
   top of the board is a thin tail, and seeds within 0.01 of their mean); for a single-seed
   task (``--task mudi``) each also gets its stored bootstrap replicates;
2. builds the boards once (``recompute_phase``: every row's interval and mark);
3. times ``--leaders`` times a new leader: one submission just above the current leader is
   stored and ``update_board`` (marks and intervals) plus ``matrix.refresh_phase`` (the
   top-10 matrix) run, as the worker does; the cache warm-up is not counted;
4. times an ordinary update (a score far down the board) the same way, for the ratio.

It prints, per size, the median and worst new-leader refresh (the whole board update plus the
matrix), the part of it that is the new leader's own statistics (re-marking and the matrix), the
ordinary update, the ratio of the two updates, and how many rows the new leader re-marked (the
rows within reach of the old or new leader; the rest of the board is not read). The target: the
marks and the matrix under 200 ms (median) at every size.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import _setup  # noqa: E402  (bench/ helpers; puts the repository first on sys.path)

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path[:1]:
    sys.path.insert(0, str(REPO))


def environment(tmp: Path, database_url: str | None) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("DATABASE_URL", "REDIS_URL", "PYTEST_VERSION", "CELERY_BROKER_URL", "STORAGE_URL"):
        env.pop(name, None)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "VAR_DIR": str(tmp / "var"),
            "CACHE_DIR": str(tmp / "cache"),
            "CELERY_FS_DIR": str(tmp / "broker"),
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_hex(32),
            "ALLOWED_HOSTS": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
        }
    )
    if database_url:
        env["DATABASE_URL"] = database_url
    return env




# --- the child: one database, one size ------------------------------------------------------------


class Seeder:
    def __init__(self, task_slug: str, rng) -> None:
        import scoring
        from leaderboard.challenges.models import Phase
        from leaderboard.challenges.services import sync_standing_challenges

        sync_standing_challenges()
        self.phase = Phase.objects.standing().get(task_slug=task_slug)
        self.task = scoring.get_task(task_slug)
        self.rng = rng
        self.count = 0

    def metrics(self, mean: float) -> dict[str, float]:
        from leaderboard.boards.spec import direction_spec, directions_for
        from scoring import keys

        out: dict[str, float] = {}
        for direction in directions_for(self.task):
            spec = direction_spec(self.task, direction)
            for key in spec.stored_keys():
                if not key.startswith("seed/"):
                    out[key] = mean
        seeds = [float(mean + self.rng.normal(0, 0.01)) for _ in self.task.seeds] if len(self.task.seeds) > 1 else []
        for seed, value in zip(self.task.seeds, seeds, strict=False):
            out[keys.seed_key(seed, self.task.primary)] = value
        if seeds:
            out[self.task.primary] = float(sum(seeds) / len(seeds))
        return out

    def add(self, means: list[float]) -> list:
        import datetime as dt

        import numpy as np

        import scoring
        from leaderboard.accounts.models import Team, User
        from leaderboard.submissions.models import ReplicateSet, Result, Submission
        from scoring import replicates as stats

        n = len(means)
        start = self.count
        self.count += n
        users = User.objects.bulk_create(
            [User(username=f"u{i}", email=f"u{i}@example.org", password="!") for i in range(start, start + n)]
        )
        teams = Team.objects.bulk_create(
            [Team(name=f"Team {i}", slug=f"team-{i}", personal=True) for i in range(start, start + n)]
        )
        epoch = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
        subs, results, sets = [], [], []
        bootstrap = stats.uses_bootstrap(self.task)
        for k, (mean, team, user) in enumerate(zip(means, teams, users, strict=True)):
            values = self.metrics(mean)
            sub = Submission(
                id=uuid.uuid4(), phase=self.phase, team=team, user=user, file_name="predictions.csv", sha256="0" * 64,
                method_name=f"Method {start + k}", is_public=True, status=Submission.Status.SCORED,
                scorer_version=scoring.__version__, primary_value=values.get(self.task.primary), report={},
            )  # fmt: skip
            subs.append(sub)
            results += Result.rows_for(sub, values)
            if bootstrap:  # stored replicates as the worker writes them: 1,000 resamples around the value
                for metric in self.task.kind_def.ranking_metrics(self.task):
                    noise = self.rng.normal(0, 0.01, stats.N_RESAMPLES)
                    reps = stats.Replicates(metric, values[metric], values[metric] + noise, 1, 7)
                    interval = stats.percentile_interval(reps.values)
                    sets.append(
                        ReplicateSet(
                            submission=sub, metric=metric, observed=reps.observed, sums=reps.to_bytes(), n_units=1,
                            seed=7, low=interval[0] if interval else None, high=interval[1] if interval else None,
                            reach=stats.replicate_reach(reps), version=stats.REPLICATES_VERSION,
                        )
                    )  # fmt: skip
        Submission.objects.bulk_create(subs, batch_size=2000)
        for k, sub in enumerate(subs):
            sub.created_at = epoch + dt.timedelta(minutes=start + k)
        Submission.objects.bulk_update(subs, ["created_at"], batch_size=2000)
        Result.objects.bulk_create(results, batch_size=5000)
        ReplicateSet.objects.bulk_create(sets, batch_size=500)
        del np
        return subs


def child(size: int, task: str, leaders: int) -> dict:
    import django

    django.setup()
    import numpy as np
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", "--noinput", verbosity=0)
    from leaderboard.boards import matrix, recompute
    from leaderboard.boards.models import Board, BoardRow
    from leaderboard.boards.recompute import recompute_phase, update_board

    rng = np.random.default_rng(size)
    seeder = Seeder(task, rng)
    began = time.perf_counter()
    seeder.add(list(0.5 + 0.3 * rng.beta(2, 5, size)))
    out: dict = {"backend": connection.vendor, "size": size, "task": task, "seed_s": time.perf_counter() - began}
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    began = time.perf_counter()
    recompute_phase(seeder.phase)
    matrix.refresh_phase(seeder.phase.pk)
    out["rebuild_ms"] = (time.perf_counter() - began) * 1000
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    recompute._warm = lambda boards: None  # the cache warm-up is timed by bench/leaderboard.py, not here

    rewritten: list[int] = []
    statistics_ms: list[float] = []  # the new leader's own work: re-marking (``_remark``) and the matrix
    real_remark = recompute._remark

    def counting_remark(*args, **kwargs):
        t = time.perf_counter()
        remarked = real_remark(*args, **kwargs)
        statistics_ms.append((time.perf_counter() - t) * 1000)
        rewritten.append(len(remarked))
        return remarked

    recompute._remark = counting_remark

    def refresh(sub) -> float:
        t = time.perf_counter()
        update_board(seeder.phase, sub.pk)
        m = time.perf_counter()
        matrix.refresh_phase(seeder.phase.pk)
        statistics_ms.append((time.perf_counter() - m) * 1000)
        return (time.perf_counter() - t) * 1000

    board = Board.objects.filter(phase=seeder.phase).first()
    new_leader, band, marks_and_matrix = [], [], []
    for _ in range(leaders):
        best = BoardRow.objects.filter(board=board).order_by("quality", "tail").values_list("value", flat=True)[0]
        (sub,) = seeder.add([best + 0.002])
        rewritten.clear()
        statistics_ms.clear()
        new_leader.append(refresh(sub))
        band.append(sum(rewritten))
        marks_and_matrix.append(sum(statistics_ms))
    ordinary = [refresh(seeder.add([0.45])[0]) for _ in range(leaders)]
    out.update(
        new_leader_ms=statistics.median(new_leader),
        new_leader_max_ms=max(new_leader),
        marks_matrix_ms=statistics.median(marks_and_matrix),
        ordinary_ms=statistics.median(ordinary),
        rows_remarked=statistics.median(band),
        rows_in_reach=BoardRow.objects.filter(board=board).exclude(p_value=None).count(),
    )
    out["ratio"] = out["new_leader_ms"] / out["ordinary_ms"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="5000,20000,100000")
    parser.add_argument("--task", default="chemicalx-twosides")
    parser.add_argument("--leaders", type=int, default=7, help="new leaders timed per size")
    parser.add_argument("--database-url", default="", help="a PostgreSQL bench database (dropped and created)")
    parser.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.task, args.leaders)))
        return 0
    header = (
        f"{'backend':<11}{'task':<20}{'entries':>8}{'new leader ms':>15}{'worst':>8}{'marks+matrix':>13}"
        f"{'ordinary ms':>13}{'ratio':>7}{'re-marked':>11}{'rows with p':>12}"
    )
    print(header, flush=True)
    results = []
    for size in [int(s) for s in args.sizes.split(",") if s]:
        with tempfile.TemporaryDirectory(prefix="board-stats-") as folder:
            tmp = Path(folder)
            url = args.database_url or f"sqlite:///{tmp / 'bench.sqlite3'}"
            if args.database_url:
                _setup.reset_postgres(args.database_url, "--database-url")
            command = [sys.executable, __file__, "--child", str(size), "--task", args.task]
            command += ["--leaders", str(args.leaders)]
            done = subprocess.run(
                command, env=environment(tmp, url), cwd=REPO, capture_output=True, text=True, check=False
            )
            if done.returncode:
                print(done.stderr[-3000:], file=sys.stderr)
                return done.returncode
            r = json.loads(done.stdout.strip().splitlines()[-1])
            results.append(r)
        print(
            f"{r['backend']:<11}{r['task']:<20}{r['size']:>8}{r['new_leader_ms']:>15.1f}{r['new_leader_max_ms']:>8.1f}"
            f"{r['marks_matrix_ms']:>13.1f}{r['ordinary_ms']:>13.1f}{r['ratio']:>7.2f}{r['rows_remarked']:>11.0f}"
            f"{r['rows_in_reach']:>12}",
            flush=True,
        )
    slow = [r["size"] for r in results if r["marks_matrix_ms"] >= 200]
    print("target (marks and matrix, median under 200 ms at every size):", f"missed at {slow}" if slow else "met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
