"""Parsed truth files, cached per process.

Parsing the MUDI truth (89k rows) costs a noticeable fraction of a second; a
worker scoring fifty small submissions, or the web process validating uploads,
parses it once per (phase, truth sha256) instead. A new truth file has a new
sha256, so a stale entry is never used.
"""

from __future__ import annotations

import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

import scoring
from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import copy_to_temp

# Truths kept per process; the largest (MUDI) takes tens of MB in memory.
MAX_CACHED = 4

_cache: OrderedDict[tuple[int, str], object] = OrderedDict()
_lock = threading.Lock()


class TruthMissing(Exception):
    """The phase has no truth file yet (an operator must run import_truth)."""


def phase_truth(phase: Phase):
    """The phase's parsed truth (``scoring.load_truth``), from the cache when possible."""
    if not phase.has_truth:
        raise TruthMissing(f"task {phase.task_slug} has no truth file; run manage.py import_truth")
    key = (phase.pk, phase.truth_sha256)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    with tempfile.TemporaryDirectory() as tmp:
        truth = scoring.load_truth(phase.task, copy_to_temp(phase.truth_file, Path(tmp)))
    with _lock:
        _cache[key] = truth
        _cache.move_to_end(key)
        while len(_cache) > MAX_CACHED:
            _cache.popitem(last=False)
    return truth


def clear_cache() -> None:
    """Forget every parsed truth (tests use this)."""
    with _lock:
        _cache.clear()

