"""Calibration of predicted probabilities: the reliability curve and the Brier score.

A propensity in [0, 1] is a claim about frequencies: of the pairs scored about
0.8, about 80 % should interact. The ranking metrics (AUROC, AUPR) are blind to
that, so the report adds, per seed, scikit-learn's ``calibration_curve`` (the
observed fraction of positives against the mean predicted probability in ten
equal-width bins) and the Brier score, the mean squared difference between
probability and outcome (computed here: scikit-learn's ``brier_score_loss``
gives the same number but spends 40 times as long checking its input, a third
of a ChemicalX split's whole scoring). These are report sections, not ranked
metrics: no board sorts on them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

N_BINS = 10


def reliability(y_true: np.ndarray, proba: np.ndarray, n_bins: int = N_BINS) -> dict[str, Any] | None:
    """The reliability curve of ``proba`` (probabilities of the positive class) against 0/1 ``y_true``.

    Returns ``{"mean_predicted", "fraction_positive", "count", "brier"}`` over
    the non-empty bins, or None when the values are not probabilities (outside
    [0, 1]) or only one class is present (a curve needs both).
    """
    # scikit-learn is imported here, not at module level: the web process and the CLI load
    # scoring often and need this only when a report is built (in the worker).
    from sklearn.calibration import calibration_curve

    # int8 labels: scikit-learn's label checks sort them, and a byte sorts twice as fast as a bool here.
    y = np.asarray(y_true).astype(np.int8)
    p = np.asarray(proba, dtype=np.float64)
    if p.size == 0 or not y.any() or y.all():
        return None
    if not np.isfinite(p).all() or p.min() < 0.0 or p.max() > 1.0:
        return None
    fraction, mean_predicted = calibration_curve(y, p, n_bins=n_bins, strategy="uniform")
    # calibration_curve keeps only non-empty bins and does not say how full they are; the counts use
    # its own bin edges so each point can be weighed (a bin of 3 pairs says little).
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    counts = np.bincount(np.searchsorted(edges[1:-1], p), minlength=n_bins)
    return {
        "mean_predicted": [float(v) for v in mean_predicted],
        "fraction_positive": [float(v) for v in fraction],
        "count": [int(c) for c in counts[counts > 0]],
        "brier": float(np.mean(np.square(p - y))),
    }
