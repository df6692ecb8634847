"""The Cite panel: BibTeX for a benchmark's paper and for a pinned board view.

The paper's entry is read from the task's citation in ``scoring.registry`` (its one
home), which every family writes as "Authors (Year). Title. arXiv:ID.". The view's
entry names the board, the view, the moment it is pinned to, its permalink and the
digest of its rows (``leaderboard.boards.pinned``), so a reader can check that the
table they open is the one the paper compared against.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

CITATION = re.compile(
    r"^(?P<authors>.+?) \((?P<year>\d{4})\)\. (?P<title>.+?)\. arXiv:(?P<eprint>\d{4}\.\d{4,5}(?:v\d+)?)\.?$"
)


def _bibtex_escape(text: str) -> str:
    """Text safe inside a BibTeX braced value: LaTeX's special characters escaped."""
    out = []
    for ch in text:
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "~":
            out.append(r"\textasciitilde{}")
        elif ch == "\\":
            out.append(r"\textbackslash{}")
        elif ch == "^":
            out.append(r"\textasciicircum{}")
        else:
            out.append(ch)
    return "".join(out)


def _authors(text: str) -> str:
    """'Ngo, T.-L., Tran, B.-H.' -> 'Ngo, T.-L. and Tran, B.-H.'; 'Li, L. et al.' -> 'Li, L. and others'."""
    others = text.endswith(" et al.")
    if others:
        text = text[: -len(" et al.")]
    parts = [p.strip() for p in text.split(",")]
    names = [f"{parts[i]}, {parts[i + 1]}" for i in range(0, len(parts) - 1, 2)]
    if len(parts) % 2:
        names.append(parts[-1])
    return " and ".join(names + (["others"] if others else []))


def _entry(kind: str, key: str, fields: list[tuple[str, str]]) -> str:
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{key},\n{body}\n}}"


def paper_bibtex(task) -> str:
    """A BibTeX entry for the paper that defines ``task``'s benchmark (an @misc arXiv entry)."""
    found = CITATION.match(task.citation)
    if found is None:  # a citation in another form: cite it as a note rather than guess its parts
        return _entry("misc", task.family, [("note", _bibtex_escape(task.citation)), ("url", task.paper_url)])
    first = found["authors"].split(",")[0].strip()
    key = re.sub(r"[^A-Za-z]", "", first).lower() + found["year"] + task.family
    return _entry(
        "misc",
        key,
        [
            ("author", _bibtex_escape(_authors(found["authors"]))),
            ("title", "{" + _bibtex_escape(found["title"]) + "}"),
            ("year", found["year"]),
            ("eprint", found["eprint"]),
            ("archivePrefix", "arXiv"),
            ("url", task.paper_url),
        ],
    )


@dataclass(frozen=True)
class PinnedView:
    """A board view pinned to a moment, as the Cite panel and the paper tables name it."""

    title: str  # "MUDI (test) leaderboard, direction-aware"
    slug: str  # for the BibTeX key
    as_of: dt.datetime
    permalink: str  # absolute URL with ?as_of=
    digest: str
    n_rows: int


def view_bibtex(view: PinnedView) -> str:
    """A BibTeX @misc entry for a pinned view: title with its moment, permalink, row digest."""
    moment = view.as_of.astimezone(dt.UTC)
    key = f"ddileaderboard-{view.slug}-{moment:%Y%m%d%H%M%S}"
    return _entry(
        "misc",
        key,
        [
            ("title", "{" + _bibtex_escape(f"{view.title}, as of {moment:%Y-%m-%d %H:%M:%S} UTC") + "}"),
            ("author", "{DDI Leaderboard}"),
            ("year", f"{moment:%Y}"),
            ("month", f"{moment:%b}".lower()),
            ("howpublished", f"\\url{{{view.permalink}}}"),
            ("note", f"{view.n_rows} rows, sha256 digest {view.digest}"),
        ],
    )
