"""Validated, aligned inputs handed from the readers to the metrics.

The readers (``scoring.validation``) turn a truth file and a prediction file into
one of these plain containers; the metrics (``scoring.metrics``) and the
significance tests (``scoring.significance``) consume them. Nothing here parses
or computes: it is the contract between the two halves of the package.

Conventions shared by every container:
- Arrays are numpy arrays, one element per *truth row* unless said otherwise.
- Class labels are integer indices into the task's ``classes`` tuple.
- Codes that name drugs or contexts index a vocabulary built from the truth file
  alone (sorted), so two submissions aligned against the same truth share codes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# MUDI label indices: the three scored classes, then the unscored negative class.
MUDI_NO_INTERACTION = 3


@dataclass(frozen=True)
class MudiAligned:
    """MUDI gold and predicted (ordered pair, class) rows.

    gold_*: one row per distinct gold (Drug1, Drug2, class) row of the truth file,
    label in {0, 1, 2} (Synergism, Antagonism, New Effect).
    pred_*: one row per prediction row, label in {0, 1, 2, 3} (3 = No Interaction).
    Every predicted pair exists in the gold set in at least one orientation.
    """

    gold_a: np.ndarray  # int32 drug codes
    gold_b: np.ndarray
    gold_label: np.ndarray  # int8
    pred_a: np.ndarray
    pred_b: np.ndarray
    pred_label: np.ndarray  # int8
    drug_names: tuple[str, ...]  # code -> bare DrugBank id
    # Distinct unordered gold pairs per drug code on the *whole* truth, when these rows are one part of a
    # split (``splits.restrict``): the drug-frequency buckets are counted on the whole truth, so a pair
    # falls in the same bucket on the public, private and all rows. None: count on these rows.
    drug_frequency: np.ndarray | None = None


@dataclass(frozen=True)
class ClassificationSeed:
    """One seed of an ImDrug classification task, rows aligned with the truth."""

    ids: np.ndarray  # object/str ids, truth order
    y_true: np.ndarray  # int class indices
    y_pred: np.ndarray  # int class indices
    proba: np.ndarray | None  # (n, n_classes) float64, rows sum need not be 1; None if hard labels only


@dataclass(frozen=True)
class ClassificationAligned:
    seeds: dict[int, ClassificationSeed]
    class_names: tuple[str, ...]
    # Each class's long-tailed group (head/middle/tail/open, None: ungrouped); None without a grouping.
    class_groups: tuple[str | None, ...] | None = None


@dataclass(frozen=True)
class RegressionSeed:
    ids: np.ndarray
    y_true: np.ndarray  # float64
    y_pred: np.ndarray  # float64


@dataclass(frozen=True)
class RegressionAligned:
    seeds: dict[int, RegressionSeed]


@dataclass(frozen=True)
class PairSeed:
    """One seed (split) of a ChemicalX task, one element per truth row.

    A truth triple that occurs several times keeps all its rows; the single
    prediction for that triple is repeated on each of them.
    """

    y_true: np.ndarray  # int8 in {0, 1}
    score: np.ndarray  # float64 propensity in [0, 1]
    context: np.ndarray  # int32 context codes


@dataclass(frozen=True)
class PairAligned:
    seeds: dict[int, PairSeed]
    context_names: tuple[str, ...]


Aligned = MudiAligned | ClassificationAligned | RegressionAligned | PairAligned


@dataclass(frozen=True)
class MetricsResult:
    """What the metrics produce.

    metrics: flat {public key: float}; keys as documented in docs/metrics.md.
      A metric that cannot be computed is absent, never 0 or NaN.
    report: JSON-serialisable structure for charts (per-class tables, confusion
      matrices, ROC/PR curve points, per-context AUROC, per-seed values).
    """

    metrics: dict[str, float]
    report: dict[str, Any]
