"""Import MUDI's drug information (``drug_info.json``) into ``Drug`` rows.

The file maps a bare DrugBank id to ``{"name", "smiles", "formula",
"description"}`` (the description a string or ``{section: text}``). It is read
from a path or an http(s) URL, checked whole before anything is written (a bad
file changes nothing), and every drug gets, at import:

- its description sanitised (nh3: a few inline tags such as ``<sub>`` survive,
  everything else is text);
- its structure drawn by RDKit (``depict.draw``), only when its SMILES is new or
  changed, so a re-import draws nothing twice;
- its number of MUDI test pairs by class, counted from the standing MUDI phase's
  truth when one is loaded.
"""

from __future__ import annotations

import json
import math
import re
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nh3
from django.db import transaction

from leaderboard.challenges.models import Phase
from leaderboard.challenges.truth_cache import TruthMissing, phase_truth
from leaderboard.drugs import depict
from leaderboard.drugs.models import Drug
from leaderboard.kinds import mudi
from scoring.metrics.mudi_drugs import test_pairs_by_class

DRUG_ID = re.compile(r"DB\d{5}")
# The description's sections, in page order, with their headings; other keys follow under their own name.
SECTIONS = {
    "summary": "Summary",
    "indication": "Indication",
    "moa": "Mechanism of action",
    "pharmacodynamics": "Pharmacodynamics",
    "metabolism": "Metabolism",
}
# What a description keeps of the HTML DrugBank writes (sub- and superscripts in formulas and names).
KEPT_TAGS = {"sub", "sup", "i", "em", "b", "strong"}
URL_TIMEOUT_SECONDS = 60
# The whole import; past it the remaining drawings wait for the next one (drugs.md).
TIME_LIMIT_SECONDS = 900.0
POSTPONED = "This drug's structure is not drawn yet: the next import of the drug information draws it."
MAX_SHOWN_PROBLEMS = 10


class DrugInfoError(Exception):
    """The drug information file cannot be imported; the message says why (and where)."""


@dataclass
class LoadReport:
    created: int = 0
    updated: int = 0
    drawn: int = 0
    unreadable: list[str] = field(default_factory=list)  # ids with no drawing (unreadable SMILES, overran, ...)
    postponed: list[str] = field(default_factory=list)  # ids not drawn because the import's time ran out
    counted: int = 0  # drugs with test pairs
    truth: str = ""  # the truth's sha256 the counts come from ("" when no MUDI truth is loaded)


def default_source() -> str:
    return mudi.drug_info_source()


def _download(source: str, deadline: float) -> bytes:
    """The body at an http(s) URL, read in pieces so a server that drips it out cannot outlast the deadline."""
    chunks = []
    with urllib.request.urlopen(source, timeout=URL_TIMEOUT_SECONDS) as response:  # noqa: S310 (http(s) only)
        while chunk := response.read(1024 * 1024):
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise DrugInfoError(f"Reading {source} took longer than the time limit; nothing was imported.")
    return b"".join(chunks)


def read_source(source: str, deadline: float = math.inf) -> dict[str, Any]:
    """The parsed JSON of a path or an http(s) URL; ``DrugInfoError`` with the reason otherwise."""
    try:
        if re.match(r"https?://", source):
            raw = _download(source, deadline)
        else:
            raw = Path(source.removeprefix("file://")).read_bytes()
    except (OSError, ValueError) as error:
        raise DrugInfoError(f"Could not read {source}: {error}") from error
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DrugInfoError(f"{source} is not JSON: {error}") from error
    if not isinstance(data, dict):
        raise DrugInfoError(f"{source} must map DrugBank ids to drug records, not hold a {type(data).__name__}.")
    return data


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def check(data: dict[str, Any]) -> list[str]:
    """Every problem of the file (an id that is not a DrugBank id, a record that is not an object, no name)."""
    problems = []
    for key, record in data.items():
        if not DRUG_ID.fullmatch(str(key)):
            problems.append(f"{key!r} is not a DrugBank id like DB00014.")
        elif not isinstance(record, dict):
            problems.append(f"{key}: the record must be an object with name, smiles, formula and description.")
        elif not _text(record.get("name")):
            problems.append(f"{key}: the record has no name.")
        elif not isinstance(record.get("smiles", ""), str) or not isinstance(record.get("formula", ""), str):
            problems.append(f"{key}: smiles and formula must be text.")
    return problems


def sanitise(text: str) -> str:
    """Description text as safe HTML: kept inline tags, escaped rest, paragraphs and line breaks."""
    clean = nh3.clean(text.replace("\r\n", "\n").strip(), tags=KEPT_TAGS, attributes={})
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", clean) if p.strip()]
    return "".join(f"<p>{p.replace(chr(10), '<br>')}</p>" for p in paragraphs)


def description_sections(description: Any) -> list[dict[str, str]]:
    """[{"title", "html"}] of a description given as text or as {section: text}; the section's own prefix
    ("Indication: ...") is dropped because the heading says it."""
    if isinstance(description, str):
        description = {"summary": description}
    if not isinstance(description, dict):
        return []
    order = [*(k for k in SECTIONS if k in description), *(k for k in description if k not in SECTIONS)]
    sections = []
    for key in order:
        text = _text(description.get(key))
        title = SECTIONS.get(key, str(key).replace("_", " ").capitalize())
        for prefix in (f"{title}:", f"{key}:", f"{str(key).capitalize()}:"):
            if text.lower().startswith(prefix.lower()):
                text = text[len(prefix) :].strip()
        if text:
            sections.append({"title": title, "html": sanitise(text)})
    return sections


def mudi_test_pairs() -> tuple[dict[str, dict[str, int]], str]:
    """Test pairs by class per drug from the standing MUDI phase's truth, and that truth's sha256."""
    phase = Phase.objects.standing().filter(task_slug=mudi.TASK_SLUG).first()
    if phase is None or not phase.has_truth:
        return {}, ""
    try:
        truth = phase_truth(phase)
    except TruthMissing:
        return {}, ""
    names = tuple(str(v) for v in truth.vocabulary)
    return test_pairs_by_class(truth.gold_a, truth.gold_b, truth.gold_label, names), phase.truth_sha256


def load(source: str, time_limit: float = TIME_LIMIT_SECONDS, seconds_per_drawing: float | None = None) -> LoadReport:
    """Import every drug of ``source`` (a path or URL); ``DrugInfoError`` before any write if the file is bad.

    Within ``time_limit`` seconds: past it, structures not drawn yet are left
    for the next import (``LoadReport.postponed``) and everything else is
    imported; a download still running then stops the import. Each drawing has
    its own limit (``depict.SECONDS_PER_DRAWING``).
    """
    deadline = time.monotonic() + time_limit
    data = read_source(source, deadline)
    problems = check(data)
    if problems:
        shown = "\n".join(problems[:MAX_SHOWN_PROBLEMS])
        more = len(problems) - MAX_SHOWN_PROBLEMS
        raise DrugInfoError(
            f"{source}: {len(problems)} problem{'s' if len(problems) != 1 else ''}, nothing was imported:\n{shown}"
            + (f"\n... and {more} more." if more > 0 else "")
        )
    report = LoadReport()
    pairs, report.truth = mudi_test_pairs()
    existing = {drug.drugbank_id: drug for drug in Drug.objects.all()}
    rows = []
    drawer = depict.Drawer(depict.SECONDS_PER_DRAWING if seconds_per_drawing is None else seconds_per_drawing)
    with drawer:
        for drug_id, record in data.items():
            rows.append(_import_one(existing.get(drug_id), drug_id, record, pairs, report, drawer, deadline))
    fields = [f.name for f in Drug._meta.concrete_fields if not f.primary_key]
    with transaction.atomic():
        Drug.objects.bulk_create([d for d in rows if d.drugbank_id not in existing], batch_size=200)
        Drug.objects.bulk_update([d for d in rows if d.drugbank_id in existing], fields, batch_size=200)
    return report


def _import_one(
    drug: Drug | None, drug_id: str, record: dict, pairs: dict, report: LoadReport, drawer: depict.Drawer,
    deadline: float,
) -> Drug:  # fmt: skip
    if drug is None:
        drug = Drug(drugbank_id=drug_id)
        report.created += 1
    else:
        report.updated += 1
    drug.name = _text(record["name"])[:300]
    drug.formula = _text(record.get("formula"))[:200]
    drug.smiles = _text(record.get("smiles"))
    drug.description = description_sections(record.get("description"))
    if drug.drawn_smiles != drug.smiles or not (drug.structure_svg or drug.structure_error):
        if time.monotonic() < deadline:
            depiction = drawer.draw(drug.smiles)
            drug.structure_svg, drug.structure_error = depiction.svg, depiction.error
            drug.drawn_smiles = drug.smiles
            report.drawn += 1
        else:  # drawn by the next import (its drawn_smiles still differs)
            drug.structure_svg, drug.structure_error = "", POSTPONED
            report.postponed.append(drug_id)
    if drug.structure_error and drug.smiles and drug_id not in report.postponed:
        report.unreadable.append(drug_id)
    drug.test_pairs = pairs.get(drug_id, {})
    drug.test_pairs_total = drug.test_pairs.get("total", 0)
    drug.counted_from = report.truth
    report.counted += bool(drug.test_pairs_total)
    return drug
