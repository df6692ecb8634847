"""Suite ranking by mean normalised rank (``scoring.suites``): the rule, with worked examples."""

from __future__ import annotations

import pytest

from scoring.suites import Placement, normalised_rank, percentile, rank_suite

TASKS = ["t1", "t2", "t3", "t4"]


def test_normalised_rank_runs_from_zero_for_the_first_to_one_for_the_last():
    assert [normalised_rank(b, 5) for b in range(5)] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert normalised_rank(0, 1) == 0.0  # alone on a task: first
    assert percentile(1, 5) == 75.0
    with pytest.raises(ValueError, match="must be in 0..n-1"):
        normalised_rank(5, 5)


def test_a_worked_suite_with_partial_coverage():
    """Four tasks of 5, 3, 2 and 1 ranked entries.

    A: first of 5 on t1 (0), second of 3 on t2 (0.5), last of 2 on t3 (1) -> mean 0.5, 3/4.
    B: second of 5 on t1 (0.25), first of 3 on t2 (0), first of 2 on t3 (0), alone on t4 (0) -> 0.0625, 4/4.
    C: entered t1 only, last of 5 (1) -> 1.0, 1/4.
    D: entered t2 only, first of 3, tied with B (0) -> 0.0, 1/4: the best mean, on one task.
    """
    placements = {
        "A": [Placement("t1", 0, 5), Placement("t2", 1, 3), Placement("t3", 1, 2)],
        "B": [Placement("t1", 1, 5), Placement("t2", 0, 3), Placement("t3", 0, 2), Placement("t4", 0, 1)],
        "C": [Placement("t1", 4, 5)],
        "D": [Placement("t2", 0, 3)],
    }
    found = rank_suite(placements, TASKS)
    assert [(s.key, s.rank, s.mean_normalised_rank, len(s.entered), s.coverage) for s in found] == [
        ("D", 1, 0.0, 1, 0.25),
        ("B", 2, 0.0625, 4, 1.0),
        ("A", 3, 0.5, 3, 0.75),
        ("C", 4, 1.0, 1, 0.25),
    ]
    assert found[2].entered == ("t1", "t2", "t3")  # A is never ranked on t4, which it did not enter


def test_tasks_outside_the_suite_do_not_count_and_equal_means_tie_to_the_wider_coverage():
    placements = {
        "A": [Placement("t1", 0, 3), Placement("other", 2, 3)],  # "other" is not in this suite
        "B": [Placement("t1", 0, 3), Placement("t2", 0, 2)],
        "C": [Placement("t2", 0, 2)],
        "E": [Placement("other", 0, 3)],  # nothing inside: left out
    }
    found = rank_suite(placements, ["t1", "t2"])
    assert [(s.key, s.rank, s.mean_normalised_rank, s.entered) for s in found] == [
        ("B", 1, 0.0, ("t1", "t2")),
        ("A", 2, 0.0, ("t1",)),
        ("C", 2, 0.0, ("t2",)),
    ]


def test_means_reached_by_different_sums_tie():
    placements = {
        "A": [Placement("t1", 1, 11), Placement("t2", 2, 11)],
        "B": [Placement("t1", 3, 11), Placement("t2", 0, 11)],
    }
    first, second = rank_suite(placements, ["t1", "t2"])
    assert first.rank == second.rank == 1
