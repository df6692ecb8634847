"""Site paths are named: templates use {% url %}, code uses reverse(), redirect(obj) and get_absolute_url.

Literal paths belong in urls.py files (where they are defined) and in tests and
bench scripts (which request them, pinning the public URL scheme). Anywhere else
a literal path is a second home for the URL scheme, so this test fails on it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

REPO = Path(__file__).resolve().parents[2]
# Code that serves the site; tests/ and bench/ are clients of the public URL scheme.
CODE_ROOTS = ["leaderboard", "scoring"]
TEXT_ROOTS = ["templates", "static/js"]
# Asset paths go through {% static %} and MEDIA_URL, never written out by hand.
ASSET_PREFIXES = {"static", "media"}
# Literals that are not links to a page, each with why it cannot be a reversed name.
ALLOWED = {
    ("leaderboard/settings.py", "/api/v1"): "drf-spectacular's schema path prefix, read as a regex",
    ("leaderboard/api/problems.py", "/api/v1/problems/"): "the base of RFC 9457 problem type identifiers",
}


def _first_segments(patterns, prefix: str = "") -> set[str]:
    """The first path segment of every route of the URLconf ("" for the home page)."""
    found: set[str] = set()
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            found |= _first_segments(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            head = re.split(r"[/<]", route.lstrip("^"), maxsplit=1)[0]
            found.add(head)
    return found


def _path_regex(segments: set[str]) -> re.Pattern[str]:
    named = "|".join(sorted(re.escape(s) for s in segments if s))
    # A path starts after a quote, whitespace, '=', '(' or '>' (not inside "https://host/...")
    # and is either one of the site's first segments or the bare home page "/".
    return re.compile(rf"""(?:^|(?<=[\s"'`=(>]))/(?:(?:{named})(?=[/?#."'`\s<)]|$)|(?=["'`#?]))""")


@pytest.fixture(scope="module")
def site_segments() -> set[str]:
    segments = _first_segments(get_resolver().url_patterns)
    assert {"tasks", "submissions", "accounts", "teams", "benchmarks"} <= segments
    return segments


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _separators(tree: ast.AST) -> set[int]:
    """Constants used as separators, not paths: method calls (key.split("/"), "/".join(parts)), comparisons
    ("/" in key) and the trailing "/" of an f-string whose other parts are checked."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            ids |= {id(arg) for arg in [node.func.value, *node.args] if isinstance(arg, ast.Constant)}
        elif isinstance(node, ast.Compare):
            ids |= {id(part) for part in [node.left, *node.comparators] if isinstance(part, ast.Constant)}
        elif isinstance(node, ast.JoinedStr):
            ids |= {id(part) for part in node.values}
    return ids


def python_offenders(source: str, segments: set[str], allowed: frozenset[str] = frozenset()) -> list[str]:
    regex = _path_regex(segments)
    tree = ast.parse(source)
    docstrings = _docstring_nodes(tree)
    separators = _separators(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in docstrings:
            continue
        text = node.value
        if text in allowed:
            continue
        if (text == "/" and id(node) not in separators) or regex.search(text):
            found.append(f"line {node.lineno}: {text!r}")
    return found


def text_offenders(text: str, segments: set[str]) -> list[str]:
    regex = _path_regex(segments | ASSET_PREFIXES)
    return [f"line {number}: {line.strip()}" for number, line in enumerate(text.splitlines(), 1) if regex.search(line)]


def _allowed_in(path: Path) -> frozenset[str]:
    where = str(path.relative_to(REPO))
    return frozenset(text for file, text in ALLOWED if file == where)


def _code_files() -> list[Path]:
    return sorted(
        path
        for root in CODE_ROOTS
        for path in (REPO / root).rglob("*.py")
        if path.name != "urls.py" and not path.name.endswith("_urls.py") and "migrations" not in path.parts
    )


def _text_files() -> list[Path]:
    return sorted(path for root in TEXT_ROOTS for path in (REPO / root).rglob("*") if path.is_file())


@pytest.mark.parametrize(
    "source",
    [
        'redirect(f"/submissions/{submission.pk}/")',
        'LOGIN_URL = "/accounts/login/"',
        "url = f\"{settings.SITE_URL.rstrip('/')}/tasks/{slug}/leaderboard.csv\"",
        'return redirect("/")',
        'messages.info(request, "See /benchmarks/ for the list.")',
    ],
)
def test_the_python_check_catches_a_literal_path(source, site_segments):
    assert python_offenders(source, site_segments)


@pytest.mark.parametrize(
    "source",
    [
        'key.split("/", 2)',
        'location = "/".join(part for part in (prefix, location) if part)',
        'group = key.split("/", 1)[0] if "/" in key else "summary"',
        'url = site_url(reverse("accounts:profile"))',
        'KEY = f"seed/{k}/{metric}"',
        'DOCS = "https://example.org/tasks/a/"',
        'path = f"truth/{challenge}/{phase}/{name}"',
    ],
)
def test_the_python_check_lets_names_keys_and_external_urls_through(source, site_segments):
    assert python_offenders(source, site_segments) == []


@pytest.mark.parametrize(
    "line",
    [
        '<a href="/tasks/{{ task.slug }}/">',
        '<form action="/accounts/login/" method="post">',
        '<a class="brand" href="/">Home</a>',
        '{% if request.path == "/benchmarks/" %}',
        '<script src="/static/js/charts.js"></script>',
        "fetch(`/submissions/${id}/status.json`)",
    ],
)
def test_the_template_check_catches_a_literal_path(line, site_segments):
    assert text_offenders(line, site_segments)


@pytest.mark.parametrize(
    "line",
    [
        "<a href=\"{% url 'boards:task' task.slug %}\">",
        "<script src=\"{% static 'js/charts.js' %}\"></script>",
        '<a href="https://example.org/tasks/x/">paper</a>',
        "<td>aware/macro/f1</td>",
        "</a></p>",
    ],
)
def test_the_template_check_lets_url_tags_and_external_urls_through(line, site_segments):
    assert text_offenders(line, site_segments) == []


def test_no_python_module_outside_urls_files_writes_a_site_path(site_segments):
    found = {
        str(path.relative_to(REPO)): offenders
        for path in _code_files()
        if (offenders := python_offenders(path.read_text(), site_segments, _allowed_in(path)))
    }
    assert found == {}


def test_no_template_or_script_writes_a_site_path(site_segments):
    found = {
        str(path.relative_to(REPO)): offenders
        for path in _text_files()
        if (offenders := text_offenders(path.read_text(), site_segments))
    }
    assert found == {}
