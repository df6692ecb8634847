"""Helpers for the scoring package's IO tests: small hand-made files and the real shared data.

The real data lives in ``<repo>/../shared`` (``LEADERBOARD_SHARED_DIR`` overrides it)
and is never copied into the repository.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FILES = Path(__file__).resolve().parent / "files"
IN_CI = os.environ.get("CI", "").lower() == "true"

MUDI_TRUTH = """Drug1,Interaction,Drug2
Compound::DB001,Synergism,Compound::DB002
Compound::DB002,Synergism,Compound::DB001
Compound::DB003,Antagonism,Compound::DB004
Compound::DB005,New Adverse,Compound::DB006
"""

HIV_TRUTH = """seed,id,label
0,m1,inactive
0,m2,active
0,m3,inactive
1,m1,active
1,m4,inactive
1,m5,active
"""

HIV_PREDICTION = """seed,id,prediction
1,m5,1
0,m1,inactive
0,m2,Active
0,m3,0
1,m1,active
1,m4,0
"""

REGRESSION_TRUTH = """seed,id,y
0,a,1.5
0,b,-2
1,a,0.25
"""

CHEMICALX_TRUTH = """seed,drug_1,drug_2,context,label
0,D1,D2,C1,1
0,D1,D3,C1,0
0,D1,D2,C1,0
0,D2,D3,C2,1
1,D1,D2,C1,1
1,D3,D1,C2,0
"""

CHEMICALX_PREDICTION = """seed,drug_1,drug_2,context,prediction
1,D3,D1,C2,0.2
0,D1,D2,C1,0.9
0,D1,D3,C1,0.1
0,D2,D3,C2,0.7
1,D1,D2,C1,0.6
"""


def shared_dir() -> Path:
    """``<repo>/../shared`` unless LEADERBOARD_SHARED_DIR says otherwise."""
    default = Path(__file__).resolve().parents[2] / ".." / "shared"
    return Path(os.environ.get("LEADERBOARD_SHARED_DIR", default)).resolve()


def shared_file(relative: str) -> Path:
    """A file under shared/data; skip if absent locally, fail if absent under CI=true."""
    path = shared_dir() / "data" / relative
    if not path.is_file():
        if IN_CI:
            pytest.fail(f"{path} is required under CI=true but is missing")
        pytest.skip(f"{path} is not present (set LEADERBOARD_SHARED_DIR to the shared folder)")
    return path


@pytest.fixture
def write(tmp_path):
    """``write(name, content, gz=False)`` -> Path of a file in tmp_path (str content is UTF-8)."""

    def _write(name: str, content: str | bytes, gz: bool = False) -> Path:
        data = content.encode("utf-8") if isinstance(content, str) else content
        if gz:
            data = gzip.compress(data)
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return _write
