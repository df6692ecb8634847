"""Framework-free scoring for the drug-interaction leaderboard.

Parse and validate truth and prediction files (``scoring.readers``,
``scoring.validation``), compute the benchmark metrics (``scoring.metrics``),
build truth and test-input files (``scoring.truth``) and split a challenge's
test rows into public and private parts (``scoring.splits``). Never imports Django.
"""

from scoring import longtail
from scoring.api import Score, align, load_truth, score_files, validate_truth
from scoring.errors import Problem, ScoringError
from scoring.kinds import kind_of
from scoring.metrics import SCORER_VERSION
from scoring.readers import Limits
from scoring.registry import FAMILIES, TASKS, get_task, split_sibling
from scoring.splits import Split, SplitSpec, load_split_truth, score_parts
from scoring.truth import (
    make_chemicalx_truth,
    synthetic_truth,
    test_inputs,
    truth_from_inputs,
    truth_keys,
    validate_prediction,
)

__version__ = SCORER_VERSION

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
    "get_task",
    "kind_of",
    "load_split_truth",
    "load_truth",
    "longtail",
    "make_chemicalx_truth",
    "score_files",
    "score_parts",
    "split_sibling",
    "synthetic_truth",
    "test_inputs",
    "truth_from_inputs",
    "truth_keys",
    "validate_prediction",
    "validate_truth",
]
