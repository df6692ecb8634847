"""Parsed truth files, cached per process.

Parsing the MUDI truth (89k rows) costs a noticeable fraction of a second; a
worker scoring fifty small submissions, or the web process validating uploads,
parses it once per (phase, truth sha256) instead. A new truth file has a new
sha256, so a stale entry is never used. A phase with a public/private split
caches its ``scoring.Split`` alongside (``phase_split``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import scoring
from leaderboard.challenges.models import Phase

# Truths kept per process; the largest (MUDI) takes tens of MB in memory.
MAX_CACHED = 4

_cache: OrderedDict[tuple[int, str, str], tuple] = OrderedDict()
_lock = threading.Lock()


class TruthMissing(Exception):
    """The phase has no truth file yet (an operator must run import_truth)."""


def phase_truth(phase: Phase):
    """The phase's parsed truth (``scoring.load_truth``), from the cache when possible."""
    return _entry(phase)[0]


def phase_split(phase: Phase):
    """The phase's ``scoring.Split`` of its current truth, or None for a phase without a private part."""
    return _entry(phase)[1]


def _parse(phase: Phase, handle) -> tuple:
    """(truth, split): a split phase's truth is read with its split (a usage column is removed first)."""
    spec = phase.split_spec
    if spec is None:
        return scoring.load_truth(phase.task, handle), None
    return scoring.load_split_truth(phase.task, handle, spec)


def _entry(phase: Phase) -> tuple:
    if not phase.has_truth:
        raise TruthMissing(f"task {phase.task_slug} has no truth file; run manage.py import_truth")
    # The split spec is part of the key: changing it re-splits the same file.
    key = (phase.pk, phase.truth_sha256, repr(phase.split))
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    # Streamed from storage (a local folder or a bucket): no local path is assumed.
    with phase.truth_file.open("rb") as handle:
        entry = _parse(phase, handle)
    with _lock:
        _cache[key] = entry
        _cache.move_to_end(key)
        while len(_cache) > MAX_CACHED:
            _cache.popitem(last=False)
    return entry


def clear_cache() -> None:
    """Forget every parsed truth (tests use this)."""
    with _lock:
        _cache.clear()


def is_cached(phase: Phase) -> bool:
    with _lock:
        return (phase.pk, phase.truth_sha256, repr(phase.split)) in _cache
