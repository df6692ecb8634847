"""Reading stored files from an S3-compatible bucket, against the local disk in the same run.

Run: ``.venv/bin/python bench/storage.py [--repeat 5] [--mb 50]``

Uses the server at ``AWS_S3_ENDPOINT_URL`` when set, else starts moto's server in
this process on a free 127.0.0.1 port (dummy credentials). Two files: the real MUDI
test set (../shared/data/mudi/test.csv) parsed with ``scoring.load_truth``, and a
synthetic prediction file of --mb megabytes read to the end. Each is read from the
local disk (the baseline), through our streaming ``PrivateS3Storage`` and through
django-storages' own ``S3File`` (downloads the whole object before the first read).
Prints the median time and the peak of Python allocations (tracemalloc) per way,
and the time ratio against the local disk.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import statistics
import sys
import tempfile
import time
import tracemalloc
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(read, repeat: int) -> tuple[float, float]:
    times, peaks = [], []
    for _ in range(repeat):
        tracemalloc.start()
        started = time.perf_counter()
        read()
        times.append(time.perf_counter() - started)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return statistics.median(times), max(peaks) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mb", type=int, default=50, help="size of the synthetic prediction file")
    args = parser.parse_args()

    server = None
    if not os.environ.get("AWS_S3_ENDPOINT_URL"):
        from moto.server import ThreadedMotoServer

        port = free_port()
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
        server.start()
        os.environ["AWS_S3_ENDPOINT_URL"] = f"http://127.0.0.1:{port}"
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
            os.environ.setdefault(name, "bench")
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")

    import boto3
    import django

    django.setup()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's request log

    from storages.backends.s3 import S3Storage

    import scoring
    from leaderboard.s3storage import PrivateS3Storage

    endpoint = os.environ["AWS_S3_ENDPOINT_URL"]
    bucket = "leaderboard-bench"
    client = boto3.client("s3", endpoint_url=endpoint)
    if bucket not in {b["Name"] for b in client.list_buckets()["Buckets"]}:
        client.create_bucket(Bucket=bucket)
    options = {"bucket_name": bucket, "location": f"bench-{uuid.uuid4().hex[:8]}", "endpoint_url": endpoint}
    ours = PrivateS3Storage(addressing_style="path", **options)
    theirs = S3Storage(addressing_style="path", **options)

    truth_path = REPO.parent / "shared" / "data" / "mudi" / "test.csv"
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "predictions.csv"
        line = b"Compound::DB00001,Synergism,Compound::DB00002\n"
        big.write_bytes(b"Drug1,Interaction,Drug2\n" + line * (args.mb * 2**20 // len(line)))
        files = [("MUDI truth, load_truth", truth_path, lambda h: scoring.load_truth("mudi", h))]
        files.append((f"{args.mb} MB file, read", big, lambda h: h.read()))
        print(f"endpoint {endpoint}, median of {args.repeat}")
        print(f"{'file':24s} {'way':28s} {'time':>8s} {'ratio':>6s} {'peak alloc':>11s}")
        for label, path, use in files:
            if not path.is_file():
                print(f"{label:24s} skipped: {path} not found")
                continue
            with open(path, "rb") as handle:
                name = ours.save(f"bench/{path.name}", handle)

            def read_with(opener, use=use):
                def read():
                    with opener() as handle:
                        use(handle)

                return read

            ways = [
                ("local disk (baseline)", lambda path=path: open(path, "rb")),
                ("PrivateS3Storage (stream)", lambda name=name: ours.open(name)),
                ("django-storages S3File", lambda name=name: theirs.open(name)),
            ]
            base = None
            for way, opener in ways:
                seconds, peak = measure(read_with(opener), args.repeat)
                base = base or seconds
                print(f"{label:24s} {way:28s} {seconds:7.3f}s {seconds / base:5.2f}x {peak:9.1f} MB")
            ours.delete(name)
    if server is not None:
        server.stop()


if __name__ == "__main__":
    main()
