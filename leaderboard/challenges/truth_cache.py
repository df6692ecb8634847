"""Parsed truth files, cached per process.

Parsing the MUDI truth (89k rows) costs a noticeable fraction of a second; a
worker scoring fifty small submissions, or the web process validating uploads,
parses it once per (phase, truth sha256) instead. A new truth file has a new
sha256, so a stale entry is never used.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import scoring
from leaderboard.challenges.models import Phase

if TYPE_CHECKING:
    from scoring.validation.common import Truth

# Truths kept per process; the largest (MUDI) takes tens of MB in memory.
MAX_CACHED = 4

_cache: OrderedDict[tuple[int, str], Truth] = OrderedDict()
_lock = threading.Lock()


class TruthMissing(Exception):
    """The phase has no truth file yet (an operator must run import_truth)."""


def phase_truth(phase: Phase) -> Truth:
    """The phase's parsed truth (``scoring.load_truth``), from the cache when possible."""
    if not phase.has_truth:
        raise TruthMissing(f"task {phase.task_slug} has no truth file; run manage.py import_truth")
    key = (phase.pk, phase.truth_sha256)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    # Streamed from storage (a local folder or a bucket): no local path is assumed.
    with phase.truth_file.open("rb") as handle:
        truth = scoring.load_truth(phase.task, handle)
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


def is_cached(phase: Phase) -> bool:
    with _lock:
        return (phase.pk, phase.truth_sha256) in _cache
