"""Demo truth files for tasks whose real test labels are not available here.

Everything generated here is labelled synthetic (``Phase.truth_is_synthetic``)
and the pages say so. Sizes are modest so ``load_benchmarks --demo`` stays fast.
Real data is used wherever it is found:
- MUDI: the real test set (``<SHARED_DATA_DIR>/data/mudi/test.csv`` or
  ``settings.MUDI_TRUTH_PATH``);
- ChemicalX OncolyPharm: a truth built by ``scoring.make_chemicalx_truth`` from
  the real oncopolypharmacology triples (synergy > 30 is positive);
- other ChemicalX datasets: real drug and context ids from their
  ``drug_set.json`` / ``context_set.json``, random labels (synthetic).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from django.conf import settings

import scoring

if TYPE_CHECKING:
    from scoring.registry import Task

# ChemicalX's oncopolypharmacology labels are continuous synergy scores; above this is positive.
ONCOLYPHARM_THRESHOLD = 30.0
# The shared folder's name for the dataset the registry calls "oncolypharm".
CHEMICALX_FOLDERS = {"oncolypharm": "oncopolypharmacology"}

SYNTHETIC_ROWS_PER_SEED = 1000
SYNTHETIC_TRIPLES = 2000  # ChemicalX: triples before the 10 splits take 20% each
SYNTHETIC_MUDI_PAIRS = 3000


@dataclass
class DemoTruth:
    """A truth file to import: where it is, whether it is synthetic, how to describe its source."""

    path: Path
    synthetic: bool
    source: str


DemoTruthWriter = Callable[["Task", np.random.Generator, Path], DemoTruth]


def data_dir() -> Path:
    return Path(settings.SHARED_DATA_DIR) / "data"


def real_mudi_path() -> Path | None:
    """The real MUDI test set if it is configured or found in the shared folder."""
    configured = getattr(settings, "MUDI_TRUTH_PATH", "")
    for candidate in (Path(configured) if configured else None, data_dir() / "mudi" / "test.csv"):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


def _rng(task_slug: str) -> np.random.Generator:
    # Seeded by the slug so a re-run writes the same bytes (and import_truth sees no change).
    return np.random.default_rng(abs(hash_slug(task_slug)))


def hash_slug(text: str) -> int:
    value = 0
    for ch in text.encode():
        value = (value * 131 + ch) % (2**31 - 1)
    return value


def _class_weights(n_classes: int, split: str, rng: np.random.Generator) -> np.ndarray:
    if split == "standard":
        return np.full(n_classes, 1.0 / n_classes)
    # Long-tailed, as in ImDrug's random splits: Zipf-like class frequencies.
    weights = 1.0 / np.arange(1, n_classes + 1) ** 1.1
    rng.shuffle(weights)
    return weights / weights.sum()


def synthetic_classification(task: Task, rng: np.random.Generator) -> pd.DataFrame:
    frames = []
    n_classes = len(task.classes)
    for seed in task.seeds:
        n = SYNTHETIC_ROWS_PER_SEED if task.split != "standard" else n_classes * max(3, 600 // n_classes)
        if task.split == "standard":
            labels = np.repeat(np.arange(n_classes), n // n_classes)
            rng.shuffle(labels)
        else:
            labels = rng.choice(n_classes, size=n, p=_class_weights(n_classes, task.split, rng))
        ids = [f"{task.dataset}-{seed}-{i:05d}" for i in range(len(labels))]
        frames.append(pd.DataFrame({"seed": seed, "id": ids, "label": labels}))
    frame = pd.concat(frames, ignore_index=True)
    if n_classes > 2:  # the long-tailed groups (scoring.longtail), counted over these rows: all the demo data there is
        frame["group"] = scoring.longtail.group_column(frame["label"].to_numpy(), task.classes)
    return frame


def synthetic_regression(task: Task, rng: np.random.Generator) -> pd.DataFrame:
    frames = []
    for seed in task.seeds:
        ids = [f"{task.dataset}-{seed}-{i:05d}" for i in range(SYNTHETIC_ROWS_PER_SEED)]
        y = np.round(rng.normal(6.5, 1.4, size=SYNTHETIC_ROWS_PER_SEED), 4)
        frames.append(pd.DataFrame({"seed": seed, "id": ids, "y": y}))
    return pd.concat(frames, ignore_index=True)


def _ids_from(path: Path, fallback_prefix: str, n: int) -> list[str]:
    if path.is_file():
        ids = list(json.loads(path.read_text()))
        if ids:
            return ids
    return [f"{fallback_prefix}{i:04d}" for i in range(n)]


def synthetic_pairs(task: Task, rng: np.random.Generator) -> pd.DataFrame:
    """Random triples over the dataset's real drug and context ids, 10 splits, random labels."""
    folder = data_dir() / "chemicalx" / CHEMICALX_FOLDERS.get(task.dataset, task.dataset)
    drugs = _ids_from(folder / "drug_set.json", "drug_", 200)
    contexts = _ids_from(folder / "context_set.json", "context_", 10)
    a = rng.choice(len(drugs), size=SYNTHETIC_TRIPLES)
    b = (a + 1 + rng.choice(len(drugs) - 1, size=SYNTHETIC_TRIPLES)) % len(drugs)
    c = rng.choice(len(contexts), size=SYNTHETIC_TRIPLES)
    triples = pd.DataFrame(
        {
            "drug_1": np.asarray(drugs, dtype=object)[a],
            "drug_2": np.asarray(drugs, dtype=object)[b],
            "context": np.asarray(contexts, dtype=object)[c],
            "label": (rng.random(SYNTHETIC_TRIPLES) < 0.35).astype(int),
        }
    ).drop_duplicates(subset=["drug_1", "drug_2", "context"], ignore_index=True)
    return triples


def synthetic_mudi(rng: np.random.Generator) -> pd.DataFrame:
    info = data_dir() / "mudi" / "drug_info.json"
    drugs = _ids_from(info, "DB", 400)
    a = rng.choice(len(drugs), size=SYNTHETIC_MUDI_PAIRS)
    b = (a + 1 + rng.choice(len(drugs) - 1, size=SYNTHETIC_MUDI_PAIRS)) % len(drugs)
    labels = rng.choice(["Synergism", "Antagonism", "New Adverse"], size=SYNTHETIC_MUDI_PAIRS, p=[0.75, 0.18, 0.07])
    names = np.array([f"Compound::{d}" for d in drugs], dtype=object)
    frame = pd.DataFrame({"Drug1": names[a], "Interaction": labels, "Drug2": names[b]})
    # One class per unordered pair, as in the real set's de-duplicated view.
    key = np.minimum(a, b) * len(drugs) + np.maximum(a, b)
    return frame[~pd.Series(key).duplicated().to_numpy()].reset_index(drop=True)


def _mudi_truth(task: Task, rng: np.random.Generator, target: Path) -> DemoTruth:
    real = real_mudi_path()
    if real is not None:
        return DemoTruth(real, False, f"MUDI test set ({real.name}; github hoangbros03/MUDI dataset/test.csv)")
    synthetic_mudi(rng).to_csv(target, index=False)
    return DemoTruth(target, True, "synthetic demo data (random MUDI-style pairs)")


def _pair_truth(task: Task, rng: np.random.Generator, target: Path) -> DemoTruth:
    directory = target.parent
    folder = data_dir() / "chemicalx" / CHEMICALX_FOLDERS.get(task.dataset, task.dataset)
    triples = folder / "labeled_triples.csv"
    if triples.is_file():
        threshold = ONCOLYPHARM_THRESHOLD if task.dataset == "oncolypharm" else None
        scoring.make_chemicalx_truth(triples, seeds=task.seeds, threshold=threshold, out=target)
        rule = f", label > {threshold:g} is positive" if threshold is not None else ""
        return DemoTruth(target, False, f"ChemicalX {folder.name}/labeled_triples.csv{rule}")
    triples_path = directory / f"{task.slug}-triples.csv"
    synthetic_pairs(task, rng).to_csv(triples_path, index=False)
    scoring.make_chemicalx_truth(triples_path, seeds=task.seeds, out=target)
    return DemoTruth(target, True, "synthetic demo data (real drug and context ids, random labels)")


def _random_labels(synthetic: Callable[[Task, np.random.Generator], pd.DataFrame]) -> DemoTruthWriter:
    def write(task: Task, rng: np.random.Generator, target: Path) -> DemoTruth:
        synthetic(task, rng).to_csv(target, index=False)
        return DemoTruth(target, True, "synthetic demo data (random labels)")

    return write


# The demo truth writer of each kind: (task, rng, target path) -> DemoTruth.
WRITERS: dict[str, DemoTruthWriter] = {
    "mudi": _mudi_truth,
    "pair": _pair_truth,
    "classification": _random_labels(synthetic_classification),
    "regression": _random_labels(synthetic_regression),
}


def demo_truth(task: Task, directory: Path) -> DemoTruth:
    """Write the demo truth file of ``task`` into ``directory`` (real where the data is found)."""
    return WRITERS[task.kind](task, _rng(task.slug), directory / f"{task.slug}-truth.csv")
