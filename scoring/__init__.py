"""Framework-free scoring for the drug-interaction leaderboard.

Parse and validate truth and prediction files (``scoring.readers``,
``scoring.validation``), compute the benchmark metrics (``scoring.metrics``),
build truth and test-input files (``scoring.truth``) and split a challenge's
test rows into public and private parts (``scoring.splits``). Never imports Django.

The names below load on first use (PEP 562): ``import scoring.submission_fields``
must not pull in pandas and scikit-learn, so that the command-line client starts
in well under a second for commands that do not validate a file.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scoring import longtail
    from scoring.api import Score, align, align_counted, load_truth, score_aligned, score_files, validate_truth
    from scoring.errors import Problem, ScoringError
    from scoring.kinds import kind_of
    from scoring.readers import Limits
    from scoring.registry import FAMILIES, TASKS, get_task, split_sibling
    from scoring.splits import Split, SplitSpec, load_split_truth, score_parts, score_parts_aligned
    from scoring.truth import (
        make_chemicalx_truth,
        synthetic_truth,
        test_inputs,
        truth_from_inputs,
        truth_keys,
        validate_prediction,
    )

    __version__: str

# Each public name and the module it lives in.
_HOMES = {
    "Score": "scoring.api",
    "align": "scoring.api",
    "align_counted": "scoring.api",
    "score_aligned": "scoring.api",
    "load_truth": "scoring.api",
    "score_files": "scoring.api",
    "validate_truth": "scoring.api",
    "Problem": "scoring.errors",
    "ScoringError": "scoring.errors",
    "kind_of": "scoring.kinds",
    "Limits": "scoring.readers",
    "FAMILIES": "scoring.registry",
    "TASKS": "scoring.registry",
    "get_task": "scoring.registry",
    "split_sibling": "scoring.registry",
    "Split": "scoring.splits",
    "SplitSpec": "scoring.splits",
    "load_split_truth": "scoring.splits",
    "score_parts": "scoring.splits",
    "score_parts_aligned": "scoring.splits",
    "make_chemicalx_truth": "scoring.truth",
    "synthetic_truth": "scoring.truth",
    "test_inputs": "scoring.truth",
    "truth_from_inputs": "scoring.truth",
    "truth_keys": "scoring.truth",
    "validate_prediction": "scoring.truth",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value = importlib.import_module("scoring.metrics").SCORER_VERSION
    elif name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    elif importlib.util.find_spec(f"scoring.{name}") is not None:
        # A submodule read as an attribute (``scoring.truth.write_csv``) before anything imported it.
        value = importlib.import_module(f"scoring.{name}")
    else:
        raise AttributeError(f"module 'scoring' has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    "FAMILIES",
    "TASKS",
    "Limits",
    "Problem",
    "Score",
    "ScoringError",
    "Split",
    "SplitSpec",
    "__version__",
    "align",
    "align_counted",
    "get_task",
    "kind_of",
    "load_split_truth",
    "load_truth",
    "longtail",
    "make_chemicalx_truth",
    "score_aligned",
    "score_files",
    "score_parts",
    "score_parts_aligned",
    "split_sibling",
    "synthetic_truth",
    "test_inputs",
    "truth_from_inputs",
    "truth_keys",
    "validate_prediction",
    "validate_truth",
]
