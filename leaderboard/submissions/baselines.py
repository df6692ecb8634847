"""Baseline submissions for every task, scored through the real pipeline.

Two per task, named for what they are, each a method that ranks like any entry:
- "Random": a uniformly random class, probability vector, propensity or value;
- "Majority class" / "Positive rate" / "Test mean": one constant for every row,
  the test set's class prior (the name says so). It never sees which row has
  which label.

No baseline is built from the per-row truth labels: an entry that reads them
(a "noisy oracle") is not a method and would top every board. A baseline that a
builder no longer produces (such an oracle from an older release) is deleted
from the phase by ``ensure_baselines``.

They belong to the "Baselines" user and team, are public, ``is_baseline`` and
never charged. Re-running adds nothing: a baseline whose file bytes are
unchanged is kept; one built from an older truth is replaced.
"""

from __future__ import annotations

import io
import logging
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from leaderboard.accounts.models import User
from leaderboard.accounts.services import create_user
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from leaderboard.submissions.signals import board_changed

if TYPE_CHECKING:
    from django.db.models.fields.files import FieldFile

    from leaderboard.challenges.models import Phase
    from scoring.registry import Task

log = logging.getLogger(__name__)

BASELINE_USERNAME = "Baselines"
BASELINE_EMAIL = "baselines@localhost"


@dataclass
class Baseline:
    method_name: str
    description: str
    frame: pd.DataFrame

    def csv_bytes(self) -> bytes:
        buffer = io.StringIO()
        self.frame.to_csv(buffer, index=False, float_format="%.6g")
        return buffer.getvalue().encode()


def baseline_user() -> User:
    user = User.objects.filter(username=BASELINE_USERNAME).first()
    if user is None:
        user = create_user(BASELINE_USERNAME, BASELINE_EMAIL, None, email_results=False)
    return user


def _mudi(task: Task, truth: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    pairs = truth.drop_duplicates(subset=["Drug1", "Drug2"], ignore_index=True)
    classes = list(task.classes)
    gold = pairs["Interaction"].replace({"New Adverse": "New Effect", "New Effect (New Adverse)": "New Effect"})
    majority = gold.value_counts().idxmax()

    def frame(labels: object) -> pd.DataFrame:
        return pd.DataFrame({"Drug1": pairs["Drug1"], "Interaction": labels, "Drug2": pairs["Drug2"]})

    return [
        Baseline(
            "Random", "A uniformly random class for every test pair.", frame(rng.choice(classes, size=len(pairs)))
        ),
        Baseline(f"Majority class ({majority})", "The most frequent test class for every pair.", frame(majority)),
    ]


def _classification(task: Task, truth: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    n_classes = len(task.classes)
    keys = truth[["seed", "id"]]
    gold = _class_indices(task, truth["label"])
    random_probs = rng.dirichlet(np.ones(n_classes), size=len(truth))
    random_frame = keys.assign(label=random_probs.argmax(axis=1))
    for k in range(n_classes):
        random_frame[f"prob_{k}"] = random_probs[:, k]
    majority = int(np.bincount(gold, minlength=n_classes).argmax())
    return [
        Baseline("Random", "A random probability vector per row; the label is its argmax.", random_frame),
        Baseline(
            f"Majority class ({task.classes[majority]})",
            "The most frequent test class for every row (hard labels, so no AUROC).",
            keys.assign(label=majority),
        ),
    ]


def _class_indices(task: Task, labels: pd.Series) -> np.ndarray:
    """Truth labels as class indices (a truth may write names or 0-based indices)."""
    if pd.api.types.is_numeric_dtype(labels):
        return labels.to_numpy().astype(int)
    index = {name.lower(): i for i, name in enumerate(task.classes)}
    return np.array([index[str(v).strip().lower()] if not str(v).strip().isdigit() else int(v) for v in labels])


def _regression(task: Task, truth: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    keys = truth[["seed", "id"]]
    y = truth["y" if "y" in truth.columns else "label"].to_numpy(dtype=float)
    low, high = float(y.min()), float(y.max())
    return [
        Baseline(
            "Random", "A uniform value within the test labels' range.", keys.assign(y=rng.uniform(low, high, len(y)))
        ),
        Baseline("Test mean", "The mean of the test labels for every row.", keys.assign(y=float(y.mean()))),
    ]


def _pairs(task: Task, truth: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    key = ["seed", "drug_1", "drug_2", "context"]
    rows = truth.drop_duplicates(subset=key, ignore_index=True)
    keys = rows[key]
    rate = float(truth["label"].mean())
    return [
        Baseline(
            "Random", "A uniform propensity in [0, 1] for every triple.", keys.assign(prediction=rng.random(len(rows)))
        ),
        Baseline(
            f"Positive rate ({rate:.3f})",
            "The test set's positive rate as every propensity.",
            keys.assign(prediction=rate),
        ),
    ]


# The baseline builders of each kind; a kind without one has no baselines.
BUILDERS = {"mudi": _mudi, "classification": _classification, "regression": _regression, "pair": _pairs}


def build_baselines(task: Task, truth_file: str | os.PathLike[str] | FieldFile) -> list[Baseline]:
    """The baseline prediction files of a task, from its truth file (deterministic).

    ``truth_file`` is a path or a stored file (``phase.truth_file``), read through its storage.
    """
    name = str(getattr(truth_file, "name", truth_file))
    sep = "\t" if name.endswith((".tsv", ".tsv.gz")) else ","
    if isinstance(truth_file, (str, os.PathLike)):
        truth = pd.read_csv(truth_file, sep=sep)
    else:
        with truth_file.open("rb") as handle:
            truth = pd.read_csv(handle, sep=sep, compression="gzip" if name.endswith(".gz") else None)
    rng = np.random.default_rng(12345)
    builder = BUILDERS.get(task.kind)
    return builder(task, truth, rng) if builder else []


def ensure_baselines(
    phase: Phase, truth_file: str | os.PathLike[str] | FieldFile, *, run: Callable[[uuid.UUID], object]
) -> list[Submission]:
    """Create (and score with ``run(submission_id)``) the phase's baselines that are missing or outdated."""
    user = baseline_user()
    team = user.personal_team
    created = []
    built = build_baselines(phase.task, truth_file)
    _delete_retired(phase, team, {baseline.method_name for baseline in built})
    for baseline in built:
        content = baseline.csv_bytes()
        upload = SimpleUploadedFile(f"{phase.task_slug}-{_slug(baseline.method_name)}.csv", content)
        sha = services.HashingFile(io.BytesIO(content), "x")
        list(sha.chunks())
        existing = Submission.objects.filter(phase=phase, team=team, is_baseline=True, method_name=baseline.method_name)
        if existing.filter(sha256=sha.digest.hexdigest()).exists():
            continue
        with transaction.atomic():
            stale = list(existing)
            for old in stale:
                old.file.delete(save=False)
                old.delete()
            if stale:
                transaction.on_commit(lambda: board_changed.send(sender=Submission, phase=phase))
        submission = services.create_submission(
            phase=phase,
            team=team,
            user=user,
            upload=upload,
            metadata=services.Metadata(method_name=baseline.method_name, description=baseline.description),
            charge_quota=False,
            is_baseline=True,
            enqueue=False,
        )
        run(submission.pk)
        created.append(submission)
    return created


def _delete_retired(phase: Phase, team, names: set[str]) -> None:
    """Delete the phase's baselines that no builder makes any more (e.g. the retired label oracle)."""
    retired = list(Submission.objects.filter(phase=phase, team=team, is_baseline=True).exclude(method_name__in=names))
    if not retired:
        return
    with transaction.atomic():
        for old in retired:
            old.file.delete(save=False)
            old.delete()
        transaction.on_commit(lambda: board_changed.send(sender=Submission, phase=phase))


def _slug(text: str) -> str:
    return "".join(ch.lower() if ch.isalnum() else "-" for ch in text).strip("-")[:40]
