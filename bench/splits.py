"""What a public/private split costs, against plain scoring measured in the same run.

Run: ``.venv/bin/python bench/splits.py [--repeat 3] [--keys 1000000]``

(a) MUDI: the real test set (../shared/data/mudi/test.csv) scored against itself with
    ``score_parts`` (a 30/70 hash split: one validation, three metric passes) versus
    ``score_files`` (one pass); and the same with a ``usage`` column written into the truth.
(b) Hashing: ``make_split`` on a synthetic ImDrug truth of --keys distinct keys versus
    ``load_truth`` of that truth (the split is made once per truth and cached by the site).

Prints seconds (best of --repeat) and the ratio to the baseline.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring import SplitSpec, load_split_truth, load_truth, score_files, score_parts  # noqa: E402
from scoring.splits import make_split  # noqa: E402

MUDI = REPO / ".." / "shared" / "data" / "mudi" / "test.csv"


def best(repeat: int, run) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def with_usage(data: bytes, fraction: float) -> bytes:
    lines = data.decode().rstrip("\n").split("\n")
    rng = np.random.default_rng(0)
    flags = np.where(rng.random(len(lines) - 1) < fraction, "public", "private")
    # Both orientations of a pair need the same usage: decide per unordered pair.
    out, seen = [lines[0].rstrip("\r") + ",usage"], {}
    for line, flag in zip(lines[1:], flags, strict=True):
        cells = line.rstrip("\r").split(",")
        pair = tuple(sorted((cells[0], cells[-1])))
        out.append(f"{','.join(cells)},{seen.setdefault(pair, flag)}")
    return ("\n".join(out) + "\n").encode()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keys", type=int, default=1_000_000)
    args = parser.parse_args()
    rows = []
    if MUDI.is_file():
        data = MUDI.read_bytes()
        truth = load_truth("mudi", data)
        spec = SplitSpec.hashed(0.3, 2027)
        split = make_split("mudi", truth, spec)
        plain = best(args.repeat, lambda: score_files("mudi", truth, data))
        parts = best(args.repeat, lambda: score_parts("mudi", truth, data, split))
        rows.append(("MUDI score_parts vs score_files (cached truth)", parts, plain))
        usage = with_usage(data, 0.3)
        load_plain = best(args.repeat, lambda: load_truth("mudi", data))
        load_usage = best(args.repeat, lambda: load_split_truth("mudi", usage, SplitSpec.usage()))
        rows.append(("MUDI load_split_truth(usage) vs load_truth", load_usage, load_plain))
        load_hash = best(args.repeat, lambda: load_split_truth("mudi", data, spec))
        rows.append(("MUDI load_split_truth(hash) vs load_truth", load_hash, load_plain))
    else:
        print(f"skipping MUDI: {MUDI} is missing", file=sys.stderr)
    text = "seed,id,label\n" + "".join(f"0,mol{i},{i % 2}\n" for i in range(args.keys))
    keyed = load_truth("imdrug-hiv-random", text.encode())
    load = best(args.repeat, lambda: load_truth("imdrug-hiv-random", text.encode()))
    hashed = best(args.repeat, lambda: make_split("imdrug-hiv-random", keyed, SplitSpec.hashed(0.3, 1)))
    rows.append((f"make_split on {args.keys:,} keys vs load_truth", hashed, load))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)}  {'seconds':>8}  {'baseline':>8}  ratio")
    for name, value, baseline in rows:
        print(f"{name.ljust(width)}  {value:8.3f}  {baseline:8.3f}  {value / baseline:5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
