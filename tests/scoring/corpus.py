"""Generated corpus files: whole-file problems that only show up in files of real size.

Generated on the fly (never committed): each function returns the truth, the
prediction and the exact problems, in the order they are reported.
"""

from __future__ import annotations

MUDI_CLASSES = ("Synergism", "Antagonism", "New Effect")


def large_mudi_with_a_typo_and_a_ragged_line(rows: int = 20_000) -> tuple[str, str, list[tuple[int, str]]]:
    """The issue's 60 MB MUDI file in small: a label typo on line 1234, a wrong field count on line 5001."""
    pairs = [(f"DB{i:05d}", MUDI_CLASSES[i % 3], f"DB{rows + i:05d}") for i in range(rows)]
    truth = "Drug1,Interaction,Drug2\n" + "".join(f"{a},{label},{b}\n" for a, label, b in pairs)
    lines = ["Drug1,Interaction,Drug2"] + [f"{a},{label},{b}" for a, label, b in pairs]
    lines[1233] = lines[1233].replace(pairs[1232][1], "Synergsm")  # file line 1234
    lines[5000] += ",0.93"  # file line 5001
    problems = [
        (5001, "Line 5001 has 4 fields but the header has 3 (comma-separated)."),
        (
            1234,
            'Line 1234, column "Interaction": "Synergsm" is not a MUDI class; '
            "expected one of Synergism, Antagonism, New Effect, No Interaction.",
        ),
    ]
    return truth, "\n".join(lines) + "\n", problems


def chemicalx_with_a_non_number_and_an_out_of_range_propensity(
    rows: int = 5_000,
) -> tuple[str, str, list[tuple[int, str]]]:
    """A ChemicalX prediction with "high" on line 40 and 1.7 on line 3001."""
    keys = [(f"D{i}", f"D{i + 1}", f"C{i % 4}") for i in range(rows)]
    truth = "seed,drug_1,drug_2,context,label\n" + "".join(
        f"0,{a},{b},{c},{i % 2}\n" for i, (a, b, c) in enumerate(keys)
    )
    lines = ["seed,drug_1,drug_2,context,prediction"] + [f"0,{a},{b},{c},0.5" for a, b, c in keys]
    lines[39] = lines[39][: -len("0.5")] + "high"  # file line 40
    lines[3000] = lines[3000][: -len("0.5")] + "1.7"  # file line 3001
    problems = [
        (40, 'Line 40, column "prediction": "high" is not a number.'),
        (3001, 'Line 3001, column "prediction": 1.7 is not a propensity (it must be between 0 and 1).'),
    ]
    return truth, "\n".join(lines) + "\n", problems
