"""ImDrug head / middle / tail: the authors' cut, the grouping's validation, and the values per group."""

from __future__ import annotations

import numpy as np
import pytest

from scoring import ScoringError, align, load_truth, longtail, score_files
from scoring.aligned import ClassificationAligned, ClassificationSeed
from scoring.metrics import compute, imdrug
from scoring.registry import get_task
from scoring.validation.imdrug import attach_group_mapping, read_group_mapping, truth_with_group_column

USPTO = get_task("imdrug-uspto50k-random")
THREE = tuple(USPTO.classes[:3])
# BENCHMARKS.md's first worked case: per-class recall [2/3, 1, 1/2], balanced precision [0.8, 0.6, 1.0].
GOLD = [0, 0, 0, 1, 2, 2, 2, 2, 2, 2]
PRED = [0, 0, 1, 1, 0, 1, 1, 2, 2, 2]


def one_seed(y_true, y_pred, proba=None, seed=0) -> ClassificationSeed:
    ids = np.array([f"s{seed}r{i}" for i in range(len(y_true))], dtype=object)
    return ClassificationSeed(
        ids, np.asarray(y_true), np.asarray(y_pred), None if proba is None else np.asarray(proba, float)
    )


def grouped(seeds: dict, groups) -> ClassificationAligned:
    groups = tuple(groups) + (None,) * (len(USPTO.classes) - len(groups))
    return ClassificationAligned(seeds=seeds, class_names=USPTO.classes, class_groups=groups)


@pytest.mark.parametrize("n, sizes", [(10, (3, 4, 3)), (86, (26, 34, 26)), (68, (21, 27, 20)), (3, (1, 1, 1))])
def test_the_authors_cut_gives_these_group_sizes(n, sizes):
    assert longtail.group_sizes(n) == sizes


def test_classes_are_ranked_by_count_most_frequent_first():
    counts = [5, 50, 1, 20, 8, 9, 30, 2, 3, 4]
    groups = longtail.groups_from_counts(counts)
    assert [i for i, g in enumerate(groups) if g == "head"] == [1, 3, 6]
    assert [i for i, g in enumerate(groups) if g == "tail"] == [2, 7, 8]
    assert groups.count("middle") == 4


def test_the_open_class_is_its_own_group_and_outside_the_cut():
    groups = longtail.groups_from_counts([9, 8, 7, 100], open_index=3)
    assert groups == ("head", "middle", "tail", "open")


def test_head_and_tail_values_of_the_first_worked_case_by_hand():
    # head = classes 0 and 1, tail = class 2, no middle class.
    metrics = compute(USPTO, grouped({0: one_seed(GOLD, PRED)}, ("head", "head", "tail"))).metrics
    assert metrics["group/head/balanced_accuracy"] == pytest.approx((2 / 3 + 1) / 2)
    # Balanced F1 per class: 2*0.8*(2/3)/(0.8+2/3) = 0.727273, 2*0.6*1/1.6 = 0.75, 2*1*0.5/1.5 = 0.666667.
    assert metrics["group/head/balanced_f1"] == pytest.approx((0.727273 + 0.75) / 2, abs=1e-6)
    assert metrics["group/tail/balanced_accuracy"] == pytest.approx(0.5)
    assert metrics["group/tail/balanced_f1"] == pytest.approx(2 / 3)
    assert not any(key.startswith("group/middle/") for key in metrics)
    assert metrics["group/head/balanced_accuracy/std"] == 0.0


def test_group_auroc_is_the_mean_of_its_classes_one_vs_rest_areas():
    proba = np.zeros((4, len(USPTO.classes)))
    proba[:, :3] = [[0.6, 0.3, 0.1], [0.4, 0.4, 0.2], [0.5, 0.3, 0.2], [0.1, 0.2, 0.7]]
    # Class 0: 3 of 4 pairs ordered = 0.75; class 1: a tie, a loss, a win = 0.5; class 2: 1.0.
    aligned = grouped({0: one_seed([0, 0, 1, 2], [0, 0, 0, 2], proba)}, ("head", "head", "tail"))
    metrics = compute(USPTO, aligned).metrics
    assert metrics["group/head/auroc"] == pytest.approx(0.625)
    assert metrics["group/tail/auroc"] == pytest.approx(1.0)


def test_without_probabilities_there_is_no_group_auroc():
    metrics = compute(USPTO, grouped({0: one_seed(GOLD, PRED)}, ("head", "middle", "tail"))).metrics
    assert "group/head/balanced_accuracy" in metrics
    assert not any(key.endswith("/auroc") for key in metrics if key.startswith("group/"))


def test_values_are_the_mean_and_population_std_over_seeds():
    seeds = {0: one_seed(GOLD, PRED, seed=0), 1: one_seed(GOLD, GOLD, seed=1)}
    metrics = compute(USPTO, grouped(seeds, ("head", "middle", "tail"))).metrics
    # Tail recall is 0.5 on seed 0 and 1.0 on seed 1.
    assert metrics["seed/0/group/tail/balanced_accuracy"] == pytest.approx(0.5)
    assert metrics["seed/1/group/tail/balanced_accuracy"] == pytest.approx(1.0)
    assert metrics["group/tail/balanced_accuracy"] == pytest.approx(0.75)
    assert metrics["group/tail/balanced_accuracy/std"] == pytest.approx(0.25)


def test_a_group_missing_from_one_seed_has_no_mean():
    seeds = {0: one_seed(GOLD, PRED, seed=0), 1: one_seed([0, 1], [0, 1], seed=1)}
    metrics = compute(USPTO, grouped(seeds, ("head", "middle", "tail"))).metrics
    assert "seed/0/group/tail/balanced_accuracy" in metrics
    assert "group/tail/balanced_accuracy" not in metrics
    assert "group/head/balanced_accuracy" in metrics


def test_without_a_grouping_the_group_keys_are_absent():
    aligned = ClassificationAligned(seeds={0: one_seed(GOLD, PRED)}, class_names=USPTO.classes)
    result = compute(USPTO, aligned)
    assert not any(key.startswith("group/") or "/group/" in key for key in result.metrics)
    assert "groups" not in result.report


# --- the authors' positional averaging ------------------------------------------------------


def positional_groups(y_true, y_pred, n_classes):
    """The authors' rule: per-class recall of the classes present, sliced by position with the K-class cut."""
    cm = imdrug.confusion_matrix(np.asarray(y_true), np.asarray(y_pred), n_classes)
    present = np.flatnonzero(cm.sum(axis=1) > 0)
    recall = np.diag(cm)[present] / cm.sum(axis=1)[present]
    head, middle, _ = longtail.group_sizes(n_classes)
    return {
        "head": float(np.mean(recall[:head])),
        "middle": float(np.mean(recall[head : head + middle])),
        "tail": float(np.mean(recall[head + middle :])),
    }


def long_tailed_case(rng, drop_class=None):
    # Class k appears 40 - 3k times: class ids are in frequency order, as the authors relabel them.
    y_true = np.repeat(np.arange(10), [40 - 3 * k for k in range(10)])
    if drop_class is not None:
        y_true = y_true[y_true != drop_class]
    noise = rng.random(y_true.size) < 0.4
    y_pred = np.where(noise, rng.integers(0, 10, y_true.size), y_true)
    return y_true, y_pred


def test_positional_and_class_id_averaging_agree_when_every_class_is_present():
    rng = np.random.default_rng(7)
    y_true, y_pred = long_tailed_case(rng)
    groups = longtail.groups_from_counts(np.bincount(y_true, minlength=10).tolist())
    metrics = compute(USPTO, grouped({0: one_seed(y_true, y_pred)}, groups)).metrics
    authors = positional_groups(y_true, y_pred, 10)
    for group in ("head", "middle", "tail"):
        assert metrics[f"group/{group}/balanced_accuracy"] == pytest.approx(authors[group])


def test_positional_averaging_shifts_the_groups_when_a_class_is_absent():
    rng = np.random.default_rng(7)
    y_true, y_pred = long_tailed_case(rng, drop_class=1)  # a head class missing from this seed's test rows
    groups = longtail.groups_from_counts([40 - 3 * k for k in range(10)])
    metrics = compute(USPTO, grouped({0: one_seed(y_true, y_pred)}, groups)).metrics
    authors = positional_groups(y_true, y_pred, 10)
    # Positionally, class 3 (a middle class) moves into the head and class 7 (tail) into the middle.
    assert metrics["group/head/balanced_accuracy"] != pytest.approx(authors["head"])
    cm = imdrug.confusion_matrix(y_true, y_pred, 10)
    recall = np.diag(cm) / np.maximum(cm.sum(axis=1), 1)
    assert metrics["group/head/balanced_accuracy"] == pytest.approx(np.mean(recall[[0, 2]]))


# --- the grouping carried by the truth -------------------------------------------------------

TRUTH = """seed,id,label,group
0,r1,0,head
0,r2,1,middle
0,r3,2,tail
0,r4,0,head
"""
PREDICTION = """seed,id,prediction
0,r1,0
0,r2,1
0,r3,1
0,r4,2
"""


def test_a_group_column_in_the_truth_carries_the_grouping(write):
    truth = load_truth(USPTO, write("t.csv", TRUTH))
    assert truth.class_groups[:3] == ("head", "middle", "tail")
    assert truth.class_groups[3:] == (None,) * 7
    score = score_files(USPTO, truth, write("p.csv", PREDICTION))
    assert score.metrics["group/head/balanced_accuracy"] == pytest.approx(0.5)
    assert score.metrics["group/middle/balanced_accuracy"] == pytest.approx(1.0)
    assert score.metrics["group/tail/balanced_accuracy"] == pytest.approx(0.0)
    assert score.report["groups"]["sizes"] == {"head": 1, "middle": 1, "tail": 1}


def test_group_names_are_read_in_any_case(write):
    truth = load_truth(USPTO, write("t.csv", TRUTH.replace("head", "HEAD").replace("tail", " Tail")))
    assert truth.class_groups[:3] == ("head", "middle", "tail")


def test_a_class_with_two_groups_is_located_on_the_line_that_disagrees(write):
    bad = TRUTH + "0,r5,2,head\n"
    with pytest.raises(ScoringError) as caught:
        load_truth(USPTO, write("t.csv", bad))
    problem = caught.value.problems[0]
    assert (problem.line, problem.column) == (6, "group")
    assert 'group "head" here but in "tail" on line 4' in problem.message


def test_unknown_and_empty_groups_are_located(write):
    bad = TRUTH.replace("0,r2,1,middle", "0,r2,1,torso").replace("0,r4,0,head", "0,r4,0,")
    with pytest.raises(ScoringError) as caught:
        load_truth(USPTO, write("t.csv", bad))
    found = {(p.line, p.column): p.message for p in caught.value.problems}
    assert '"torso" is not a group' in found[(3, "group")]
    assert "is empty" in found[(5, "group")]


def test_a_truth_without_the_column_has_no_grouping_and_no_group_keys(write):
    plain = "\n".join(line.rsplit(",", 1)[0] for line in TRUTH.splitlines()) + "\n"
    truth = load_truth(USPTO, write("t.csv", plain))
    assert longtail.class_groups_of(truth) is None
    score = score_files(USPTO, truth, write("p.csv", PREDICTION))
    assert not any(key.startswith("group/") for key in score.metrics)


def test_an_organizer_mapping_gives_the_grouping_by_class_name_or_index(write):
    plain = "\n".join(line.rsplit(",", 1)[0] for line in TRUTH.splitlines()) + "\n"
    mapping = "class,group\nheteroatom alkylation and arylation,head\n1,tail\n2,tail\n"
    truth = attach_group_mapping(USPTO, load_truth(USPTO, write("t.csv", plain)), write("g.csv", mapping))
    assert truth.class_groups[:3] == ("head", "tail", "tail")
    aligned = align(USPTO, truth, write("p.csv", PREDICTION))
    assert aligned.class_groups == truth.class_groups


def test_a_mapping_naming_a_class_twice_with_different_groups_is_refused(write):
    mapping = "class,group\n0,head\nnot a class,tail\n0,tail\n"
    with pytest.raises(ScoringError) as caught:
        read_group_mapping(USPTO, write("g.csv", mapping))
    found = {(p.line, p.column): p.message for p in caught.value.problems}
    assert '"not a class" is not a class of this task' in found[(3, "class")]
    assert 'in group "tail" here but in "head" on line 2' in found[(4, "group")]


def test_a_mapping_writes_the_truth_again_with_a_group_column_keeping_the_rest(write):
    plain = 'seed;ID;y;note\n0;r1;heteroatom alkylation and arylation;a\n0;r2;1;"b;c"\n\n0;r3;2.0;d\n0;r4;0;e\n'
    groups = read_group_mapping(USPTO, write("g.csv", "class,group\n0,head\n1,middle\n2,tail\n"))
    text = truth_with_group_column(USPTO, write("t.csv", plain), groups)
    # Same delimiter, names and order; the label kept as written, resolved as scoring resolves it; blank line gone.
    assert text.decode() == (
        'seed;ID;y;note;group\n0;r1;heteroatom alkylation and arylation;a;head\n0;r2;1;"b;c";middle\n'
        "0;r3;2.0;d;tail\n0;r4;0;e;head\n"
    )


def test_the_written_column_carries_the_same_grouping_as_the_mapping(write):
    plain = "\n".join(line.rsplit(",", 1)[0] for line in TRUTH.splitlines()) + "\n"
    mapping = write("g.csv", "class,group\nheteroatom alkylation and arylation,head\n1,tail\n2,tail\n")
    text = truth_with_group_column(USPTO, write("t.csv", plain), read_group_mapping(USPTO, mapping))
    mapped = attach_group_mapping(USPTO, load_truth(USPTO, write("t.csv", plain)), mapping)
    assert load_truth(USPTO, write("t2.csv", text)).class_groups == mapped.class_groups


def test_a_group_column_already_in_the_truth_is_replaced_in_place(write):
    groups = read_group_mapping(USPTO, write("g.csv", "class,group\n0,tail\n1,tail\n2,tail\n"))
    text = truth_with_group_column(USPTO, write("t.csv", TRUTH), groups).decode()
    assert text == TRUTH.replace("head", "tail").replace("middle", "tail")


def test_a_truth_class_the_mapping_leaves_out_and_a_bad_label_are_located(write):
    groups = read_group_mapping(USPTO, write("g.csv", "class,group\n0,head\n"))
    with pytest.raises(ScoringError) as caught:
        truth_with_group_column(USPTO, write("t.csv", TRUTH), groups)
    found = {(p.line, p.column): p.message for p in caught.value.problems}
    assert set(found) == {(3, "label"), (4, "label")}
    assert found[(3, "label")].startswith('Line 3 of the truth has class "acylation and related processes", which')
    with pytest.raises(ScoringError) as caught:
        truth_with_group_column(USPTO, write("t.csv", TRUTH.replace("0,r2,1,", "0,r2,nope,")), groups)
    assert '"nope" is not a class of this task' in caught.value.problems[0].message


def test_a_mapping_for_a_task_without_class_groups_is_refused():
    sentence = "Task mudi has no class groups; a group mapping is for classification tasks."
    with pytest.raises(ScoringError, match=sentence):
        read_group_mapping(get_task("mudi"), b"class,group\nSynergism,head\n")
    with pytest.raises(ScoringError, match=sentence):
        truth_with_group_column(get_task("mudi"), b"Drug1,Interaction,Drug2\n", ("head",))


def test_the_command_line_scores_with_a_group_mapping(tmp_path):
    import json
    import subprocess
    import sys

    from tests.scoring.conftest import REPO

    plain = "\n".join(line.rsplit(",", 1)[0] for line in TRUTH.splitlines()) + "\n"
    (tmp_path / "t.csv").write_text(plain)
    (tmp_path / "p.csv").write_text(PREDICTION)
    (tmp_path / "g.csv").write_text("class,group\n0,head\n1,middle\n2,tail\n")
    args = ["score", "imdrug-uspto50k-random", "--truth", "t.csv", "--pred", "p.csv", "--groups", "g.csv", "--json"]
    done = subprocess.run([sys.executable, "-m", "scoring", *args], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO)}, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    metrics = json.loads(done.stdout)["metrics"]
    assert metrics["group/head/balanced_accuracy"] == 0.5
    assert metrics["group/tail/balanced_accuracy"] == 0.0


def test_the_command_line_refuses_a_mapping_that_leaves_out_a_truth_class_as_the_site_does(tmp_path):
    import subprocess
    import sys

    from tests.scoring.conftest import REPO

    plain = "\n".join(line.rsplit(",", 1)[0] for line in TRUTH.splitlines()) + "\n"
    (tmp_path / "t.csv").write_text(plain)
    (tmp_path / "p.csv").write_text(PREDICTION)
    (tmp_path / "g.csv").write_text("class,group\n0,head\n")
    args = ["score", "imdrug-uspto50k-random", "--truth", "t.csv", "--pred", "p.csv", "--groups", "g.csv"]
    done = subprocess.run([sys.executable, "-m", "scoring", *args], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO)}, timeout=120)  # fmt: skip
    assert done.returncode != 0
    assert 'Line 3 of the truth has class "acylation and related processes", which the group mapping' in done.stderr


def test_attaching_a_mapping_to_a_parsed_truth_refuses_a_class_it_leaves_out(write):
    plain = "\n".join(line.rsplit(",", 1)[0] for line in TRUTH.splitlines()) + "\n"
    with pytest.raises(ScoringError, match='the group mapping gives no group: "acylation and related processes"'):
        attach_group_mapping(USPTO, load_truth(USPTO, write("t.csv", plain)), write("g.csv", "class,group\n0,head\n"))
