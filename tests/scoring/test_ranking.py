"""The ranking rule: direction, missing values, tie-breaks, dense ranks, leader marks."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import pytest

from scoring.ranking import Entry, rank

T0 = datetime(2025, 1, 1, 12, 0)


def entry(id, value, *, at=0, spread=None, n_seeds=1, flag=None, **others) -> Entry:
    return Entry(
        id=id,
        submitted_at=T0 + timedelta(minutes=at),
        values={"score": value, **others},
        spread=spread,
        n_seeds=n_seeds,
        indistinguishable_from_leader=flag,
    )


def ids(ranked) -> list:
    return [r.entry.id for r in ranked]


def test_an_empty_list_ranks_to_an_empty_list():
    assert rank([], metric="score", higher_is_better=True) == []


def test_a_single_entry_is_the_marked_leader():
    [only] = rank([entry("a", 0.5)], metric="score", higher_is_better=True)
    assert (only.rank, only.position, only.tied_with_leader) == (1, 1, True)


def test_higher_is_better_sorts_descending():
    ranked = rank([entry("a", 0.5), entry("b", 0.9), entry("c", 0.7)], metric="score", higher_is_better=True)
    assert ids(ranked) == ["b", "c", "a"]
    assert [r.rank for r in ranked] == [1, 2, 3]


def test_lower_is_better_sorts_ascending():
    ranked = rank([entry("a", 0.5), entry("b", 0.9), entry("c", 0.7)], metric="score", higher_is_better=False)
    assert ids(ranked) == ["a", "c", "b"]


def test_missing_and_nan_values_go_last_unranked_and_unmarked():
    entries = [entry("none", None, at=1), entry("nan", math.nan), entry("ok", 0.1), Entry("absent", T0, {}, None, 1)]
    ranked = rank(entries, metric="score", higher_is_better=False, interval_mode="seeds")
    assert ids(ranked)[0] == "ok"
    unranked = [r for r in ranked if r.rank is None]
    assert {r.entry.id for r in unranked} == {"none", "nan", "absent"}
    assert all(not r.tied_with_leader for r in unranked)
    assert [r.position for r in ranked] == [1, 2, 3, 4]
    # Unranked entries keep a deterministic order: earlier submission first, then id.
    assert ids(ranked)[1:] == ["absent", "nan", "none"]


def test_ties_on_the_metric_are_broken_by_the_tiebreak_chain_each_in_its_direction():
    entries = [
        entry("a", 0.8, f1=0.5, loss=0.2),
        entry("b", 0.8, f1=0.6, loss=0.9),
        entry("c", 0.8, f1=0.5, loss=0.1),
    ]
    ranked = rank(entries, metric="score", higher_is_better=True, tiebreak=[("f1", True), ("loss", False)])
    assert ids(ranked) == ["b", "c", "a"]
    assert [r.rank for r in ranked] == [1, 2, 3]


def test_a_missing_tiebreak_value_sorts_after_present_ones():
    entries = [entry("a", 0.8, f1=None), entry("b", 0.8, f1=0.1), entry("c", 0.8, f1=math.nan)]
    ranked = rank(entries, metric="score", higher_is_better=True, tiebreak=[("f1", True)])
    assert ids(ranked)[0] == "b"
    assert [r.rank for r in ranked] == [1, 2, 2]  # two missing tie-break values are equal


def test_full_ties_are_ordered_by_earlier_submission_then_id():
    entries = [entry("late", 0.8, at=5), entry("b", 0.8, at=1), entry("a", 0.8, at=1)]
    ranked = rank(entries, metric="score", higher_is_better=True)
    assert ids(ranked) == ["a", "b", "late"]
    assert [r.rank for r in ranked] == [1, 1, 1]
    assert [r.position for r in ranked] == [1, 2, 3]


def test_integer_ids_compare_as_numbers():
    entries = [Entry(10, 0.0, {"score": 1.0}, None, 1), Entry(9, 0.0, {"score": 1.0}, None, 1)]
    assert ids(rank(entries, metric="score", higher_is_better=True)) == [9, 10]


def test_float_timestamps_are_accepted():
    entries = [Entry("x", 2.0, {"score": 1.0}, None, 1), Entry("y", 1.0, {"score": 1.0}, None, 1)]
    assert ids(rank(entries, metric="score", higher_is_better=True)) == ["y", "x"]


def test_ranks_are_dense():
    entries = [entry("a", 0.9), entry("b", 0.9), entry("c", 0.8), entry("d", 0.7), entry("e", 0.7)]
    ranked = rank(entries, metric="score", higher_is_better=True)
    assert [r.rank for r in ranked] == [1, 1, 2, 3, 3]


def test_equal_metric_but_different_tiebreak_values_get_different_ranks():
    entries = [entry("a", 0.9, f1=0.1), entry("b", 0.9, f1=0.2)]
    ranked = rank(entries, metric="score", higher_is_better=True, tiebreak=[("f1", True)])
    assert [r.rank for r in ranked] == [1, 2]


def test_seeds_mode_marks_entries_whose_interval_overlaps_the_leaders():
    entries = [
        entry("leader", 0.80, spread=0.02),
        entry("touching", 0.76, spread=0.02),  # [0.74, 0.78] touches [0.78, 0.82]
        entry("overlapping", 0.77, spread=0.05),
        entry("apart", 0.70, spread=0.01),
        entry("no-spread", 0.79, spread=None),  # a point inside the leader's interval
    ]
    ranked = {r.entry.id: r for r in rank(entries, metric="score", higher_is_better=True, interval_mode="seeds")}
    assert ranked["leader"].tied_with_leader
    assert ranked["touching"].tied_with_leader
    assert ranked["overlapping"].tied_with_leader
    assert ranked["no-spread"].tied_with_leader
    assert not ranked["apart"].tied_with_leader


def test_seeds_mode_works_for_lower_is_better_metrics():
    entries = [entry("leader", 1.0, spread=0.1), entry("close", 1.15, spread=0.1), entry("far", 1.5, spread=0.1)]
    ranked = rank(entries, metric="score", higher_is_better=False, interval_mode="seeds")
    assert [r.tied_with_leader for r in ranked] == [True, True, False]


def test_bootstrap_mode_takes_the_precomputed_flag_and_always_marks_the_leader():
    entries = [
        entry("leader", 0.9, flag=False),
        entry("same", 0.85, flag=True),
        entry("different", 0.88, flag=False),
        entry("unknown", 0.87, flag=None),
    ]
    ranked = {r.entry.id: r for r in rank(entries, metric="score", higher_is_better=True, interval_mode="bootstrap")}
    assert ranked["leader"].tied_with_leader is True
    assert ranked["same"].tied_with_leader is True
    assert ranked["different"].tied_with_leader is False
    assert ranked["unknown"].tied_with_leader is False


def test_without_an_interval_mode_only_equal_values_are_marked():
    entries = [entry("a", 0.9, f1=0.2), entry("b", 0.9, f1=0.1), entry("c", 0.89)]
    ranked = rank(entries, metric="score", higher_is_better=True, tiebreak=[("f1", True)])
    assert [r.tied_with_leader for r in ranked] == [True, True, False]


def test_an_unknown_interval_mode_is_rejected():
    with pytest.raises(ValueError):
        rank([entry("a", 1.0)], metric="score", higher_is_better=True, interval_mode="vibes")
