"""At truth upload: does a hidden truth share rows with a test set whose labels this site publishes?

An organizer's "held-out" truth that is a subset of a public benchmark's test set (MUDI's
test.csv, say) is no secret: participants download those labels from the benchmark. The
upload still succeeds (the organizer may know), but the page and the API say so, with the
numbers. Compared: the standing phases of the same dataset whose task's labels are public,
key by key (``scoring.truth_keys``: MUDI pairs unordered, no prefix; other tasks without seeds).
"""

from __future__ import annotations

import logging

import scoring
from leaderboard.challenges.models import Phase
from leaderboard.challenges.truth_cache import TruthMissing, phase_truth

log = logging.getLogger(__name__)


def public_overlaps(phase: Phase) -> list[str]:
    """One warning per public test set the phase's hidden truth shares keys with (empty: none, or not hidden)."""
    if not phase.truth_is_hidden or not phase.has_truth:
        return []
    task = phase.task
    candidates = [
        p
        for p in Phase.objects.standing().exclude(truth_file="").select_related("challenge")
        if p.task.dataset == task.dataset and p.task.family == task.family and p.task.public_labels
    ]
    if not candidates:
        return []
    try:
        mine = scoring.truth_keys(task, phase_truth(phase))
    except (TruthMissing, scoring.ScoringError, OSError) as error:
        log.warning("no overlap check for %s: %s", phase, error)
        return []
    warnings = []
    for other in candidates:
        try:
            common = len(mine & scoring.truth_keys(other.task, phase_truth(other)))
        except (TruthMissing, scoring.ScoringError, OSError) as error:
            log.warning("no overlap check of %s against %s: %s", phase, other, error)
            continue
        if common:
            share = common / len(mine) if mine else 0.0
            warnings.append(
                f"{common:,} of this truth's {len(mine):,} test keys ({share:.0%}) are in the public test set of "
                f"{other.task.dataset_name} ({other.task_slug}) hosted on this site, whose labels anyone can "
                "download: participants can look those rows up. Replace them with held-out rows, or tell "
                "participants which rows are public."
            )
    return warnings
