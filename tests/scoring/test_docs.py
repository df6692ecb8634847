"""docs/scoring.md lists exactly the column names the readers accept."""

from __future__ import annotations

import re

from scoring import TASKS
from scoring.validation import chemicalx, imdrug, mudi
from tests.scoring.conftest import REPO

DOC = (REPO / "docs" / "scoring.md").read_text(encoding="utf-8")
TABLE = DOC[DOC.index("### Column names") : DOC.index("### MUDI")]


def table_rows() -> dict[tuple[str, str], tuple[str, str]]:
    """(family, file) -> (canonical cell, also-accepted cell) from the column-names table."""
    rows = {}
    for line in TABLE.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] not in ("Family", "---"):
            rows[(cells[0], cells[1])] = (cells[2], cells[3])
    return rows


def test_every_task_shows_its_canonical_columns_in_the_table():
    rows = table_rows()
    family_of = {"mudi": "MUDI", "classification": "ImDrug classification", "regression": "ImDrug regression"}
    for task in TASKS.values():
        family = family_of.get(task.kind, "ChemicalX")
        truth_file = "truth and prediction" if task.kind == "mudi" else "truth"
        prediction_file = "truth and prediction" if task.kind == "mudi" else "prediction"
        assert f"`{','.join(task.truth_columns)}`" in rows[(family, truth_file)][0], task.slug
        assert rows[(family, prediction_file)][0].startswith(f"`{','.join(task.prediction_columns)}`"), task.slug


def test_every_alias_the_readers_accept_is_in_the_table_and_no_other():
    rows = table_rows()
    accepted = {
        ("MUDI", "truth and prediction"): (mudi.ALIASES, TASKS["mudi"].truth_columns),
        ("ImDrug classification", "truth"): (imdrug.TRUTH_ALIASES, ("seed", "id", "label")),
        ("ImDrug classification", "prediction"): (imdrug.PREDICTION_ALIASES, ("seed", "id", "prediction")),
        ("ImDrug regression", "truth"): (imdrug.TRUTH_ALIASES, ("seed", "id", "label")),
        ("ImDrug regression", "prediction"): (imdrug.PREDICTION_ALIASES, ("seed", "id", "prediction")),
        ("ChemicalX", "truth"): ({}, ()),
        ("ChemicalX", "prediction"): (chemicalx.PREDICTION_ALIASES, TASKS["chemicalx-drugcomb"].prediction_columns),
    }
    assert set(accepted) == set(rows)
    for key, (aliases, canonical) in accepted.items():
        # Every spelling the reader takes (an alias or its target) that is not a canonical column.
        expected = (set(aliases) | set(aliases.values())) - {name.lower() for name in canonical}
        # Clauses read "`a` for `b`" or "`a` or `c` for `b`"; `prob_<class name>` is a pattern, not an alias.
        documented = set()
        for clause in re.split(r"[;,]", rows[key][1]):
            if " for " in clause:
                documented |= set(re.findall(r"`([a-z_0-9]+)`", clause.split(" for ")[0]))
        assert documented == expected, key
