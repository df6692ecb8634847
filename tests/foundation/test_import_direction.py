"""Imports point one way: scoring <- challenges <- submissions <- boards <- kinds, accounts below all.

Every import statement is read from the source (module level and inside
functions, absolute and relative), so a lazy import cannot hide an upward
dependency. Apps not in the chain (ops, api, ...) sit above it and may import
anything; the project's shared modules (settings, celery, storage, links, ...)
may be imported by all and import no app themselves. The kinds' registry
(``leaderboard.kinds.registry``) sits just above scoring, so every app can look
a kind up; the kind modules beside it sit above boards, and no app of the chain
imports them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# What each layer may import besides itself. Anything under leaderboard/ that is
# neither listed here nor a shared project module is "above" (ops, api, urls, views).
MAY_IMPORT: dict[str, set[str]] = {
    "scoring": set(),
    "accounts": set(),
    "kind registry": {"scoring"},
    "challenges": {"scoring", "accounts", "kind registry"},
    "submissions": {"scoring", "accounts", "challenges", "kind registry"},
    "literature": {"scoring", "accounts", "challenges", "kind registry"},
    "boards": {"scoring", "accounts", "challenges", "submissions", "literature", "kind registry"},
    "kinds": {"scoring", "accounts", "challenges", "submissions", "literature", "boards", "kind registry"},
}
# Project-level modules under leaderboard/ that every layer may use.
# docpages: the rendered docs/*.md (boards and kinds link metric definitions to it); it imports no app.
SHARED = {"settings", "celery", "storage", "links", "middleware", "formatting", "csvsafe", "docpages"}


def layer_of(module: str) -> str | None:
    """The layer a dotted module name belongs to: a MAY_IMPORT key, "shared", "above", or None (third party)."""
    parts = module.split(".")
    if parts[0] == "scoring":
        return "scoring"
    if parts[0] != "leaderboard":
        return None
    if len(parts) == 1:
        return "shared"  # the package itself (it only loads the Celery app)
    if parts[1] == "kinds":
        return "kind registry" if parts[2:3] == ["registry"] else "kinds"
    if parts[1] in MAY_IMPORT:
        return parts[1]
    if parts[1] in SHARED:
        return "shared"
    return "above"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, dotted name) of everything ``source`` imports, wherever the import statement sits."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # "from leaderboard import views" imports leaderboard.views.
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def upward_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    own = layer_of(module)
    allowed = MAY_IMPORT.get(own) if own in MAY_IMPORT else (set() if own == "shared" else None)
    if allowed is None:
        return []  # ops, api and other top-level code may import anything
    problems = []
    for line, name in imported_modules(source, module, is_package):
        target = layer_of(name)
        if target is None or target == own:
            continue
        if own == "shared" and target == "shared":
            continue
        if target == "shared" and own != "scoring":
            continue
        if target not in allowed:
            problems.append(f"line {line}: {module} ({own}) imports {name} ({target})")
    return problems


def _sources() -> list[Path]:
    files = [*(REPO / "scoring").rglob("*.py"), *(REPO / "leaderboard").rglob("*.py")]
    return sorted(p for p in files if "migrations" not in p.parts)


@pytest.mark.parametrize(
    "module, source",
    [
        ("leaderboard.submissions.views", "from leaderboard.boards.charts import submission_charts"),
        ("leaderboard.challenges.management.commands.x", "def f():\n    from leaderboard.submissions import baselines"),
        ("leaderboard.accounts.views", "from leaderboard.submissions.models import Submission"),
        ("leaderboard.accounts.views", "from leaderboard import ops"),
        ("leaderboard.submissions.views", "from ..boards import views"),
        ("leaderboard.links", "from leaderboard.accounts.models import User"),
        ("scoring.cli", "import leaderboard.settings"),
        ("leaderboard.boards.spec", "from leaderboard.kinds import mudi"),
        ("leaderboard.submissions.baselines", "from leaderboard.kinds.pair import random_baseline"),
        ("leaderboard.kinds.registry", "from leaderboard.boards.spec import Column"),
        ("leaderboard.kinds.mudi", "from leaderboard.drugs.models import Drug"),
    ],
)
def test_the_check_catches_an_upward_import(module, source):
    assert upward_imports(source, module)


@pytest.mark.parametrize(
    "module, source",
    [
        ("leaderboard.boards.views", "from leaderboard.submissions.models import Submission"),
        ("leaderboard.submissions.views", "def f():\n    from leaderboard.challenges.models import Phase"),
        ("leaderboard.challenges.models", "import scoring\nfrom leaderboard.storage import private_storage"),
        ("leaderboard.accounts.emails", "from leaderboard.links import absolute_reverse"),
        ("leaderboard.submissions.tasks", "from .runs import score_submission"),
        ("leaderboard.ops.health", "from leaderboard.boards.models import Board"),
        ("leaderboard.challenges.demo_truths", "from leaderboard.kinds.registry import site_kind"),
        ("leaderboard.kinds.mudi", "from leaderboard.boards.charts import label"),
        ("leaderboard.drugs.views", "from leaderboard.kinds import mudi"),
    ],
)
def test_the_check_lets_downward_and_sideways_imports_through(module, source):
    assert upward_imports(source, module) == []


def test_no_module_of_a_lower_app_imports_a_higher_one():
    sources = _sources()
    assert any(p.match("leaderboard/boards/*.py") for p in sources)
    problems = [
        problem
        for path in sources
        for problem in upward_imports(path.read_text(), module_name(path), path.name == "__init__.py")
    ]
    assert problems == []


KNOWN_CYCLES: list[set[str]] = []


def import_cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The groups of modules that import each other, directly or around a loop (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_no_two_modules_import_each_other():
    """A Celery task sits beside the service it wraps, so services and tasks never import each other."""
    paths = {module_name(path): path for path in _sources()}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        targets = set()
        for _, name in imported_modules(path.read_text(), module, path.name == "__init__.py"):
            parts = name.split(".")
            # "leaderboard.submissions.models.Submission" is the module leaderboard.submissions.models.
            known = next((".".join(parts[:i]) for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in paths), None)
            if known and known != module:
                targets.add(known)
        graph[module] = targets
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert [c for c in import_cycles(graph) if c not in KNOWN_CYCLES] == []
