"""Example prediction files: every test key with a constant, format-correct prediction."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from scoring.registry import Task


def constant_prediction(task: Task) -> tuple[str, object]:
    """The prediction column's name and a constant value that the task accepts."""
    column = [c for c in task.prediction_columns if c not in ("seed", "id", "Drug1", "Drug2", *_PAIR_KEY)][0]
    return column, task.kind_def.example_value(task)


_PAIR_KEY = ("drug_1", "drug_2", "context")


def example_frame(task: Task, inputs: pd.DataFrame) -> pd.DataFrame:
    """The test inputs with the prediction column added, columns in the task's documented order."""
    column, value = constant_prediction(task)
    frame = inputs.copy()
    frame[column] = value
    ordered = [c for c in task.prediction_columns if c in frame.columns]
    return frame[ordered]
