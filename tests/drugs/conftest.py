"""Drug files for the drug tests: three real records from MUDI's drug_info.json, and hand-made ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.boards.conftest import fresh_cache, standing  # noqa: F401 (fixtures shared with the board tests)
from tests.conftest import require, shared_dir

# Warfarin, aspirin and goserelin (a peptide: the largest drawing of the three).
REAL_IDS = ("DB00682", "DB00945", "DB00014")


@pytest.fixture
def three_real_drugs(tmp_path) -> Path:
    source = shared_dir() / "data" / "mudi" / "drug_info.json"
    require(source.is_file(), f"{source} not found")
    records = json.loads(source.read_text())
    path = tmp_path / "three.json"
    path.write_text(json.dumps({key: records[key] for key in REAL_IDS}))
    return path


def write_drugs(tmp_path: Path, records: dict, name: str = "drugs.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(records))
    return path


def record(name: str, smiles: str = "CCO", description: object = "A test drug.") -> dict:
    return {"name": name, "smiles": smiles, "formula": "C2H6O", "description": description}
