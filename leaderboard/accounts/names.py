"""Look-alike usernames and team names: a skeleton per Unicode TS #39, compared with every existing name.

A name shows on the boards as is, so ``Bаselines`` (with a Cyrillic а) would
pass for the ``Baselines`` team. Every new or changed username and team name is
reduced to a *skeleton* and refused if an existing user or team has the same
one. The skeleton is UTS #39's idea (section 4, "Confusable Detection"): map
each character to the prototype of its confusable class, so that two strings
that look alike get the same skeleton. Here:

1. NFKC, then casefold (``Ｂａｓｅｌｉｎｅｓ`` and ``BASELINES`` are ``baselines``);
2. NFD, dropping combining marks and invisible format characters (accents and
   zero-width joiners do not make a different name);
3. each character replaced by the prototype of its class in the confusables
   data of Unicode's ``confusables.txt``, as shipped by the maintained
   ``confusable-homoglyphs`` package: characters listed as confusable are
   joined into classes, and a class's prototype is its ASCII letter or digit
   (else its smallest code point); a character whose only listed look-alike is
   an ASCII sequence becomes that sequence (``m`` -> ``rn``), as in UTS #39.

Existing rows are never touched: the check (``accounts.forms.refuse_lookalike``) runs on sign-up, team creation and
renames only, against names other than the row's own.
"""

from __future__ import annotations

import functools
import unicodedata

from confusable_homoglyphs import confusables

# Left-to-right/right-to-left marks the data wraps some right-to-left characters in.
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")


def _is_ascii_alnum(text: str) -> bool:
    return text.isascii() and text.isalnum()


def _preference(char: str) -> tuple:
    # ASCII lowercase letters, then ASCII digits, then other ASCII, then the rest by code point.
    return (not (char.isascii() and char.islower()), not (char.isascii() and char.isdigit()), not char.isascii(), char)


@functools.cache
def _tables() -> tuple[dict[str, str], dict[str, str]]:
    """(prototype of each single character, expansion of characters that look like an ASCII sequence)."""
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        parent.setdefault(c, c)
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    expansions: dict[str, str] = {}
    for char, homoglyphs in confusables.confusables_data.items():
        char = char.translate(_DIRECTION_MARKS)
        if len(char) != 1:
            continue
        for entry in homoglyphs:
            other = entry["c"].translate(_DIRECTION_MARKS)
            if len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    parent[a] = b
            elif other and _is_ascii_alnum(other) and not char.isascii():
                expansions.setdefault(char, other.casefold())
            elif other and _is_ascii_alnum(other) and char.isascii() and len(homoglyphs) == 1:
                expansions.setdefault(char, other.casefold())
    classes: dict[str, list[str]] = {}
    for char in list(parent):
        classes.setdefault(find(char), []).append(char)
    prototype = {}
    for members in classes.values():
        best = min(members, key=_preference)
        for char in members:
            prototype[char] = best
    return prototype, expansions


def skeleton(name: str) -> str:
    """The look-alike key of ``name``: equal for names that read the same (see the module docstring)."""
    prototype, expansions = _tables()
    text = unicodedata.normalize("NFKC", " ".join(name.split())).casefold()
    text = "".join(
        c
        for c in unicodedata.normalize("NFD", text)
        if not unicodedata.combining(c) and unicodedata.category(c) != "Cf"
    )
    out = []
    for char in text:
        for part in expansions.get(char, char):
            out.append(prototype.get(part, part))
    return "".join(out)


def lookalike_message(name: str, existing: str) -> str:
    """The sentence a form shows when ``name`` is refused for looking like ``existing``."""
    if name.casefold() == existing.casefold():
        return f"The name “{existing}” is already taken."
    return (
        f"“{name}” looks like the existing name “{existing}” (some of its characters are look-alikes from "
        "another alphabet, accents or invisible characters). Choose a name that reads differently."
    )
