"""The scoring package stays framework-free: no module imports Django."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys

import scoring
from tests.scoring.conftest import REPO

DJANGO_IMPORT = re.compile(r"^\s*(import django|from django)\b", re.MULTILINE)


def all_scoring_modules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.walk_packages(scoring.__path__, prefix="scoring.")
        if info.name != "scoring.__main__"
    )


def test_importing_every_scoring_module_leaves_django_unloaded():
    modules = all_scoring_modules()
    assert "scoring.validation.keyed" in modules and "scoring.cli" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_no_file_under_scoring_imports_django():
    offenders = [
        str(path.relative_to(REPO))
        for path in (REPO / "scoring").rglob("*.py")
        if DJANGO_IMPORT.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
