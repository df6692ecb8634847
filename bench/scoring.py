"""Benchmark the scoring package against baselines measured in the same run.

Run: ``.venv/bin/python bench/scoring.py [--repeat 3] [--rows 100000] [--seeds 10] [--skip-bootstrap]``

(a) MUDI: the real test set (../shared/data/mudi/test.csv) scored against itself,
    both settings; reading reported separately from align + metrics.
(b) ChemicalX: a synthetic submission (seeds x rows, prediction rows shuffled)
    scored end to end, compared with (1) pandas merely reading the truth and
    prediction files and (2) a straightforward pandas-merge + scikit-learn
    implementation of the same metrics; peak memory of our run in a subprocess.
(c) Paired bootstrap (the compare page): two synthetic ChemicalX submissions of
    10 splits x 76,724 rows (DrugbankDDI's test size), 1000 resamples; wall and
    CPU time, against the previous weight-matrix implementation measured on
    --baseline-resamples resamples and scaled to 1000.

Prints a table with PASS/FAIL per target. Timings are the best of --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring import load_truth, score_files  # noqa: E402
from scoring.aligned import PairAligned, PairSeed  # noqa: E402
from scoring.api import align  # noqa: E402
from scoring.metrics import compute, curves  # noqa: E402
from scoring.readers import load_raw, parse_rows  # noqa: E402
from scoring.registry import get_task  # noqa: E402
from scoring.significance import paired_bootstrap  # noqa: E402

KEY = ["seed", "drug_1", "drug_2", "context"]
MUDI_TARGET_SECONDS = 0.3
READ_RATIO_TARGET = 5.0
SKLEARN_SPEEDUP_TARGET = 2.0
MEMORY_TARGET_MB = 1024
BOOTSTRAP_TARGET_SECONDS = 3.0
BOOTSTRAP_SPLITS = 10
BOOTSTRAP_ROWS = 76_724  # DrugbankDDI: 383,616 triples, 20% test
BOOTSTRAP_RESAMPLES = 1000


def shared_dir() -> Path:
    return Path(os.environ.get("LEADERBOARD_SHARED_DIR", REPO.parent / "shared")).resolve()


def best_of(repeat: int, fn) -> tuple[float, object]:
    """Best wall time of ``repeat`` calls and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def bench_mudi(repeat: int) -> list[tuple[str, str, str, str]]:
    path = shared_dir() / "data" / "mudi" / "test.csv"
    if not path.is_file():
        return [("MUDI test set", "missing", f"{path} not found", "SKIP")]
    task = get_task("mudi")
    read_truth_s, truth = best_of(repeat, lambda: load_truth(task, path))

    def read_prediction():
        raw = load_raw(path, what="prediction file")
        raw.header = tuple({"interaction": "label"}.get(h, h) for h in raw.header)
        return parse_rows(raw, categorical=list(raw.header), numeric=[])

    read_pred_s, _ = best_of(repeat, read_prediction)
    align_s, aligned = best_of(repeat, lambda: align(task, truth, path))
    metrics_s, result = best_of(repeat, lambda: compute(task, aligned))
    matching_s = max(align_s - read_pred_s, 0.0)
    total = matching_s + metrics_s
    ok = result.metrics["aware/macro/f1"] == 1.0 and result.metrics["agnostic/macro/f1"] == 1.0
    return [
        ("MUDI read truth", f"{read_truth_s:.3f} s", "reported", "-"),
        ("MUDI read prediction", f"{read_pred_s:.3f} s", "reported", "-"),
        ("MUDI validate+align (excl. read)", f"{matching_s:.3f} s", "reported", "-"),
        ("MUDI metrics, both settings", f"{metrics_s:.3f} s", "reported", "-"),
        (
            "MUDI align+metrics",
            f"{total:.3f} s",
            f"< {MUDI_TARGET_SECONDS} s",
            "PASS" if total < MUDI_TARGET_SECONDS and ok else "FAIL",
        ),
    ]


def make_chemicalx_files(folder: Path, rows: int, seeds: int, rng: np.random.Generator) -> tuple[Path, Path]:
    """Synthetic truth and a shuffled prediction with ``rows`` distinct triples per seed."""
    drugs = np.array([f"CID{i:06d}" for i in range(2000)], dtype=object)
    contexts = np.array([f"CELL_LINE_{i}" for i in range(120)], dtype=object)
    space = len(drugs) * len(drugs) * len(contexts)
    parts = []
    for seed in range(seeds):
        # Draw extra candidates and keep `rows` distinct ones: triples are unique within a seed.
        keys = np.unique(rng.integers(0, space, int(rows * 1.1) + 10))[:rows]
        keys = rng.permutation(keys)
        d1, rest = np.divmod(keys, len(drugs) * len(contexts))
        d2, ctx = np.divmod(rest, len(contexts))
        parts.append(pd.DataFrame({"seed": seed, "drug_1": drugs[d1], "drug_2": drugs[d2], "context": contexts[ctx]}))
    truth = pd.concat(parts, ignore_index=True)
    truth["label"] = rng.integers(0, 2, len(truth))
    prediction = truth[KEY].sample(frac=1.0, random_state=int(rng.integers(1 << 31))).reset_index(drop=True)
    # Scores correlated with the label so the metrics are not trivially 0.5.
    merged = prediction.merge(truth, on=KEY, how="left")
    prediction["prediction"] = np.clip(0.3 * merged["label"].to_numpy() + 0.7 * rng.random(len(merged)), 0, 1)
    truth_path, pred_path = folder / "truth.csv", folder / "prediction.csv"
    truth.to_csv(truth_path, index=False)
    prediction.to_csv(pred_path, index=False, float_format="%.6f")
    return truth_path, pred_path


def sklearn_baseline(truth_path: Path, pred_path: Path) -> dict[str, float]:
    """The straightforward implementation: pandas read + merge, scikit-learn metrics per seed."""
    from sklearn.metrics import auc, f1_score, precision_recall_curve, roc_auc_score

    truth = pd.read_csv(truth_path)
    prediction = pd.read_csv(pred_path)
    merged = truth.merge(prediction, on=KEY, how="left", validate="many_to_one")
    per_seed = []
    for _, group in merged.groupby("seed"):
        y, p = group["label"].to_numpy(), group["prediction"].to_numpy()
        precision, recall, _ = precision_recall_curve(y, p)
        per_seed.append((roc_auc_score(y, p), auc(recall, precision), f1_score(y, p > 0.5)))
    means = np.mean(per_seed, axis=0)
    return {"auroc": float(means[0]), "aupr": float(means[1]), "f1": float(means[2])}


def peak_memory_mb(truth_path: Path, pred_path: Path) -> float:
    """Peak resident memory of scoring the files in a fresh interpreter (ru_maxrss, MB)."""
    code = (
        "import resource, sys; sys.path.insert(0, sys.argv[1]);"
        "from scoring import score_files;"
        "score_files('chemicalx-drugcomb', sys.argv[2], sys.argv[3]);"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(REPO), str(truth_path), str(pred_path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip()) / 1024  # Linux reports KiB


def bench_chemicalx(rows: int, seeds: int, repeat: int) -> list[tuple[str, str, str, str]]:
    rng = np.random.default_rng(20240601)
    task = get_task("chemicalx-drugcomb")
    with tempfile.TemporaryDirectory() as folder:
        truth_path, pred_path = make_chemicalx_files(Path(folder), rows, seeds, rng)
        read_s, _ = best_of(repeat, lambda: (pd.read_csv(truth_path), pd.read_csv(pred_path)))
        ours_s, score = best_of(repeat, lambda: score_files(task, truth_path, pred_path))
        cached_truth = load_truth(task, truth_path)
        cached_s, _ = best_of(repeat, lambda: score_files(task, cached_truth, pred_path))
        aligned = align(task, cached_truth, pred_path)
        metrics_s, _ = best_of(repeat, lambda: compute(task, aligned))
        sklearn_s, reference = best_of(repeat, lambda: sklearn_baseline(truth_path, pred_path))
        memory = peak_memory_mb(truth_path, pred_path)
    agree = all(abs(score.metrics[k] - reference[k]) < 1e-9 for k in reference)
    n = rows * seeds
    read_ratio = ours_s / read_s
    speedup = sklearn_s / ours_s
    return [
        (f"ChemicalX {n:,} rows: pandas read_csv x2", f"{read_s:.3f} s", "baseline", "-"),
        ("ChemicalX ours end to end", f"{ours_s:.3f} s", "reported", "-"),
        ("ChemicalX ours, truth cached", f"{cached_s:.3f} s", "reported", "-"),
        ("ChemicalX ours, metrics alone", f"{metrics_s:.3f} s", "reported", "-"),
        ("ChemicalX pandas merge + sklearn", f"{sklearn_s:.3f} s", "baseline", "-"),
        (
            "ours / read_csv",
            f"{read_ratio:.2f}x",
            f"<= {READ_RATIO_TARGET:g}x",
            _verdict(read_ratio <= READ_RATIO_TARGET),
        ),
        (
            "sklearn / ours (speed-up)",
            f"{speedup:.2f}x",
            f">= {SKLEARN_SPEEDUP_TARGET:g}x",
            _verdict(speedup >= SKLEARN_SPEEDUP_TARGET),
        ),
        ("metrics agree with sklearn (1e-9)", str(agree), "True", _verdict(agree)),
        (
            "peak memory (ours, subprocess)",
            f"{memory:.0f} MB",
            f"< {MEMORY_TARGET_MB} MB",
            _verdict(memory < MEMORY_TARGET_MB),
        ),
    ]


def bootstrap_submissions(rows: int, splits: int, rng: np.random.Generator) -> tuple[PairAligned, PairAligned]:
    """Two aligned submissions on the same labels, B slightly worse than A; scores with 6 decimals (some ties)."""
    seeds_a, seeds_b = {}, {}
    for split in range(splits):
        y = rng.integers(0, 2, rows).astype(np.int8)
        context = rng.integers(0, 86, rows).astype(np.int32)
        seeds_a[split] = PairSeed(y, np.round(np.clip(0.30 * y + 0.70 * rng.random(rows), 0, 1), 6), context)
        seeds_b[split] = PairSeed(y, np.round(np.clip(0.28 * y + 0.72 * rng.random(rows), 0, 1), 6), context)
    names = tuple(f"context {i}" for i in range(86))
    return PairAligned(seeds_a, names), PairAligned(seeds_b, names)


def previous_bootstrap(a: PairAligned, b: PairAligned, n_resamples: int, seed: int = 0) -> np.ndarray:
    """The implementation this replaced: per split, (chunk, n) float weight matrices fed to WeightedRocAuc."""
    rng = np.random.default_rng(seed)
    diff = np.zeros(n_resamples)
    for split in sorted(a.seeds):
        y, n = a.seeds[split].y_true, len(a.seeds[split].y_true)
        metric_a = curves.WeightedRocAuc(y, a.seeds[split].score)
        metric_b = curves.WeightedRocAuc(y, b.seeds[split].score)
        chunk = max(1, 2_000_000 // n)
        for start in range(0, n_resamples, chunk):
            stop = min(n_resamples, start + chunk)
            picks = rng.integers(0, n, size=(stop - start, n))
            weights = np.empty((stop - start, n))
            for row in range(stop - start):
                weights[row] = np.bincount(picks[row], minlength=n)
            diff[start:stop] += metric_a(weights) - metric_b(weights)
    return diff / len(a.seeds)


def bench_bootstrap(repeat: int, baseline_resamples: int) -> list[tuple[str, str, str, str]]:
    task = get_task("chemicalx-drugbankddi")
    a, b = bootstrap_submissions(BOOTSTRAP_ROWS, BOOTSTRAP_SPLITS, np.random.default_rng(7))
    cpu_start = time.process_time()
    wall_s, result = best_of(repeat, lambda: paired_bootstrap(task, a, b, n_resamples=BOOTSTRAP_RESAMPLES))
    cpu_s = (time.process_time() - cpu_start) / repeat
    again = paired_bootstrap(task, a, b, n_resamples=BOOTSTRAP_RESAMPLES)
    start = time.perf_counter()
    previous_bootstrap(a, b, baseline_resamples)
    previous_s = (time.perf_counter() - start) * BOOTSTRAP_RESAMPLES / baseline_resamples
    label = f"{BOOTSTRAP_SPLITS} x {BOOTSTRAP_ROWS:,} rows, {BOOTSTRAP_RESAMPLES} resamples"
    return [
        (
            f"Bootstrap {label}",
            f"{wall_s:.2f} s",
            f"< {BOOTSTRAP_TARGET_SECONDS:g} s",
            _verdict(wall_s < BOOTSTRAP_TARGET_SECONDS),
        ),
        ("Bootstrap CPU time (all threads)", f"{cpu_s:.2f} s", "reported", "-"),
        (
            f"Bootstrap previous implementation (x{BOOTSTRAP_RESAMPLES // baseline_resamples} of {baseline_resamples})",
            f"{previous_s:.1f} s",
            "baseline",
            "-",
        ),
        ("previous / ours (speed-up)", f"{previous_s / wall_s:.1f}x", "reported", "-"),
        ("Bootstrap deterministic for a seed", str(again == result), "True", _verdict(again == result)),
        ("Bootstrap p-value (A better than B)", f"{result.p_value:.4f}", "reported", "-"),
    ]


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000, help="ChemicalX rows per seed (default 100,000)")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument(
        "--baseline-resamples",
        type=int,
        default=50,
        help="resamples timed for the previous bootstrap implementation (scaled to 1000; default 50)",
    )
    parser.add_argument("--skip-bootstrap", action="store_true", help="leave out section (c)")
    parser.add_argument("--json", action="store_true", help="also print the table as JSON")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="print each target's verdict but exit 0 (the smoke run's sizes are too small for the targets)",
    )
    args = parser.parse_args(argv)

    table = bench_mudi(args.repeat) + bench_chemicalx(args.rows, args.seeds, args.repeat)
    if not args.skip_bootstrap:
        table += bench_bootstrap(args.repeat, args.baseline_resamples)
    header = ("measure", "value", "target", "result")
    widths = [max(len(str(row[i])) for row in [header, *table]) for i in range(4)]
    for row in [header, *table]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)))
    if args.json:
        print(json.dumps([dict(zip(header, row, strict=True)) for row in table]))
    return 1 if any(row[3] == "FAIL" for row in table) and not args.report_only else 0


if __name__ == "__main__":
    sys.exit(main())
