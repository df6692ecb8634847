"""Example prediction files: every test key with a constant, format-correct prediction."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from scoring.truth import key_columns

if TYPE_CHECKING:
    from scoring.registry import Task


def constant_prediction(task: Task) -> tuple[str, object]:
    """The prediction column's name (the first that is not a key of the truth) and a value the task accepts."""
    keys = key_columns(task)
    column = next(c for c in task.prediction_columns if c not in keys)
    return column, task.kind_def.example_value(task)


def example_frame(task: Task, inputs: pd.DataFrame) -> pd.DataFrame:
    """The test inputs with the prediction column added, columns in the task's documented order."""
    column, value = constant_prediction(task)
    frame = inputs.copy()
    frame[column] = value
    ordered = [c for c in task.prediction_columns if c in frame.columns]
    return frame[ordered]
