"""bench/smoke runs every bench script at its smallest size (CI, make bench-smoke), so none can rot unnoticed."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_bench_script_has_a_line_in_the_smoke_run():
    smoke = (REPO / "bench" / "smoke").read_text()
    listed = set(re.findall(r"^\s*run (bench/[\w.]+\.py)\b", smoke, flags=re.MULTILINE))
    scripts = {f"bench/{p.name}" for p in (REPO / "bench").glob("*.py") if not p.name.startswith("_")}
    assert scripts - listed == set(), "add these to bench/smoke at their smallest size"
    assert listed <= scripts


def test_make_and_ci_run_the_smoke():
    assert "bench/smoke" in (REPO / "Makefile").read_text().split("bench-smoke:")[1].split("\n\n")[0]
    assert "make bench-smoke" in (REPO / ".ci" / "run").read_text()


def test_no_bench_flushes_a_shared_redis():
    for script in (REPO / "bench").glob("*.py"):
        text = script.read_text()
        assert "flushdb" not in text and "flushall" not in text.lower(), script.name
