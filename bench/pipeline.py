"""Submission pipeline latency: upload -> real Celery worker -> scored, timed end to end.

    .venv/bin/python bench/pipeline.py [--small 50] [--big-rows 100000]

Everything lives in a temporary folder (SQLite database, filesystem broker,
private storage) deleted at the end; with REDIS_URL set, the broker is Redis.
Steps:

1. migrate a fresh database, create the standing phases, import truths:
   a synthetic ImDrug HIV truth (3 seeds x 1,000 rows) for the small files and
   the real MUDI test set (../shared/data/mudi/test.csv, 89,417 rows) for the big one;
2. start one real ``celery worker`` (concurrency 1) on that database and broker;
3. warm up (one submission per task, not counted): a long-running web process
   and worker have the parsed truth cached, as in production;
4. upload ``--small`` valid files one after another through the real submit
   view (Django's test client in this process: form validation, private storage,
   quota lock, enqueue on commit) and time each from the POST until the row
   reads ``scored``;
5. the same for one MUDI prediction file of ``--big-rows`` rows (every gold pair
   plus the other orientation of some: valid, with known errors);
6. print median and p95, the baseline measured in the same run (scoring the
   same file in-process with a cached truth: the floor the pipeline adds to) and
   PASS/FAIL for "a 100,000-row file scored within 5 s of upload".
"""

from __future__ import annotations

import argparse
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
TARGET_BIG_SECONDS = 5.0


def configure(tmp: Path) -> dict[str, str]:
    env = {
        "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
        "VAR_DIR": str(tmp / "var"),
        "CACHE_DIR": str(tmp / "cache"),
        "LOG_LEVEL": "WARNING",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
    }
    (tmp / "var").mkdir()
    os.environ.update(env)
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("PYTEST_VERSION", None)
    return dict(os.environ)


def p95(values: list[float]) -> float:
    return _setup.percentile(values, 0.95)


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen:
    return _setup.start_worker(env, log, "bench")


def big_mudi_file(truth_path: Path, rows: int) -> bytes:
    import pandas as pd

    gold = pd.read_csv(truth_path).drop_duplicates(subset=["Drug1", "Drug2"], ignore_index=True)
    ordered = set(zip(gold["Drug1"], gold["Drug2"], strict=True))
    labels = gold["Interaction"].to_numpy(dtype=object).copy()
    labels[::9] = "Antagonism"  # some wrong classes
    frame = pd.DataFrame({"Drug1": gold["Drug1"], "Interaction": labels, "Drug2": gold["Drug2"]})
    reverse = gold[[(b, a) not in ordered for a, b in zip(gold["Drug1"], gold["Drug2"], strict=True)]]
    extra = pd.DataFrame({"Drug1": reverse["Drug2"], "Interaction": reverse["Interaction"], "Drug2": reverse["Drug1"]})
    frame = pd.concat([frame, extra.iloc[: max(0, rows - len(frame))]], ignore_index=True).iloc[:rows]
    return frame.to_csv(index=False).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=50, help="how many small submissions (default 50)")
    parser.add_argument("--big-rows", type=int, default=100_000, help="rows of the big MUDI file (default 100,000)")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    worker = None
    try:
        env = configure(tmp)
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command
        from django.test import Client

        import scoring
        from leaderboard.accounts.services import create_user
        from leaderboard.challenges.demo_truths import demo_truth
        from leaderboard.challenges.models import Phase
        from leaderboard.challenges.services import import_truth, sync_standing_challenges
        from leaderboard.challenges.truth_cache import phase_truth
        from leaderboard.submissions.examples import example_frame
        from leaderboard.submissions.models import Submission

        call_command("migrate", verbosity=0)
        sync_standing_challenges()
        Phase.objects.update(daily_limit=10_000, total_limit=10_000)
        small_phase = Phase.objects.get(task_slug="imdrug-hiv-random")
        import_truth(small_phase, demo_truth(small_phase.task, tmp).path, synthetic=True)
        mudi_path = Path(settings.SHARED_DATA_DIR) / "data" / "mudi" / "test.csv"
        if not mudi_path.is_file():
            raise SystemExit(f"the real MUDI test set is needed: {mudi_path} not found")
        big_phase = Phase.objects.get(task_slug="mudi")
        import_truth(big_phase, mudi_path)
        small_phase.refresh_from_db()
        big_phase.refresh_from_db()

        user = create_user("bench", "bench@example.org", "bench-password-123")
        client = Client()
        client.force_login(user)
        small_file = example_frame(small_phase.task, scoring.test_inputs(small_phase.task, phase_truth(small_phase)))
        small_bytes = small_file.to_csv(index=False).encode()
        big_bytes = big_mudi_file(mudi_path, args.big_rows)
        n_big_rows = big_bytes.count(b"\n") - 1

        worker = start_worker(env, tmp / "worker.log")

        def submit(slug: str, content: bytes) -> float:
            import io

            handle = io.BytesIO(content)
            handle.name = "predictions.csv"
            data = {
                "file": handle,
                "method_name": "bench",
                "uses_external_data": "no",
                "visibility": "public",
                "team": user.personal_team.pk,
                "declare_modalities": ["graph"],
            }
            before = set(Submission.objects.values_list("pk", flat=True))
            started = time.perf_counter()
            response = client.post(f"/tasks/{slug}/submit/", data)
            if response.status_code != 302:
                raise SystemExit(f"upload refused ({response.status_code}): {response.content[:3000]!r}")
            (pk,) = set(Submission.objects.values_list("pk", flat=True)) - before
            while True:
                status = Submission.objects.filter(pk=pk).values_list("status", flat=True).get()
                if status == "scored":
                    return time.perf_counter() - started
                if status == "failed" or time.perf_counter() - started > 120:
                    raise SystemExit(f"submission {pk} ended {status}:\n{(tmp / 'worker.log').read_text()[-3000:]}")
                time.sleep(0.01)

        submit("imdrug-hiv-random", small_bytes)  # warm-up: parses and caches the truths
        submit("mudi", big_bytes)
        small = [submit("imdrug-hiv-random", small_bytes) for _ in range(args.small)]
        big = submit("mudi", big_bytes)

        baseline_small = _time_scoring(small_phase.task, phase_truth(small_phase), small_bytes)
        baseline_big = _time_scoring(big_phase.task, phase_truth(big_phase), big_bytes)
        broker = settings.CELERY_BROKER_URL.split("://")[0]
        print(f"broker: {broker}; database: SQLite (temporary); worker concurrency 1")
        print(
            f"{args.small} small submissions ({len(small_bytes) / 1024:.0f} KB, {len(small_file):,} rows, "
            f"imdrug-hiv-random): upload-to-scored median {statistics.median(small):.3f} s, "
            f"p95 {p95(small):.3f} s, max {max(small):.3f} s"
        )
        print(
            f"  baseline, scoring alone in-process: {baseline_small:.3f} s "
            f"(pipeline median / baseline = {statistics.median(small) / baseline_small:.1f}x)"
        )
        print(
            f"1 big submission ({len(big_bytes) / 1e6:.1f} MB, {n_big_rows:,} rows, mudi, real truth): "
            f"upload-to-scored {big:.3f} s"
        )
        print(
            f"  baseline, scoring alone in-process: {baseline_big:.3f} s (pipeline / baseline = "
            f"{big / baseline_big:.1f}x)"
        )
        verdict = "PASS" if big <= TARGET_BIG_SECONDS else "FAIL"
        print(
            f"{verdict}: {n_big_rows:,}-row file scored {big:.2f} s after upload (target <= {TARGET_BIG_SECONDS:g} s)"
        )
        return 0 if verdict == "PASS" else 1
    finally:
        if worker is not None and worker.poll() is None:
            os.killpg(worker.pid, 15)
            worker.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


def _time_scoring(task, truth, content: bytes) -> float:
    import scoring

    started = time.perf_counter()
    scoring.score_files(task, truth, content)
    return time.perf_counter() - started


if __name__ == "__main__":
    sys.exit(main())
