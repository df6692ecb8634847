"""Demo truth files for ``load_benchmarks --demo``, written by each task's kind (``SiteKind.demo_truth``).

Everything generated is labelled synthetic (``Phase.truth_is_synthetic``) and
the pages say so; sizes are modest so ``load_benchmarks --demo`` stays fast.
A kind's writer uses real data wherever it finds it in the shared folder
(MUDI's test set, ChemicalX's labelled triples); a kind without a writer of
its own gets a synthetic truth in its task's layout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings

from leaderboard.kinds.registry import DemoTruth, site_kind

if TYPE_CHECKING:
    from scoring.definitions import Task


def data_dir() -> Path:
    """The shared folder's datasets, one folder per family."""
    return Path(settings.SHARED_DATA_DIR) / "data"


def ids_from(path: Path, fallback_prefix: str, n: int) -> list[str]:
    """The ids a JSON file lists (its keys, or its items), else ``n`` made-up ones."""
    if path.is_file():
        ids = list(json.loads(path.read_text()))
        if ids:
            return ids
    return [f"{fallback_prefix}{i:04d}" for i in range(n)]


def hash_slug(text: str) -> int:
    value = 0
    for ch in text.encode():
        value = (value * 131 + ch) % (2**31 - 1)
    return value


def _rng(task_slug: str) -> np.random.Generator:
    # Seeded by the slug so a re-run writes the same bytes (and import_truth sees no change).
    return np.random.default_rng(abs(hash_slug(task_slug)))


def demo_truth(task: Task, directory: Path) -> DemoTruth:
    """Write the demo truth file of ``task`` into ``directory`` (real where the data is found)."""
    return site_kind(task).demo_truth(task, _rng(task.slug), directory / f"{task.slug}-truth.csv")
