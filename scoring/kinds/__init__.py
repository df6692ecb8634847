"""The registry of benchmark kinds; each kind is its own small module here.

``kind_of(task)`` is the one place that dispatches on ``Task.kind``. Adding a
kind: a module that builds a ``Kind`` and calls ``register`` (a test may
register one of its own the same way).
"""

from scoring.kinds import classification, mudi, pair, regression  # noqa: F401 (each registers itself)
from scoring.kinds.base import KINDS, Kind, kind_of, register

__all__ = ["KINDS", "Kind", "kind_of", "register"]
