"""Bundles are parsed safely: alias bombs, deep nesting, recursive aliases, size and time are bounded.

Each hostile challenge.yaml is refused with a message that names its line and column, quotes no
expanded value, and costs bounded memory (measured with tracemalloc in the same run). Nothing is
created.
"""

from __future__ import annotations

import tracemalloc

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from leaderboard.challenges import bundles
from leaderboard.challenges.bundle_schema import MAX_DEFINITION_BYTES, BundleError, load_yaml
from tests.challenges.test_import_challenge import edited, example_files, nothing_created, write_bundle, zip_bytes

__all__ = ["nothing_created"]  # the fixture, used below

# 10 levels of 10 aliases each: 10**10 strings once expanded, 600 bytes as written.
ALIAS_BOMB = (
    "version: 1\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))
    + "challenge: {slug: x, title: *a9}\nphases: []\n"
)


def peak_bytes(call) -> int:
    """The peak memory Python allocated while ``call()`` ran."""
    tracemalloc.start()
    try:
        call()
    except BundleError:
        pass
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def refusal(text: str) -> str:
    with pytest.raises(BundleError) as error:
        load_yaml(text)
    return str(error.value)


def test_an_alias_bomb_is_refused_at_its_alias_in_bounded_memory():
    assert len(ALIAS_BOMB) < 700
    message = refusal(ALIAS_BOMB)
    assert message.startswith("challenge.yaml, line ")
    assert "expands past 2,000,000 values and characters" in message
    assert "lol" not in message and len(message) < 300
    assert peak_bytes(lambda: load_yaml(ALIAS_BOMB)) < 20 * 1024 * 1024


def test_an_alias_bomb_in_a_bundle_zip_is_refused_by_the_command_and_creates_nothing(tmp_path, nothing_created):
    path = write_bundle(tmp_path, {"challenge.yaml": ALIAS_BOMB.encode()})
    assert path.stat().st_size < 1000
    with pytest.raises(CommandError, match=r"challenge.yaml, line \d+, column \d+: the document expands past"):
        call_command("import_challenge", str(path))
    assert nothing_created()


def test_an_alias_bomb_uploaded_on_the_import_page_gives_a_short_page(client, olga, nothing_created):
    client.force_login(olga)
    upload = SimpleUploadedFile("bomb.zip", zip_bytes({"challenge.yaml": ALIAS_BOMB.encode()}), "application/zip")
    response = client.post("/challenges/import/", {"bundle": upload})
    assert response.status_code == 400
    assert b"expands past 2,000,000" in response.content
    assert len(response.content) < 50_000 and b"lol, lol" not in response.content
    assert nothing_created()


@pytest.mark.parametrize(
    "text",
    [
        "version: " + "[" * 5000 + "]" * 5000 + "\n",
        "version: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n",
        "version:\n" + "".join(" " * i + "- \n" for i in range(1, 400)),
    ],
    ids=["flow lists", "flow mappings", "block lists"],
)
def test_deep_nesting_is_refused_with_its_line_instead_of_a_recursion_error(text):
    message = refusal(text)
    assert "nested more than 32 levels deep" in message
    assert message.startswith("challenge.yaml, line ")


def test_an_alias_inside_its_own_anchor_is_refused():
    message = refusal("version: 1\nloop: &loop [1, *loop]\n")
    assert message == "challenge.yaml, line 2, column 17: the alias *loop refers to a value that contains it"


def test_a_definition_over_the_size_limit_is_refused_before_it_is_parsed():
    text = "version: 1\n# " + "x" * MAX_DEFINITION_BYTES + "\n"
    assert refusal(text) == f"challenge.yaml: {len(text.encode()):,} bytes; the limit is 1,000,000"


def test_a_few_aliases_within_the_bound_still_work():
    data = load_yaml("defaults: &d {daily_limit: 5}\nphases: [*d, *d]\n")
    assert data["phases"] == [{"daily_limit": 5}, {"daily_limit": 5}]


def test_error_messages_quote_no_expanded_or_long_value(tmp_path, nothing_created):
    # An expansion under the bound, in a place that needs text: the message names its kind and size only.
    files = edited("  title: MUDI held-out pairs 2027\n", "  title: &t [" + ", ".join(["word"] * 50) + "]\n")
    files["challenge.yaml"] += b"x: [*t, *t]\n"
    long_task = "Z" * 5000
    text = files["challenge.yaml"].decode().replace("task: mudi", f"task: {long_task}", 1)
    files["challenge.yaml"] = text.encode()
    with pytest.raises(CommandError) as error:
        call_command("import_challenge", str(write_bundle(tmp_path, files)))
    message = str(error.value)
    assert "challenge.title: a list of 50 items is not text" in message
    assert f'phases[0].task: "{"Z" * 60}... (5,000 characters)" is not a task' in message
    assert "word, word" not in message and long_task not in message
    assert nothing_created()


def test_an_import_past_its_time_limit_stops_and_creates_nothing(tmp_path, nothing_created):
    with pytest.raises(BundleError, match=r"the import took longer than 0 s \(stopped after reading challenge.yaml\)"):
        bundles.import_bundle(write_bundle(tmp_path, example_files()), time_limit=0)
    assert nothing_created()
