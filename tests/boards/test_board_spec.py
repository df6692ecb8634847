"""What each task's board shows: views, ranking metric, columns, declaration tags."""

from __future__ import annotations

import pytest

import scoring
from leaderboard.boards.spec import declaration_badges, declaration_tags, direction_spec, directions_for


def test_mudi_has_an_aware_and_an_agnostic_view_each_ranked_by_its_own_macro_f1():
    task = scoring.get_task("mudi")
    assert directions_for(task) == ("aware", "agnostic")
    aware, agnostic = direction_spec(task, "aware"), direction_spec(task, "agnostic")
    assert aware.metric == "aware/macro/f1" and agnostic.metric == "agnostic/macro/f1"
    assert agnostic.tiebreak == (("agnostic/micro/f1", True), ("aware/macro/f1", True))
    assert agnostic.significance == aware.significance == "bootstrap"
    assert [c.key for c in agnostic.class_columns] == [
        "agnostic/synergism/f1",
        "agnostic/antagonism/f1",
        "agnostic/new_effect/f1",
    ]
    assert "aware/macro/f1" in [c.key for c in agnostic.columns]


def test_the_bootstrap_of_the_agnostic_view_tests_the_agnostic_metric():
    task = direction_spec(scoring.get_task("mudi"), "agnostic").ranking_task()
    assert task.primary == "agnostic/macro/f1"
    assert direction_spec(scoring.get_task("mudi"), "aware").ranking_task() is scoring.get_task("mudi")


def test_multi_seed_tasks_use_seed_intervals_and_keep_per_seed_values():
    spec = direction_spec(scoring.get_task("chemicalx-drugcomb"))
    assert spec.significance == "seeds"
    assert spec.spread_key("auroc") == "auroc/stderr"
    assert "seed/9/auroc" in spec.stored_keys()


def test_imdrug_shows_per_class_f1_columns_up_to_ten_classes_only():
    assert len(direction_spec(scoring.get_task("imdrug-uspto50k-random")).class_columns) == 10
    drugbank = direction_spec(scoring.get_task("imdrug-drugbank-random"))
    assert drugbank.class_columns == ()
    assert len(drugbank.class_chart_keys) == 86


def test_an_unknown_view_is_refused():
    with pytest.raises(KeyError):
        direction_spec(scoring.get_task("chemicalx-twosides"), "aware")


def test_declaration_tags_cover_choices_the_exact_set_and_yes_no_answers():
    mudi = scoring.get_task("mudi")
    tags = declaration_tags(mudi, {"modalities": ["Graph", "text"]}, uses_external_data=False, is_baseline=True)
    assert "|modalities=graph|" in tags and "|modalities=text|" in tags
    assert "|modalities:=graph,text|" in tags
    assert "|external=no|" in tags and "|baseline=yes|" in tags
    ddi = scoring.get_task("chemicalx-drugbankddi")
    assert "|uses_context_features=no|" in declaration_tags(
        ddi, {"uses_context_features": False}, uses_external_data=True, is_baseline=False
    )
    assert "|uses_context_features=unknown|" in declaration_tags(ddi, {}, uses_external_data=False, is_baseline=False)


def test_badges_name_the_declared_modalities_and_answers():
    assert declaration_badges(scoring.get_task("mudi"), {"modalities": ["graph"]}) == ["graph"]
    ddi = scoring.get_task("chemicalx-drugbankddi")
    assert declaration_badges(ddi, {"uses_context_features": True}) == ["Uses context features: yes"]
