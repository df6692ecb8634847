"""Memory and time of the submit form's in-request check on a small gzip of many rows.

    .venv/bin/python bench/inline_bound.py [--rows 4000000]

Each measurement runs in a fresh process: "unbounded" is the old path
(``scoring.align`` on the whole decompressed upload), "bounded" the form's
``bounded_content`` then ``align`` only within the bound, and "at the bound"
a file just under 20 MB uncompressed (what the form still checks itself).
Prints seconds and the peak RSS above the process's own baseline, and the
ratio against the unbounded path measured in the same run.
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LINE = b"Compound::DB00001,Synergism,Compound::DB00002\n"


def one(mode: str, rows: int) -> None:
    sys.path[0] = str(REPO)  # not bench/: bench/leaderboard.py would shadow the package
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.files.uploadedfile import SimpleUploadedFile

    import scoring
    from leaderboard.submissions.forms import bounded_content
    from tests.submissions.helpers import mudi_truth_csv

    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as zipped:
        zipped.write(b"Drug1,Interaction,Drug2\n")
        for _ in range(rows // 10_000):
            zipped.write(LINE * 10_000)
    data = buffer.getvalue()
    truth = scoring.load_truth("mudi", mudi_truth_csv())
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    upload = SimpleUploadedFile("p.csv.gz", data)
    try:
        if mode == "unbounded":
            scoring.align("mudi", truth, upload.read())
        else:
            content = bounded_content(
                upload, settings.SUBMISSION_INLINE_VALIDATION_BYTES, settings.SUBMISSION_INLINE_VALIDATION_ROWS
            )
            if content is not None:
                scoring.align("mudi", truth, content)
    except scoring.ScoringError:
        pass
    seconds = time.perf_counter() - started
    extra = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
    print(f"{seconds:.3f} {extra:.0f} {len(data)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args.one[0], int(args.one[1]))
        return
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    at_bound = (20 * 1024 * 1024) // len(LINE) - 10_000
    results = {}
    for label, mode, rows in (
        ("unbounded", "unbounded", args.rows),
        ("bounded", "bounded", args.rows),
        ("at the bound", "bounded", at_bound),
    ):
        out = subprocess.run(
            [sys.executable, __file__, "--one", mode, str(rows)], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        seconds, mb, gz = float(out[0]), float(out[1]), int(out[2])
        results[label] = (seconds, mb)
        print(f"{label:13s} rows={rows:>9,} gzip={gz / 1e6:.2f} MB  time={seconds:.2f} s  peak RSS +{mb:.0f} MB")
    base_s, base_mb = results["unbounded"]
    s, mb = results["bounded"]
    print(f"bounded / unbounded: time x{s / base_s:.3f}, memory x{mb / max(base_mb, 1):.3f}")


if __name__ == "__main__":
    main()
