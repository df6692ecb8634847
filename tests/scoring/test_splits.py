"""Public/private splits (scoring.splits): hash and usage-column splits, and scores on each part."""

from __future__ import annotations

import gzip
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import ScoringError, SplitSpec, align, load_split_truth, load_truth, score_files, score_parts
from scoring.splits import make_split, restrict, unit_fraction
from scoring.validation import KeyedTruth, MudiTruth
from tests.scoring.conftest import CHEMICALX_PREDICTION, CHEMICALX_TRUTH

FEW = settings(max_examples=25, deadline=None)


def public_units(truth, split) -> set:
    """The public units as plain values, independent of codes and file layout."""
    if isinstance(truth, MudiTruth):
        n = len(truth.vocabulary)
        return {frozenset((truth.vocabulary[k // n], truth.vocabulary[k % n])) for k in split.units[split.public]}
    assert isinstance(truth, KeyedTruth)
    rows = truth.first_rows()[split.public]
    return {
        (int(truth.seeds[r]), *(str(v[c[r]]) for v, c in zip(truth.vocabularies, truth.codes, strict=True)))
        for r in rows
    }


def mudi_lines(n_pairs: int, *, both_orientations: bool = True, prefix: str = "Compound::") -> list[tuple]:
    """Gold rows (drug1, class, drug2): pair i is (D{2i}, D{2i+1}), reversed too when asked."""
    classes = ("Synergism", "Antagonism", "New Effect")
    rows = []
    for i in range(n_pairs):
        a, b, label = f"{prefix}DB{2 * i:05d}", f"{prefix}DB{2 * i + 1:05d}", classes[i % 3]
        rows.append((a, label, b))
        if both_orientations and i % 2 == 0:
            rows.append((b, label, a))
    return rows


def as_file(header: tuple, rows: list[tuple], *, delimiter: str = ",", gz: bool = False) -> bytes:
    text = "\n".join(delimiter.join(map(str, row)) for row in [header, *rows]) + "\n"
    data = text.encode()
    return gzip.compress(data) if gz else data


MUDI_HEADER = ("Drug1", "Interaction", "Drug2")
HIV_HEADER = ("seed", "id", "label")


def hiv_rows(n: int, seeds=(0, 1, 2)) -> list[tuple]:
    return [(seed, f"mol{i}", ("inactive", "active")[(i * 7 + seed) % 2]) for seed in seeds for i in range(n)]


# ---------------------------------------------------------------------------
# Hash splits
# ---------------------------------------------------------------------------


@FEW
@given(seed=st.integers(0, 2**31), shuffle=st.randoms(use_true_random=False))
def test_a_hash_split_is_stable_under_row_shuffling(seed, shuffle):
    rows = hiv_rows(40)
    spec = SplitSpec.hashed(0.4, seed)
    truth = load_truth("imdrug-hiv-random", as_file(HIV_HEADER, rows))
    shuffled_rows = rows[:]
    shuffle.shuffle(shuffled_rows)
    shuffled = load_truth("imdrug-hiv-random", as_file(HIV_HEADER, shuffled_rows))
    try:
        expected = public_units(truth, make_split("imdrug-hiv-random", truth, spec))
    except ScoringError:  # a seed with one side empty; equally refused for the shuffled file
        with pytest.raises(ScoringError):
            make_split("imdrug-hiv-random", shuffled, spec)
        return
    assert public_units(shuffled, make_split("imdrug-hiv-random", shuffled, spec)) == expected


@FEW
@given(seed=st.integers(0, 2**31), delimiter=st.sampled_from([",", "\t", ";"]), gz=st.booleans())
def test_a_hash_split_does_not_depend_on_the_file_format(seed, delimiter, gz):
    rows = mudi_lines(30)
    spec = SplitSpec.hashed(0.5, seed)
    plain = load_truth("mudi", as_file(MUDI_HEADER, rows))
    other_rows = [(a.removeprefix("Compound::"), label, b.removeprefix("Compound::")) for a, label, b in rows]
    other = load_truth(
        "mudi", as_file(("drug1", "drug2", "label"), [(a, b, c) for a, c, b in other_rows], delimiter=delimiter, gz=gz)
    )
    assert public_units(plain, make_split("mudi", plain, spec)) == public_units(other, make_split("mudi", other, spec))


@FEW
@given(seed=st.integers(0, 2**31), delimiter=st.sampled_from([",", "\t", ";"]), gz=st.booleans(), quote=st.booleans())
def test_a_keyed_hash_split_does_not_depend_on_the_file_format(seed, delimiter, gz, quote):
    header = ("seed", "drug_1", "drug_2", "context", "label")
    rows = [(s, f"D{i}", f"D{i + 1}", f"C{i % 3}", i % 2) for s in range(10) for i in range(12)]
    spec = SplitSpec.hashed(0.5, seed)
    plain = load_truth("chemicalx-drugcomb", as_file(header, rows))
    if quote:
        rows = [(s, f'"{a}"', b, f'" {c}"', label) for s, a, b, c, label in rows]
    other = load_truth("chemicalx-drugcomb", as_file(header, rows, delimiter=delimiter, gz=gz))
    try:
        expected = public_units(plain, make_split("chemicalx-drugcomb", plain, spec))
    except ScoringError:
        with pytest.raises(ScoringError):
            make_split("chemicalx-drugcomb", other, spec)
        return
    assert public_units(other, make_split("chemicalx-drugcomb", other, spec)) == expected


@FEW
@given(seed=st.integers(0, 2**31))
def test_both_orientations_of_a_mudi_pair_fall_on_the_same_side(seed):
    rows = mudi_lines(40)
    truth_file = as_file(MUDI_HEADER, rows)
    truth = load_truth("mudi", truth_file)
    split = make_split("mudi", truth, SplitSpec.hashed(0.5, seed))
    aligned = align("mudi", truth, truth_file)
    names = aligned.drug_names
    sides = {}
    for part in ("public", "private"):
        cut, _ = restrict(aligned, split, part)
        for a, b in zip(cut.gold_a, cut.gold_b, strict=True):
            sides[(names[a], names[b])] = part
    assert len(sides) == len(rows)
    for (a, b), part in sides.items():
        assert sides.get((b, a), part) == part


def test_a_pair_with_both_orientations_counts_two_prediction_rows_on_its_side():
    rows = mudi_lines(40)
    truth_file = as_file(MUDI_HEADER, rows)
    truth = load_truth("mudi", truth_file)
    split = make_split("mudi", truth, SplitSpec.hashed(0.5, 11))
    public = public_units(truth, split)
    expected = sum(
        1 for a, _, b in rows if frozenset((a.removeprefix("Compound::"), b.removeprefix("Compound::"))) in public
    )
    assert score_parts("mudi", truth, truth_file, split)["public"].n_rows == expected


@settings(max_examples=6, deadline=None)
@given(fraction=st.floats(0.05, 0.95), seed=st.integers(0, 2**31))
def test_the_public_fraction_is_within_one_percent_on_100000_keys(fraction, seed):
    shown = np.mean([unit_fraction(("0", f"key{i}"), seed) < fraction for i in range(100_000)])
    assert abs(shown - fraction) < 0.01


def test_the_public_fraction_holds_on_a_real_split_of_100000_keys():
    truth = load_truth("imdrug-hiv-random", as_file(HIV_HEADER, hiv_rows(100_000, seeds=(0,))))
    split = make_split("imdrug-hiv-random", truth, SplitSpec.hashed(0.3, 2027))
    assert abs(split.counts()["public"] / 100_000 - 0.3) < 0.01


def test_each_seed_is_split_on_its_own():
    truth = load_truth("imdrug-hiv-random", as_file(HIV_HEADER, hiv_rows(2_000)))
    split = make_split("imdrug-hiv-random", truth, SplitSpec.hashed(0.3, 5))
    by_seed = {seed: mask.mean() for seed, mask in split.seed_public.items()}
    assert set(by_seed) == {0, 1, 2}
    assert all(abs(share - 0.3) < 0.05 for share in by_seed.values())
    # The same id is public in one seed and private in another: the seed is part of the unit.
    public = public_units(truth, split)
    ids = {unit[1] for unit in public}
    assert any(sum((seed, i) in {u[:2] for u in public} for seed in (0, 1, 2)) in (1, 2) for i in ids)


def test_adding_rows_to_one_seed_moves_no_unit_of_another():
    spec = SplitSpec.hashed(0.5, 3)
    small = load_truth("imdrug-hiv-random", as_file(HIV_HEADER, hiv_rows(30, seeds=(0, 1))))
    large = load_truth("imdrug-hiv-random", as_file(HIV_HEADER, hiv_rows(30, seeds=(0,)) + hiv_rows(90, seeds=(1,))))
    seed0 = {u for u in public_units(small, make_split("imdrug-hiv-random", small, spec)) if u[0] == 0}
    assert seed0 == {u for u in public_units(large, make_split("imdrug-hiv-random", large, spec)) if u[0] == 0}


def test_a_split_that_leaves_a_seed_without_private_rows_is_refused():
    truth = load_truth("imdrug-hiv-random", as_file(HIV_HEADER, hiv_rows(3)))
    with pytest.raises(ScoringError) as error:
        make_split("imdrug-hiv-random", truth, SplitSpec.hashed(0.999, 1))
    assert "leaves no private rows in seed 0 (of 3)" in str(error.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"fraction": 0}, "between 0 and 1"),
        ({"fraction": 1.5, "seed": 2}, "between 0 and 1"),
        ({"fraction": 0.3, "seed": -1}, "whole number >= 0"),
        ({"fraction": "0.3"}, "must be a number"),
        ({"usage": True, "fraction": 0.2}, 'is {"usage": true}'),
        ({}, 'is {"usage": true}'),
    ],
)
def test_a_malformed_split_spec_says_what_is_wrong(data, message):
    with pytest.raises(ScoringError, match=message.replace("{", r"\{").replace("}", r"\}")):
        SplitSpec.from_dict(data)


def test_a_split_spec_round_trips_through_a_dict():
    for spec in (SplitSpec.usage(), SplitSpec.hashed(0.3, 7)):
        assert SplitSpec.from_dict(spec.to_dict()) == spec


# ---------------------------------------------------------------------------
# The usage column
# ---------------------------------------------------------------------------


def with_usage(text: str, usages: list[str], *, first: bool = False) -> bytes:
    lines = text.strip("\n").split("\n")
    if first:
        out = ["usage," + lines[0]] + [f"{u},{line}" for u, line in zip(usages, lines[1:], strict=True)]
    else:
        out = [lines[0] + ",Usage"] + [f"{line},{u}" for line, u in zip(lines[1:], usages, strict=True)]
    return ("\n".join(out) + "\n").encode()


def test_the_usage_column_sets_each_side_case_insensitively():
    usages = ["Public", "PRIVATE", "public", "private", "public", "private"]
    truth, split = load_split_truth("chemicalx-drugcomb", with_usage(CHEMICALX_TRUTH, usages), SplitSpec.usage())
    assert public_units(truth, split) == {(0, "D1", "D2", "C1"), (1, "D1", "D2", "C1")}
    assert split.seed_public[0].tolist() == [True, False, True, False]
    assert split.seed_public[1].tolist() == [True, False]


def test_unknown_usage_values_are_located_errors():
    usages = ["public", "hidden", "private", "", "public", "private"]
    truth = with_usage(CHEMICALX_TRUTH.replace("0,D1,D2,C1,0\n", "0,D4,D2,C1,0\n"), usages)
    with pytest.raises(ScoringError) as error:
        load_split_truth("chemicalx-drugcomb", truth, SplitSpec.usage())
    assert [(p.line, p.column, p.message) for p in error.value.problems] == [
        (3, "Usage", 'Line 3, column "Usage": "hidden" is not a usage; write public or private.'),
        (5, "Usage", 'Line 5, column "Usage" is empty; write public or private.'),
    ]


def test_a_usage_error_and_a_truth_error_are_reported_together():
    truth = with_usage(CHEMICALX_TRUTH.replace("0,D1,D3,C1,0", "0,D1,D3,C1,7"), ["public", "x"] + ["private"] * 4)
    with pytest.raises(ScoringError) as error:
        load_split_truth("chemicalx-drugcomb", truth, SplitSpec.usage())
    lines = sorted(p.line for p in error.value.problems)
    assert lines == [3, 3]


def test_rows_of_one_key_on_different_sides_are_refused():
    usages = ["public", "private", "private", "public", "public", "private"]
    with pytest.raises(ScoringError) as error:
        load_split_truth("chemicalx-drugcomb", with_usage(CHEMICALX_TRUTH, usages), SplitSpec.usage())
    assert str(error.value) == (
        'Line 4 puts the key (seed 0, drug_1 "D1", drug_2 "D2", context "C1") in private, but line 2 put it in '
        "public; every row of a key must be on the same side."
    )


def test_the_two_orientations_of_a_mudi_pair_must_share_a_usage():
    text = "Drug1,Interaction,Drug2\nDB1,Synergism,DB2\nDB3,Antagonism,DB4\nDB2,Synergism,DB1\n"
    with pytest.raises(ScoringError) as error:
        load_split_truth("mudi", with_usage(text, ["public", "private", "private"], first=True), SplitSpec.usage())
    assert str(error.value) == (
        "Line 4 puts the pair (DB2, DB1) in private, but line 2 put it in public; both orientations of a drug "
        "pair must be on the same side."
    )


def test_a_usage_split_needs_a_usage_column():
    with pytest.raises(ScoringError, match="has none; add a usage column"):
        load_split_truth("chemicalx-drugcomb", CHEMICALX_TRUTH.encode(), SplitSpec.usage())


def test_a_usage_column_with_a_hash_split_is_refused():
    truth = with_usage(CHEMICALX_TRUTH, ["public", "private"] * 3)
    with pytest.raises(ScoringError, match='has a "Usage" column but the phase splits by hash'):
        load_split_truth("chemicalx-drugcomb", truth, SplitSpec.hashed(0.5, 1))


def test_usage_errors_keep_the_line_numbers_of_quoted_and_blank_lines():
    text = 'usage,seed,drug_1,drug_2,context,label\npublic,0,D1,D2,C1,1\n\n"private",0,"D1",D3,C1,2\n'
    with pytest.raises(ScoringError) as error:
        load_split_truth("chemicalx-drugcomb", text.encode(), SplitSpec.usage())
    assert [p.line for p in error.value.problems] == [4]


# ---------------------------------------------------------------------------
# Scoring on each part
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 8, 2027])
def test_each_part_scores_like_the_files_cut_to_that_part(seed):
    rng = random.Random(seed)
    truth_rows = hiv_rows(60)
    pred_rows = [(s, i, rng.choice(["active", "inactive"]), round(rng.random(), 3)) for s, i, _ in truth_rows]
    truth_file = as_file(HIV_HEADER, truth_rows)
    pred_header = ("seed", "id", "prediction", "score")
    scores = score_parts("imdrug-hiv-random", truth_file, as_file(pred_header, pred_rows), SplitSpec.hashed(0.4, seed))
    truth = load_truth("imdrug-hiv-random", truth_file)
    public = public_units(truth, make_split("imdrug-hiv-random", truth, SplitSpec.hashed(0.4, seed)))
    for part, wanted in (("public", True), ("private", False)):
        keep = [i for i, (s, m, _) in enumerate(truth_rows) if ((s, m) in public) == wanted]
        expected = score_files(
            "imdrug-hiv-random",
            as_file(HIV_HEADER, [truth_rows[i] for i in keep]),
            as_file(pred_header, [pred_rows[i] for i in keep]),
        )
        assert scores[part].metrics == pytest.approx(expected.metrics)
        assert scores[part].n_rows == len(keep)
    assert scores["all"] == score_files("imdrug-hiv-random", truth_file, as_file(pred_header, pred_rows))


def test_mudi_parts_score_like_the_files_cut_to_that_part():
    rows = mudi_lines(60)
    rng = random.Random(4)
    classes = ("Synergism", "Antagonism", "New Effect", "No Interaction")
    preds = [(a, rng.choice(classes), b) for a, _, b in rows]
    truth_file = as_file(MUDI_HEADER, rows)
    scores = score_parts("mudi", truth_file, as_file(MUDI_HEADER, preds), SplitSpec.hashed(0.3, 9))
    truth = load_truth("mudi", truth_file)
    public = public_units(truth, make_split("mudi", truth, SplitSpec.hashed(0.3, 9)))

    def side(row):
        return frozenset((row[0].removeprefix("Compound::"), row[2].removeprefix("Compound::"))) in public

    for part, wanted in (("public", True), ("private", False)):
        expected = score_files(
            "mudi",
            as_file(MUDI_HEADER, [r for r in rows if side(r) == wanted]),
            as_file(MUDI_HEADER, [p for p in preds if side(p) == wanted]),
        )
        assert scores[part].metrics == pytest.approx(expected.metrics)


def test_a_prediction_must_still_cover_the_private_rows():
    usages = ["public", "private", "public", "private", "public", "private"]
    truth = with_usage(CHEMICALX_TRUTH, usages)
    pred = CHEMICALX_PREDICTION.replace("0,D2,D3,C2,0.7\n", "")
    with pytest.raises(ScoringError, match="The predictions miss 1 of the truth's 5 keys"):
        score_parts("chemicalx-drugcomb", truth, pred.encode(), SplitSpec.usage())


def test_a_split_made_for_another_truth_is_refused():
    small = load_truth("imdrug-hiv-random", as_file(HIV_HEADER, hiv_rows(20)))
    large = load_truth("imdrug-hiv-random", as_file(HIV_HEADER, hiv_rows(30)))
    split = make_split("imdrug-hiv-random", small, SplitSpec.hashed(0.5, 1))
    pred = as_file(("seed", "id", "prediction"), [r for r in hiv_rows(30)])
    with pytest.raises(ScoringError, match="made for another truth"):
        score_parts("imdrug-hiv-random", large, pred, split)


def test_the_split_benchmark_script_runs_on_a_tiny_input():
    import subprocess
    import sys

    from tests.scoring.conftest import REPO

    result = subprocess.run(
        [sys.executable, "bench/splits.py", "--repeat", "1", "--keys", "2000"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "make_split on 2,000 keys vs load_truth" in result.stdout


@pytest.mark.parametrize(("delimiter", "gz"), [("\t", True), (";", False), (",", True)])
def test_a_usage_split_reads_the_same_from_any_column_position_and_format(delimiter, gz):
    header = ("seed", "drug_1", "usage", "drug_2", "context", "label")
    lines = CHEMICALX_TRUTH.strip().split("\n")[1:]
    usages = ["public", "private", "public", "private", "public", "private"]
    rows = []
    for line, usage in zip(lines, usages, strict=True):
        cells = line.split(",")
        rows.append((*cells[:2], usage, *cells[2:]))
    expected = load_split_truth("chemicalx-drugcomb", with_usage(CHEMICALX_TRUTH, usages), SplitSpec.usage())
    truth, split = load_split_truth(
        "chemicalx-drugcomb", as_file(header, rows, delimiter=delimiter, gz=gz), SplitSpec.usage()
    )
    assert public_units(truth, split) == public_units(*expected)
    assert truth.n_rows == 6


def test_a_key_whose_first_usage_is_unknown_is_still_checked_for_conflicts():
    usages = ["hidden", "private", "public", "private", "private", "public"]
    with pytest.raises(ScoringError) as error:
        load_split_truth("chemicalx-drugcomb", with_usage(CHEMICALX_TRUTH, usages), SplitSpec.usage())
    assert [p.message for p in error.value.problems] == [
        'Line 2, column "Usage": "hidden" is not a usage; write public or private.',
    ]
    usages = ["hidden", "private", "public", "private", "public", "private"]
    text = with_usage(CHEMICALX_TRUTH.replace("0,D2,D3,C2,1", "0,D1,D2,C1,1"), usages)
    with pytest.raises(ScoringError) as error:
        load_split_truth("chemicalx-drugcomb", text, SplitSpec.usage())
    assert error.value.problems[1].message.startswith(
        'Line 5 puts the key (seed 0, drug_1 "D1", drug_2 "D2", context "C1") in private, but line 4 put it in public'
    )


def test_mudi_drug_frequency_buckets_are_counted_on_the_whole_truth_in_every_part():
    """Seven drugs by seven: every drug is in 7 gold pairs, so every pair is 'medium' on the whole truth.
    Counted on one part's pairs alone, each drug would have 3 or 4 and every pair would look 'rare'."""
    import io

    from scoring import SplitSpec, score_parts

    lines, pred = ["Drug1,Interaction,Drug2,Usage"], ["Drug1,Interaction,Drug2"]
    for i in range(7):
        for j in range(7):
            a, b = f"DB{1000 + i:05d}", f"DB{2000 + j:05d}"
            lines.append(f"{a},Synergism,{b},{'public' if (i + j) % 2 == 0 else 'private'}")
            pred.append(f"{a},Synergism,{b}")
    truth = ("\n".join(lines) + "\n").encode()
    scores = score_parts("mudi", io.BytesIO(truth), io.BytesIO(("\n".join(pred) + "\n").encode()), SplitSpec.usage())
    for part, pairs in (("public", 25), ("private", 24), ("all", 49)):
        metrics = scores[part].metrics
        assert metrics["aware/drug_freq/medium/pairs"] == pairs, part
        assert "aware/drug_freq/rare/pairs" not in metrics, part
