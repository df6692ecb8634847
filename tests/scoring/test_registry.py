"""The benchmark registry: slugs, classes, directions and derived metric keys."""

from __future__ import annotations

import dataclasses

import pytest

from scoring.registry import FAMILIES, TASKS, Declaration, get_task, tasks_in_family

EXPECTED_SLUGS = [
    "mudi",
    "imdrug-hiv-random",
    "imdrug-hiv-standard",
    "imdrug-sbap-random",
    "imdrug-sbap-standard",
    "imdrug-sbap-regression",
    "imdrug-uspto50k-random",
    "imdrug-uspto50k-standard",
    "imdrug-drugbank-random",
    "imdrug-drugbank-standard",
    "imdrug-drugbank-openlt",
    "chemicalx-drugbankddi",
    "chemicalx-twosides",
    "chemicalx-drugcomb",
    "chemicalx-drugcombdb",
    "chemicalx-oncolypharm",
]


def test_it_registers_exactly_the_expected_tasks_in_order():
    assert list(TASKS) == EXPECTED_SLUGS


def test_get_task_returns_the_task_by_slug():
    assert get_task("mudi").slug == "mudi"


def test_get_task_lists_valid_slugs_when_the_slug_is_unknown():
    with pytest.raises(KeyError) as error:
        get_task("mudii")
    assert "mudii" in str(error.value)
    assert "chemicalx-drugcomb" in str(error.value)


def test_tasks_in_family_returns_the_family_members_in_order():
    assert [t.slug for t in tasks_in_family("chemicalx")] == EXPECTED_SLUGS[11:]
    assert [t.slug for t in tasks_in_family("mudi")] == ["mudi"]
    assert len(tasks_in_family("imdrug")) == 10
    with pytest.raises(KeyError):
        tasks_in_family("tdc")


def test_every_task_belongs_to_a_known_family_and_has_a_citation():
    for task in TASKS.values():
        family = FAMILIES[task.family]
        assert task.citation == family.citation
        assert task.paper_url == family.paper_url
    assert "2506.01478" in FAMILIES["mudi"].citation
    assert "2209.07921" in FAMILIES["imdrug"].citation
    assert "2202.05240" in FAMILIES["chemicalx"].citation


def test_primary_and_tiebreak_metrics_are_declared_metrics():
    for task in TASKS.values():
        keys = [m.key for m in task.metrics]
        assert task.primary in keys
        assert all(key in keys for key in task.secondary)
        assert task.primary not in task.secondary


def test_primary_metrics_and_directions_follow_the_brief():
    assert get_task("mudi").primary == "aware/macro/f1"
    assert get_task("mudi").secondary == ("aware/micro/f1", "agnostic/macro/f1")
    assert get_task("imdrug-hiv-random").primary == "balanced_accuracy"
    assert get_task("imdrug-hiv-random").secondary == ("balanced_f1", "auroc")
    regression = get_task("imdrug-sbap-regression")
    assert (regression.primary, regression.secondary) == ("mse", ("mae",))
    assert regression.higher_is_better("mse") is False
    assert regression.higher_is_better("mae") is False
    pair = get_task("chemicalx-twosides")
    assert (pair.primary, pair.secondary) == ("auroc", ("aupr", "f1"))
    assert pair.higher_is_better("auroc") is True


def test_seeds_and_spreads_follow_each_family():
    for task in TASKS.values():
        if task.family == "mudi":
            assert (task.seeds, task.spread) == ((0,), None)
        elif task.family == "imdrug":
            assert (task.seeds, task.spread) == ((0, 1, 2), "std")
        else:
            assert (task.seeds, task.spread) == (tuple(range(10)), "stderr")


def test_class_lists_have_the_documented_sizes_and_names():
    assert get_task("mudi").classes == ("Synergism", "Antagonism", "New Effect")
    assert get_task("imdrug-hiv-standard").classes == ("inactive", "active")
    uspto = get_task("imdrug-uspto50k-random").classes
    assert len(uspto) == 10
    assert uspto[0] == "heteroatom alkylation and arylation"
    assert uspto[9] == "functional group addition"
    drugbank = get_task("imdrug-drugbank-random").classes
    assert len(drugbank) == 86
    assert (drugbank[0], drugbank[85]) == ("type 1", "type 86")
    openlt = get_task("imdrug-drugbank-openlt").classes
    assert len(openlt) == 69
    assert openlt[-1] == "open"
    assert get_task("imdrug-sbap-regression").classes == ()
    assert get_task("chemicalx-drugcomb").classes == ("negative", "positive")


def test_probability_columns_are_named_by_class_index():
    task = get_task("imdrug-uspto50k-standard")
    assert task.optional_prediction_columns == tuple(f"prob_{i}" for i in range(10))
    assert get_task("imdrug-hiv-random").optional_prediction_columns == ("prob_0", "prob_1", "score")


def test_file_columns_match_the_readers():
    assert get_task("mudi").truth_columns == ("Drug1", "Interaction", "Drug2")
    assert get_task("imdrug-sbap-random").prediction_columns == ("seed", "id", "prediction")
    assert get_task("imdrug-sbap-regression").truth_columns == ("seed", "id", "label")
    pair = get_task("chemicalx-drugbankddi")
    assert pair.truth_columns == ("seed", "drug_1", "drug_2", "context", "label")
    assert pair.prediction_columns == ("seed", "drug_1", "drug_2", "context", "prediction")


def test_the_label_rule_is_in_every_classification_description():
    for task in TASKS.values():
        if task.kind == "classification":
            assert "0-based integer index" in task.description


def test_declarations_exist_for_mudi_and_drugbankddi_only():
    modalities = get_task("mudi").declarations
    assert modalities == (
        Declaration("modalities", "Modalities used", modalities[0].help, ("text", "formula", "graph", "image")),
    )
    context = get_task("chemicalx-drugbankddi").declarations
    assert [d.key for d in context] == ["uses_context_features"]
    assert context[0].choices is None
    others = [t for t in TASKS.values() if t.slug not in ("mudi", "chemicalx-drugbankddi")]
    assert all(t.declarations == () for t in others)


def test_the_drugbankddi_context_leak_and_oncolypharm_caveats_are_shown():
    assert any("context" in c and "answer" in c for c in get_task("chemicalx-drugbankddi").caveats)
    assert any("binarised" in c for c in get_task("chemicalx-oncolypharm").caveats)


def test_metric_resolves_derived_keys_with_their_directions():
    task = get_task("imdrug-hiv-random")
    assert task.metric("balanced_accuracy/std").higher_is_better is False
    assert task.metric("seed/2/balanced_f1").higher_is_better is True
    assert task.metric("class/active/recall").higher_is_better is True
    regression = get_task("imdrug-sbap-regression")
    assert regression.higher_is_better("seed/0/mse") is False
    pair = get_task("chemicalx-drugcomb")
    assert pair.metric("aupr/stderr").name == "AUPR (stderr)"
    mudi = get_task("mudi")
    assert mudi.higher_is_better("agnostic/new_effect/f1") is True
    assert mudi.higher_is_better("aware/synergism/fp") is False
    assert mudi.higher_is_better("aware/synergism/tp") is True


@pytest.mark.parametrize(
    "slug, key",
    [
        ("imdrug-hiv-random", "seed/7/auroc"),
        ("imdrug-hiv-random", "class/unknown/recall"),
        ("imdrug-hiv-random", "aupr"),
        ("mudi", "aware/micro/tp"),
        ("mudi", "sideways/macro/f1"),
        ("chemicalx-drugcomb", "auroc/std/std"),
    ],
)
def test_metric_raises_key_error_for_unknown_keys(slug, key):
    with pytest.raises(KeyError):
        get_task(slug).metric(key)


def test_tasks_are_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        get_task("mudi").primary = "aware/micro/f1"
