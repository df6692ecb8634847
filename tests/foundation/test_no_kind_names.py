"""A benchmark kind is named only in its own module: the site dispatches on it once, through the registry.

Each kind's site code lives in ``leaderboard/kinds/<kind>.py`` (and its
templates under ``templates/kinds/<kind>/``); everything else asks
``leaderboard.kinds.registry.site_kind(task)``. So a string literal naming a
kind (``"mudi"``), one of its settings (``"aware"``) or a path through it
(``"data/mudi/test.csv"``) anywhere else under leaderboard/ is a second home
for that kind, and this test fails on it. Prose (docstrings, messages with
spaces) may name a kind; code may not.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from scoring.kinds import KINDS

REPO = Path(__file__).resolve().parents[2]
KIND_MODULES = REPO / "leaderboard" / "kinds"
# Literals that name a kind outside its module, each with why it cannot go through the registry. None so far.
ALLOWED: dict[tuple[str, str], str] = {}


def kind_words() -> set[str]:
    """Every registered kind's name and the names of its settings."""
    return {name for kind in KINDS.values() for name in (kind.name, *kind.settings)}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def names_a_kind(text: str, words: set[str]) -> bool:
    """The whole literal is a kind word, or a path (no spaces) with a kind word as one of its segments."""
    if text in words:
        return True
    return not any(ch.isspace() for ch in text) and "/" in text and bool(words & set(text.split("/")))


def literals_in_code(source: str, words: set[str]) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    skip = _docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and names_a_kind(node.value, words)
    ]


def literals_in_template(text: str, words: set[str]) -> list[tuple[int, str]]:
    """Quoted kind words inside template tags and variables ({% ... 'mudi' %}, {{ ... == "pair" }})."""
    found = []
    for match in re.finditer(r"{%.*?%}|{{.*?}}", text, flags=re.S):
        for quoted in re.findall(r"""["']([^"']*)["']""", match.group()):
            if names_a_kind(quoted, words):
                found.append((text.count("\n", 0, match.start()) + 1, quoted))
    return found


def code_outside_the_kind_modules() -> list[Path]:
    """Every module under leaderboard/ but the kind modules (the registry included: it names no kind either)."""
    return sorted(
        path
        for path in (REPO / "leaderboard").rglob("*.py")
        if "migrations" not in path.parts
        and (path.parent != KIND_MODULES or path.name in ("__init__.py", "apps.py", "registry.py"))
    )


@pytest.mark.parametrize(
    "source, found",
    [
        ('if task.kind != "mudi":\n    pass', [(1, "mudi")]),
        ('FOLDER = Path(root) / "data/mudi/test.csv"', [(1, "data/mudi/test.csv")]),
        ('BUILDERS = {"pair": 1, "regression": 2}', [(1, "pair"), (1, "regression")]),
        ('board = boards.filter(direction="aware")', [(1, "aware")]),
        ('"""A docstring may say mudi."""\nx = f"{slug}/pairs"', []),
        ('help = "the MUDI test set (data/mudi/test.csv)"', []),
        ('SLUG = "mudi-held-out-2027"', []),
    ],
)
def test_the_check_finds_a_kind_named_in_code(source, found):
    assert sorted(literals_in_code(source, {"mudi", "pair", "regression", "aware"})) == sorted(found)


def test_the_check_finds_a_kind_named_in_a_template():
    text = "<p>MUDI</p>\n<a href=\"{% url 'boards:task' 'mudi' %}\">board</a>{% if task.kind == \"pair\" %}{% endif %}"
    assert literals_in_template(text, {"mudi", "pair"}) == [(2, "mudi"), (2, "pair")]


def test_no_code_outside_the_kind_modules_names_a_kind():
    words = kind_words()
    assert {"mudi", "classification", "regression", "pair", "aware", "agnostic"} <= words
    found = {
        (str(path.relative_to(REPO)), literal): line
        for path in code_outside_the_kind_modules()
        for line, literal in literals_in_code(path.read_text(), words)
    }
    assert {where: line for where, line in found.items() if where not in ALLOWED} == {}


def test_no_template_outside_the_kinds_folder_names_a_kind():
    words = kind_words()
    templates = REPO / "templates"
    found = [
        (str(path.relative_to(REPO)), line, literal)
        for path in sorted(templates.rglob("*.html"))
        if not path.is_relative_to(templates / "kinds")
        for line, literal in literals_in_template(path.read_text(), words)
    ]
    assert found == []


def test_every_kind_module_is_imported_by_the_app_and_registers_its_kind():
    from leaderboard.kinds.registry import SITE_KINDS

    modules = {path.stem for path in KIND_MODULES.glob("*.py")} - {"__init__", "apps", "registry"}
    assert modules == set(SITE_KINDS) <= set(KINDS)
