"""ImDrug regression: a value per (seed, id), scored by MSE and MAE."""

from __future__ import annotations

import numpy as np

from scoring import significance
from scoring.aligned import RegressionAligned
from scoring.keys import MetricDef
from scoring.kinds.base import Kind, register
from scoring.metrics import imdrug as metrics
from scoring.validation import imdrug as validation

METRICS = (
    MetricDef("mse", "MSE", False, "mean squared error, mean over seeds"),
    MetricDef("mae", "MAE", False, "mean absolute error, mean over seeds"),
)

KIND = register(
    Kind(
        name="regression",
        aligned=RegressionAligned,
        load_truth=validation.load_regression_truth,
        read_prediction=validation.read_regression_prediction,
        align=validation.align_regression,
        compute=metrics.compute_regression,
        example_value=lambda task: 0.0,
        placeholder_labels=lambda task, n: np.zeros(n),
        bootstrap=significance.unit_bootstrap(significance.regression_units),
    )
)
