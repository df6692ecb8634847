"""Who gets a row and where it goes (leaderboard.boards.placement): pure functions, no database."""

from __future__ import annotations

import datetime as dt

import scoring
from leaderboard.boards.placement import (
    LATEST,
    Candidate,
    column_tiebreak,
    leader,
    place,
    place_by_columns,
    place_for_direction,
    progression,
    representatives,
)
from leaderboard.boards.spec import direction_spec

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
MUDI = direction_spec(scoring.get_task("mudi"), "aware")
PAIR = direction_spec(scoring.get_task("chemicalx-twosides"))
REGRESSION = direction_spec(scoring.get_task("imdrug-sbap-regression"))


def cand(cid, value, *, team=1, method="M", minutes=0, public=True, **values) -> Candidate:
    metric_values = dict(values)
    if value is not None:
        metric_values.setdefault("metric", value)
    return Candidate(
        id=cid,
        team_id=team,
        team_name=f"team {team}",
        method_name=method,
        submitted_at=T0 + dt.timedelta(minutes=minutes),
        is_public=public,
        values=metric_values,
    )


def mudi(cid, aware, *, micro=None, **kwargs) -> Candidate:
    values = {"aware/macro/f1": aware}
    if micro is not None:
        values["aware/micro/f1"] = micro
    c = cand(cid, None, **kwargs)
    return Candidate(**{**c.__dict__, "values": values})


def ranked_ids(places: dict) -> list[str]:
    return [cid for cid, _ in sorted(places.items(), key=lambda item: (item[1].position, item[0]))]


def test_it_keeps_one_row_per_team_and_method_the_best_one():
    rows = representatives(MUDI, [mudi("a", 0.5), mudi("b", 0.7, minutes=1), mudi("c", 0.6, team=2)])
    assert sorted(c.id for c in rows) == ["b", "c"]


def test_method_names_differing_only_in_case_or_spaces_are_one_method():
    rows = representatives(MUDI, [mudi("a", 0.5, method="GNN"), mudi("b", 0.7, method=" gnn ")])
    assert [c.id for c in rows] == ["b"]


def test_the_best_submission_ties_go_to_the_earlier_one():
    rows = representatives(MUDI, [mudi("late", 0.7, minutes=5), mudi("early", 0.7, minutes=1)])
    assert [c.id for c in rows] == ["early"]


def test_a_tie_on_the_metric_is_broken_by_the_secondary_metric_before_the_date():
    rows = representatives(MUDI, [mudi("early", 0.7, micro=0.1, minutes=1), mudi("late", 0.7, micro=0.9, minutes=5)])
    assert [c.id for c in rows] == ["late"]


def test_latest_mode_keeps_the_newest_submission_even_if_worse():
    rows = representatives(MUDI, [mudi("old", 0.9), mudi("new", 0.1, minutes=3)], LATEST)
    assert [c.id for c in rows] == ["new"]


def test_a_submission_without_the_metric_never_beats_one_with_it():
    rows = representatives(MUDI, [mudi("none", None, minutes=0), mudi("some", 0.01, minutes=9)])
    assert [c.id for c in rows] == ["some"]


def test_public_and_private_submissions_of_one_method_get_separate_rows():
    rows = representatives(MUDI, [mudi("pub", 0.5), mudi("priv", 0.9, public=False)])
    assert sorted(c.id for c in rows) == ["priv", "pub"]


def test_higher_is_better_metrics_rank_descending_with_dense_ranks():
    places = place([cand("a", 0.5), cand("b", 0.9), cand("c", 0.5, minutes=1)], metric="metric", higher_is_better=True)
    assert ranked_ids(places) == ["b", "a", "c"]
    assert [places[i].rank for i in ("b", "a", "c")] == [1, 2, 2]


def test_lower_is_better_metrics_rank_ascending():
    places = place([cand("a", 0.5), cand("b", 0.9), cand("c", 0.1)], metric="metric", higher_is_better=False)
    assert ranked_ids(places) == ["c", "a", "b"]


def test_missing_values_go_last_and_are_unranked():
    places = place([cand("none", None), cand("a", 0.1)], metric="metric", higher_is_better=True)
    assert ranked_ids(places) == ["a", "none"]
    assert places["none"].rank is None
    assert places["none"].tied_with_leader is False


def test_private_rows_do_not_change_public_ranks():
    public = [cand("p1", 0.9), cand("p2", 0.5, team=2)]
    alone = place(public, metric="metric", higher_is_better=True)
    mixed = place(public + [cand("x", 0.95, team=3, public=False)], metric="metric", higher_is_better=True)
    assert {k: mixed[k] for k in ("p1", "p2")} == alone


def test_a_private_row_takes_the_rank_and_position_it_would_have_among_public_rows():
    rows = [cand("p1", 0.9), cand("p2", 0.5, team=2), cand("p3", 0.1, team=4), cand("x", 0.7, team=3, public=False)]
    places = place(rows, metric="metric", higher_is_better=True)
    assert (places["x"].rank, places["x"].position) == (2, 2)
    # Ordering by (position, public last) puts it just above the public row it would displace.
    order = sorted(rows, key=lambda c: (places[c.id].position, c.is_public))
    assert [c.id for c in order] == ["p1", "x", "p2", "p3"]


def test_a_teams_private_rows_are_placed_against_each_other_too():
    rows = [
        cand("p1", 0.9),
        cand("x", 0.7, team=3, public=False, method="A"),
        cand("y", 0.6, team=3, public=False, method="B"),
    ]
    places = place(rows, metric="metric", higher_is_better=True)
    assert (places["x"].rank, places["y"].rank) == (2, 3)
    assert (places["x"].position, places["y"].position) == (2, 2)


def test_private_rows_of_different_teams_ignore_each_other():
    rows = [cand("p1", 0.9), cand("x", 0.7, team=3, public=False), cand("y", 0.8, team=4, public=False)]
    places = place(rows, metric="metric", higher_is_better=True)
    assert places["x"].rank == 2 and places["y"].rank == 2


def test_the_leader_is_the_best_public_row():
    rows = [mudi("priv", 0.99, public=False), mudi("pub", 0.5, team=2), mudi("pub2", 0.4, team=3)]
    assert leader(MUDI, rows).id == "pub"
    assert leader(MUDI, [mudi("none", None)]) is None


def test_sorting_by_a_column_ranks_by_it_in_its_own_direction():
    rows = [
        cand("a", None, **{"mse": 0.5, "mae": 0.1}),
        cand("b", None, team=2, **{"mse": 0.2, "mae": 0.3}),
        cand("c", None, team=3, **{"mse": 0.3}),
    ]
    by_column = place_by_columns(REGRESSION, rows)
    assert set(by_column) == {"mae"}
    assert ranked_ids(by_column["mae"]) == ["a", "b", "c"]
    assert by_column["mae"]["c"].rank is None


def test_a_column_sort_breaks_ties_by_the_ranking_metric_first():
    assert column_tiebreak(MUDI, "aware/micro/f1") == (("aware/macro/f1", True), ("agnostic/macro/f1", True))
    assert column_tiebreak(REGRESSION, "mae") == (("mse", False),)


def test_progression_lists_each_new_record_and_ignores_ties_and_private_rows():
    steps = progression(
        MUDI,
        [
            mudi("a", 0.5, minutes=0),
            mudi("tie", 0.5, minutes=1),
            mudi("worse", 0.4, minutes=2),
            mudi("secret", 0.99, minutes=3, public=False),
            mudi("b", 0.6, minutes=4),
        ],
    )
    assert [s["submission"] for s in steps] == ["a", "b"]
    assert steps[1]["value"] == 0.6


def test_progression_of_a_lower_is_better_metric_goes_down():
    rows = [cand("a", None, mse=0.5), cand("b", None, minutes=1, mse=0.7), cand("c", None, minutes=2, mse=0.2)]
    assert [s["submission"] for s in progression(REGRESSION, rows)] == ["a", "c"]


def test_a_private_row_tied_with_a_public_row_shares_its_rank():
    rows = [cand("p1", 0.9), cand("p2", 0.5, team=2), cand("x", 0.5, team=3, public=False, minutes=-1)]
    places = place(rows, metric="metric", higher_is_better=True)
    assert places["x"].rank == places["p2"].rank == 2
    assert places["x"].position == 2  # the earlier submission goes first


def test_a_private_row_beating_the_public_leader_would_lead():
    rows = [
        cand("lead", 0.80, **{"auroc": 0.80, "auroc/stderr": 0.01}),
        cand("x", 0.95, team=3, public=False, **{"auroc": 0.95, "auroc/stderr": 0.01}),
        cand("y", 0.50, team=4, public=False, **{"auroc": 0.50, "auroc/stderr": 0.01}),
    ]
    places = place_for_direction(PAIR, rows)
    assert (places["x"].rank, places["x"].position) == (1, 1)
    assert places["y"].rank == 2
    assert places["lead"] == place_for_direction(PAIR, rows[:1])["lead"]


def test_a_private_row_without_the_metric_is_unranked_after_the_ranked_public_rows():
    places = place([cand("p1", 0.9), cand("x", None, team=3, public=False)], metric="metric", higher_is_better=True)
    assert (places["x"].rank, places["x"].position) == (None, 2)
