"""What an organizer's truth upload costs in the request, against scoring's own validation of the file.

Run: ``DATABASE_URL=... .venv/bin/python bench/truth_upload.py [--repeat 3] [--submissions 2000]``
(a throwaway database: it creates a challenge and users; default SQLite in var/).

(a) The real MUDI test set (../shared/data/mudi/test.csv, 89,417 rows) uploaded through
    ``organize.services.replace_truth`` (validate, hash, store privately, version, audit) versus
    ``scoring.validate_truth`` of the same bytes (the parse alone); each repeat uploads a
    different file (one changed row), so every one is a real replacement.
(b) The worker's ``rescore_phase`` re-queueing --submissions submissions (in batches of
    RESCORE_BATCH, each task handing on the rest), in seconds per 1,000
    (the broker is replaced by a no-op: this measures the database work).
    With the default filesystem broker each re-queue also writes two messages (scoring, board update).

Prints seconds (best of --repeat) and the ratio to the baseline.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")

import django  # noqa: E402

django.setup()

from django.core.files.uploadedfile import SimpleUploadedFile  # noqa: E402
from django.core.management import call_command  # noqa: E402

import scoring  # noqa: E402
from leaderboard.accounts.services import create_user  # noqa: E402
from leaderboard.boards import receivers  # noqa: E402
from leaderboard.challenges.models import Challenge, Phase  # noqa: E402
from leaderboard.organize import services  # noqa: E402
from leaderboard.submissions import queueing  # noqa: E402
from leaderboard.submissions.models import Submission  # noqa: E402

MUDI = REPO / ".." / "shared" / "data" / "mudi" / "test.csv"


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--submissions", type=int, default=2000)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    tag = uuid.uuid4().hex[:8]
    host = create_user(f"bench-{tag}", f"bench-{tag}@example.org", "bench-password-123", email_verified=True)
    challenge = Challenge.objects.create(slug=f"bench-{tag}", title="Bench", kind="organized")
    challenge.organizers.add(host)
    phase = Phase.objects.create(challenge=challenge, slug="test", title="Test", task_slug="mudi")
    data = MUDI.read_bytes()
    lines = data.decode().split("\n")

    def variant(i: int) -> bytes:
        changed = list(lines)
        row = changed[1 + i].split(",")
        row[1] = "Antagonism" if row[1] != "Antagonism" else "Synergism"
        changed[1 + i] = ",".join(row)
        return "\n".join(changed).encode()

    parse = min(timed(lambda: scoring.validate_truth("mudi", data)) for _ in range(args.repeat))
    uploads = [
        timed(lambda i=i: services.replace_truth(phase, SimpleUploadedFile("truth.csv", variant(i)), host))
        for i in range(args.repeat)
    ]
    print(f"(a) MUDI truth, {len(lines) - 2:,} rows")
    print(f"    scoring.validate_truth       {parse:7.3f} s  (baseline)")
    print(f"    replace_truth (the request)  {min(uploads):7.3f} s  x{min(uploads) / parse:.2f}")

    team = host.personal_team
    Submission.objects.bulk_create(
        Submission(phase=phase, team=team, user=host, method_name=f"m{i}", status=Submission.Status.SCORED)
        for i in range(args.submissions)
    )
    # No broker: the scoring messages and the boards' update messages are dropped, so this is the
    # database work (sending them costs whatever the broker costs per message, twice per submission).
    queueing.enqueue = lambda submission_id: True
    receivers.enqueue_update = lambda phase_id, submission_id=None: None
    # Each batch's follow-up runs at once, in this process (on a worker it is the next message).
    services.rescore_phase.delay = lambda *args: services.rescore_phase(*args)  # type: ignore[method-assign]
    phase.refresh_from_db()
    seconds = timed(lambda: services.rescore_phase(phase.pk, phase.truth_sha256))
    queued = Submission.objects.filter(phase=phase, status=Submission.Status.QUEUED).count()
    print(f"(b) rescore_phase: {queued:,} submissions re-queued in {seconds:.2f} s "
          f"({seconds / queued * 1000:.2f} s per 1,000), broker messages not sent")  # fmt: skip


if __name__ == "__main__":
    main()
