"""Baseline submissions for every task, scored through the real pipeline.

One per task, a method that ranks like any entry: "Random", a uniformly random
class, probability vector or propensity, or a standard normal value.

A baseline may use the test inputs but never the labels: the builders are
handed ``scoring.test_inputs`` (the truth with its labels removed), so one
cannot read them by mistake. That retired the majority-class / positive-rate /
test-mean baselines, which took their constant from the test labels: no
training split is here to take a prior from honestly (MUDI's train set is on
Zenodo, ImDrug's and most ChemicalX labels are not in the shared data), and a
uniform prior is what "Random" already is. An entry built from the per-row
labels (a "noisy oracle") would top every board and is not a method either. A
baseline that a builder no longer produces is deleted from the phase by
``ensure_baselines``.

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

import scoring
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


def _mudi(task: Task, inputs: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    classes = list(task.classes)
    labels = rng.choice(classes, size=len(inputs))
    frame = pd.DataFrame({"Drug1": inputs["Drug1"], "Interaction": labels, "Drug2": inputs["Drug2"]})
    return [Baseline("Random", "A uniformly random class for every test pair.", frame)]


def _classification(task: Task, inputs: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    n_classes = len(task.classes)
    keys = inputs[["seed", "id"]]
    random_probs = rng.dirichlet(np.ones(n_classes), size=len(keys))
    random_frame = keys.assign(label=random_probs.argmax(axis=1))
    for k in range(n_classes):
        random_frame[f"prob_{k}"] = random_probs[:, k]
    return [Baseline("Random", "A random probability vector per row; the label is its argmax.", random_frame)]


def _regression(task: Task, inputs: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    keys = inputs[["seed", "id"]]
    # Not the labels' range: that would be read from the test labels.
    values = rng.standard_normal(len(keys))
    return [
        Baseline("Random", "A standard normal value for every row (no label statistic is used).", keys.assign(y=values))
    ]


def _pairs(task: Task, inputs: pd.DataFrame, rng: np.random.Generator) -> list[Baseline]:
    keys = inputs[["seed", "drug_1", "drug_2", "context"]]
    return [
        Baseline(
            "Random", "A uniform propensity in [0, 1] for every triple.", keys.assign(prediction=rng.random(len(keys)))
        )
    ]


# The baseline builders of each kind; a kind without one has no baselines. Each gets the test
# inputs only (``scoring.test_inputs``: the truth with its labels removed), never the labels.
BUILDERS = {"mudi": _mudi, "classification": _classification, "regression": _regression, "pair": _pairs}


def build_baselines(task: Task, truth_file: str | os.PathLike[str] | FieldFile) -> list[Baseline]:
    """The baseline prediction files of a task, from its truth file's test inputs (deterministic).

    ``truth_file`` is a path or a stored file (``phase.truth_file``), read through its storage.
    """
    builder = BUILDERS.get(task.kind)
    if builder is None:
        return []
    if isinstance(truth_file, (str, os.PathLike)):
        inputs = scoring.test_inputs(task, str(truth_file))
    else:
        with truth_file.open("rb") as handle:
            inputs = scoring.test_inputs(task, handle)
    return builder(task, inputs, np.random.default_rng(12345))


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
