"""Small truth and prediction files and a phase to submit to, shared by the submission tests."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile

# Twelve gold MUDI pairs (native layout, with the Compound:: prefix as in the real file).
MUDI_TRUTH_ROWS = [
    ("DB00001", "Synergism", "DB00002"),
    ("DB00001", "Antagonism", "DB00003"),
    ("DB00002", "Synergism", "DB00004"),
    ("DB00003", "New Adverse", "DB00004"),
    ("DB00005", "Synergism", "DB00006"),
    ("DB00005", "Antagonism", "DB00007"),
    ("DB00006", "Synergism", "DB00008"),
    ("DB00007", "New Adverse", "DB00008"),
    ("DB00009", "Synergism", "DB00010"),
    ("DB00009", "Synergism", "DB00011"),
    ("DB00010", "Antagonism", "DB00012"),
    ("DB00011", "Synergism", "DB00012"),
]


def mudi_truth_csv() -> bytes:
    lines = ["Drug1,Interaction,Drug2"] + [f"Compound::{a},{label},Compound::{b}" for a, label, b in MUDI_TRUTH_ROWS]
    return ("\n".join(lines) + "\n").encode()


def mudi_prediction_csv(wrong: int = 2) -> bytes:
    """A valid prediction: every gold pair, the first ``wrong`` with a wrong class."""
    lines = ["Drug1,Interaction,Drug2"]
    for i, (a, label, b) in enumerate(MUDI_TRUTH_ROWS):
        if i < wrong:
            label = "Antagonism" if label == "Synergism" else "Synergism"
        lines.append(f"Compound::{a},{label},Compound::{b}")
    return ("\n".join(lines) + "\n").encode()


def invalid_mudi_csv() -> bytes:
    """Two bad lines: an unknown class on line 2 and a pair not in the truth on line 3."""
    rows = mudi_prediction_csv(0).decode().splitlines()
    rows[1] = rows[1].replace("Antagonism", "Friendship").replace("Synergism", "Friendship")
    rows[2] = "Compound::DB09999,Synergism,Compound::DB09998"
    return ("\n".join(rows) + "\n").encode()


def upload(content: bytes, name: str = "predictions.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="text/csv")


def as_post_file(content: bytes, name: str = "predictions.csv") -> io.BytesIO:
    handle = io.BytesIO(content)
    handle.name = name
    return handle


def standing_phase_with_truth(task_slug: str, truth: bytes, *, synthetic: bool = True):
    """Create the standing challenges and import ``truth`` as the task's test labels."""
    from leaderboard.challenges.models import Phase
    from leaderboard.challenges.services import import_truth, sync_standing_challenges

    sync_standing_challenges()
    phase = Phase.objects.standing().get(task_slug=task_slug)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{task_slug}-truth.csv"
        path.write_bytes(truth)
        import_truth(phase, path, synthetic=synthetic, label="test truth")
    phase.refresh_from_db()
    return phase


def post_data(team, **overrides) -> dict:
    data = {
        "method_name": "GraphDDI",
        "description": "A *graph* model.",
        "paper_url": "",
        "code_url": "https://example.org/code",
        "n_parameters": "1200000",
        "uses_external_data": "no",
        "declare_modalities": ["graph", "text"],
        "visibility": "public",
        "team": team.pk,
    }
    data.update(overrides)
    return data


def make_submission(phase, team, user, content: bytes | None = None, **metadata):
    """A queued submission created through the service, without touching the broker."""
    from leaderboard.submissions import intake

    meta = intake.Metadata(method_name=metadata.pop("method_name", "GraphDDI"), **metadata)
    return intake.create_submission(
        phase=phase,
        team=team,
        user=user,
        upload=upload(content or mudi_prediction_csv()),
        metadata=meta,
        enqueue=False,
    )


def score_now(submission):
    """Store the real score of the submission's file (what the worker does)."""
    import scoring
    from leaderboard.submissions import outcomes

    with submission.file.open("rb") as handle:
        score = scoring.score_files("mudi", mudi_truth_csv(), handle)
    outcomes.store_score(submission, score)
    submission.refresh_from_db()
    return score
