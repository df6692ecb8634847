"""Baseline submissions for every task whose kind has them, scored through the real pipeline.

Each kind's module builds its own (``SiteKind.baselines``): one method that
ranks like any entry, "Random" (a uniformly random class, probability vector
or propensity, or a standard normal value). A kind without a builder has none.

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
from typing import TYPE_CHECKING

import numpy as np
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

import scoring
from leaderboard.accounts.models import User
from leaderboard.accounts.services import create_user
from leaderboard.kinds.registry import Baseline, site_kind
from leaderboard.submissions import intake
from leaderboard.submissions.models import Submission
from leaderboard.submissions.signals import board_changed

if TYPE_CHECKING:
    from django.db.models.fields.files import FieldFile

    from leaderboard.challenges.models import Phase
    from scoring.registry import Task

log = logging.getLogger(__name__)

BASELINE_USERNAME = "Baselines"
BASELINE_EMAIL = "baselines@localhost"


def baseline_user() -> User:
    user = User.objects.filter(username=BASELINE_USERNAME).first()
    if user is None:
        user = create_user(BASELINE_USERNAME, BASELINE_EMAIL, None, email_results=False)
    return user


def build_baselines(task: Task, truth_file: str | os.PathLike[str] | FieldFile) -> list[Baseline]:
    """The baseline prediction files of a task, from its truth file's test inputs (deterministic).

    ``truth_file`` is a path or a stored file (``phase.truth_file``), read through its storage.
    """
    builder = site_kind(task).baselines
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
        sha = intake.HashingFile(io.BytesIO(content), "x")
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
        submission = intake.create_submission(
            phase=phase,
            team=team,
            user=user,
            upload=upload,
            metadata=intake.Metadata(method_name=baseline.method_name, description=baseline.description),
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
