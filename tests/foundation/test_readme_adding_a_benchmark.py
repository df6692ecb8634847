"""README's "Adding a benchmark" cites real code: every path, command, make target and name in it exists.

The steps are only useful while they are true, and they go stale silently when a
module or a hook is renamed. This reads every `code span` of the section and
checks what it names, not the prose around it.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest
from django.core.management import get_commands

from scoring.kinds import KINDS

REPO = Path(__file__).resolve().parents[2]
# Where a short name (`Task`, `SiteKind.board_view`) is looked up.
NAMESPACES = ("scoring.registry", "scoring.kinds", "leaderboard.kinds.registry")
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def section(text: str, title: str) -> str:
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", text)


def _attribute(owner: object, name: str) -> object:
    if hasattr(owner, name):
        return getattr(owner, name)
    if dataclasses.is_dataclass(owner) and name in {f.name for f in dataclasses.fields(owner)}:
        return dataclasses.MISSING  # a field without a default: no class attribute, but it exists
    raise AttributeError(name)


def resolves(name: str) -> bool:
    """A dotted name importable from its module, or a short one found in ``NAMESPACES``."""
    parts = name.split(".")
    candidates: list[tuple[ModuleType, list[str]]] = []
    for i in range(len(parts), 0, -1):
        try:
            candidates.append((importlib.import_module(".".join(parts[:i])), parts[i:]))
            break
        except ImportError:
            continue
    candidates += [(importlib.import_module(namespace), parts) for namespace in NAMESPACES]
    for owner, rest in candidates:
        try:
            found: object = owner
            for part in rest:
                found = _attribute(found, part)
            return True
        except AttributeError:
            continue
    return False


def _make_targets() -> set[str]:
    return set(re.findall(r"^([A-Za-z][\w-]*):", (REPO / "Makefile").read_text(), flags=re.M))


def problem(span: str) -> str | None:
    """Why ``span`` names nothing that exists (None when it does, or is not a code name)."""
    if span.startswith("make "):
        target = span.split()[1]
        return None if target in _make_targets() else f"no make target {target!r}"
    if "manage.py " in span:
        command = span.split("manage.py ", 1)[1].split()[0]
        return None if command in get_commands() else f"no management command {command!r}"
    if "/" in span:
        pattern = re.sub(r"<[^>]+>", "*", span.rstrip("/"))
        return None if list(REPO.glob(pattern)) else f"no file or folder matches {span!r}"
    if span in KINDS:
        return None
    if DOTTED.fullmatch(span):
        return None if resolves(span) else f"{span!r} does not resolve (looked up in {', '.join(NAMESPACES)})"
    return f"{span!r} is not a path, command, make target, kind or name this test can check"


@pytest.mark.parametrize(
    "span, ok",
    [
        ("scoring/kinds/<kind>.py", True),
        ("scoring/kinds/nope.py", False),
        ("manage.py load_benchmarks --demo", True),
        ("manage.py load_benchmark", False),
        ("make run", True),
        ("make running", False),
        ("scoring.kinds.register", True),
        ("SiteKind.demo_truth", True),
        ("SiteKind.kind", True),
        ("SiteKind.demo_truths", False),
        ("mudi", True),
        ("a sentence, not code", False),
    ],
)
def test_the_check_tells_a_real_name_from_a_stale_one(span, ok):
    assert (problem(span) is None) is ok


def test_every_name_adding_a_benchmark_cites_exists():
    spans = code_spans(section((REPO / "README.md").read_text(), "Adding a benchmark"))
    assert len(spans) > 20
    assert {span: why for span in spans if (why := problem(span))} == {}
