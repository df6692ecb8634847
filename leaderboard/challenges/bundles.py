"""Challenge bundles: one YAML definition plus its truth files in a .zip, imported and exported whole.

The schema (``bundle_schema``) is documented in docs/challenges.md;
``docs/examples/mudi-2027/`` is a complete bundle. Import reads and checks everything first (the YAML against
the schema, every zip entry, every truth file with ``scoring`` exactly as an
uploaded truth is checked) and only then creates the challenge, its phases and
their truths in one transaction: any error creates nothing. Every message names
the key path, e.g. ``phases[1].ends_at: "2027-02-30" is not a date``.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import shutil
import stat
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml
from django.contrib.auth import get_user_model
from django.db import transaction

import scoring
from leaderboard.challenges.bundle_schema import (
    DEFINITION,
    SCHEMA_VERSION,
    BundleError,
    ChallengeDefinition,
    PhaseDefinition,
    describe_value,
    load_yaml,
    parse_definition,
)
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.services import import_truth, validate_phase_truth

# Total uncompressed size of a bundle's entries; a truth file is at most scoring's 200 MB.
MAX_BUNDLE_BYTES = 512 * 1024 * 1024
MAX_ENTRIES = 200
# How many of a truth file's problems a bundle error quotes.
MAX_TRUTH_PROBLEMS = 5
# Seconds a whole import may take (reading, checking every truth, storing); checked between steps, so an
# import that would run past it stops at the next step, creates nothing and says which step it reached.
MAX_IMPORT_SECONDS = 300


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.until = time.monotonic() + seconds

    def check(self, step: str) -> None:
        if time.monotonic() > self.until:
            raise BundleError(
                [
                    f"the import took longer than {self.seconds:g} s (stopped {step}); nothing was created. "
                    "Import large truths with manage.py import_challenge, or upload them on the phase page"
                ]
            )


__all__ = ["BundleError", "definition_of", "export_bundle", "import_bundle", "read_bundle"]


# ---------------------------------------------------------------------------
# The zip
# ---------------------------------------------------------------------------


def _safe_names(archive: zipfile.ZipFile, max_bytes: int) -> dict[str, zipfile.ZipInfo]:
    """Every file entry by its normalised name; BundleError for unsafe entries or a bundle over the size cap."""
    problems = []
    entries: dict[str, zipfile.ZipInfo] = {}
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise BundleError([f"the bundle has {len(infos)} entries; the limit is {MAX_ENTRIES}"])
    total = 0
    for info in infos:
        name = info.filename.replace("\\", "/")
        parts = PurePosixPath(name).parts
        if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
            problems.append(f'zip entry "{info.filename}": absolute paths are not allowed')
            continue
        if ".." in parts:
            problems.append(f'zip entry "{info.filename}": ".." in a path is not allowed')
            continue
        if stat.S_ISLNK(info.external_attr >> 16):
            problems.append(f'zip entry "{info.filename}": links are not allowed')
            continue
        if info.is_dir():
            continue
        total += info.file_size
        entries[str(PurePosixPath(*parts))] = info
    if total > max_bytes:
        problems.append(f"the bundle unpacks to {total:,} bytes; the limit is {max_bytes:,}")
    if problems:
        raise BundleError(problems)
    return entries


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: list[int]) -> bytes:
    """An entry's bytes, never more than the remaining budget (a zip may lie about its sizes)."""
    with archive.open(info) as handle:
        data = handle.read(budget[0] + 1)
    if len(data) > budget[0]:
        raise BundleError([f'zip entry "{info.filename}" unpacks to more than the bundle size limit'])
    budget[0] -= len(data)
    return data


@dataclass
class Bundle:
    """A checked bundle: the definition and, per phase slug, its truth file's bytes."""

    definition: ChallengeDefinition
    truths: dict[str, tuple[str, bytes]]  # phase slug -> (name in the zip, bytes)


def read_bundle(source, *, max_bytes: int | None = None, deadline: _Deadline | None = None) -> Bundle:
    """Open and check a bundle (path or binary file): zip entries, schema, truth files. Creates nothing.

    ``max_bytes`` caps the total uncompressed size (default MAX_BUNDLE_BYTES); ``deadline`` the time.
    """
    max_bytes = MAX_BUNDLE_BYTES if max_bytes is None else max_bytes
    deadline = deadline or _Deadline(MAX_IMPORT_SECONDS)
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as error:
        raise BundleError([f"the bundle is not a readable .zip file ({error})"]) from None
    with archive:
        entries = _safe_names(archive, max_bytes)
        budget = [max_bytes]
        if DEFINITION not in entries:
            raise BundleError([f"the bundle has no {DEFINITION} at its top level"])
        try:
            text = _read_entry(archive, entries[DEFINITION], budget).decode("utf-8")
        except UnicodeDecodeError:
            raise BundleError([f"{DEFINITION} is not UTF-8 text"]) from None
        definition = parse_definition(load_yaml(text))
        deadline.check(f"after reading {DEFINITION}")
        truths: dict[str, tuple[str, bytes]] = {}
        problems = []
        for i, phase in enumerate(definition.phases):
            if not phase.truth:
                continue
            name = str(PurePosixPath(phase.truth.replace("\\", "/")))
            if name not in entries:
                problems.append(f"phases[{i}].truth: {describe_value(phase.truth)} is not in the bundle")
                continue
            truths[phase.slug] = (name, _read_entry(archive, entries[name], budget))
            deadline.check(f"after unpacking phases[{i}].truth")
    for i, phase in enumerate(definition.phases):
        if phase.slug in truths:
            problems += _truth_problems(f"phases[{i}].truth", phase, *truths[phase.slug])
            deadline.check(f"after checking phases[{i}].truth")
    if problems:
        raise BundleError(problems)
    return Bundle(definition=definition, truths=truths)


def _unsaved_phase(phase: PhaseDefinition) -> Phase:
    return Phase(slug=phase.slug, title=phase.title, task_slug=phase.task, split=phase.split)


def _truth_problems(path: str, phase: PhaseDefinition, name: str, data: bytes) -> list[str]:
    """The truth checked by scoring exactly as an uploaded truth is (split included)."""
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / PurePosixPath(name).name
        target.write_bytes(data)
        try:
            validate_phase_truth(_unsaved_phase(phase), target)
        except scoring.ScoringError as error:
            shown = [f'{path} ("{name}"): {p.message}' for p in error.problems[:MAX_TRUTH_PROBLEMS]]
            if error.total > len(shown):
                shown.append(f'{path} ("{name}"): ... and {error.total - len(shown)} more problems')
            return shown
    return []


# ---------------------------------------------------------------------------
# Import and export
# ---------------------------------------------------------------------------


def import_bundle(
    source,
    *,
    slug: str | None = None,
    imported_by=None,
    max_bytes: int | None = None,
    time_limit: float = MAX_IMPORT_SECONDS,
) -> Challenge:
    """Create an organized challenge from a bundle, all or nothing. ``slug`` overrides the bundle's.

    The importing user (if any) becomes an organizer, besides the usernames the
    bundle lists. Raises BundleError; nothing is created on any error, nor past ``time_limit`` seconds.
    """
    deadline = _Deadline(time_limit)
    bundle = read_bundle(source, max_bytes=max_bytes, deadline=deadline)
    definition = bundle.definition
    if slug is not None:
        definition.slug = slug
    problems = []
    if Challenge.objects.filter(slug=definition.slug).exists():
        problems.append(
            f"challenge.slug: {describe_value(definition.slug)} already exists on this site; choose another slug"
        )
    users = {u.username: u for u in get_user_model().objects.filter(username__in=definition.organizers)}
    for i, name in enumerate(definition.organizers):
        if name not in users:
            problems.append(f"challenge.organizers[{i}]: {describe_value(name)} is not a user of this site")
    if problems:
        raise BundleError(problems)
    stored: list = []  # truth files written so far: a rolled-back import must not leave them behind
    try:
        return _create(bundle, users, imported_by, stored, deadline)
    except BaseException:
        for field_file in stored:
            field_file.storage.delete(field_file.name)
        raise


def _create(bundle: Bundle, users: dict, imported_by, stored: list, deadline: _Deadline) -> Challenge:
    definition = bundle.definition
    with transaction.atomic():
        challenge = Challenge.objects.create(
            slug=definition.slug,
            title=definition.title,
            kind=Challenge.Kind.ORGANIZED,
            overview=definition.overview,
            rules=definition.rules,
            data_description=definition.data,
            terms=definition.terms,
            registration_mode=definition.registration,
            allowed_domains=definition.allowed_domains,
            max_team_size=definition.max_team_size,
            contact_email=definition.contact,
            is_published=definition.published,
        )
        challenge.organizers.add(*users.values(), *([imported_by] if imported_by else []))
        for order, item in enumerate(definition.phases):
            phase = Phase.objects.create(
                challenge=challenge,
                order=order,
                slug=item.slug,
                title=item.title,
                task_slug=item.task,
                starts_at=item.starts_at,
                ends_at=item.ends_at,
                daily_limit=item.daily_limit,
                total_limit=item.total_limit,
                concurrent_limit=item.concurrent_limit,
                board_mode=item.board,
                final_selection_allowed=item.final_selection_allowed,
                final_selection_count=item.final_selection_count,
                public_board=item.public_board,
                ladder_threshold=item.ladder_threshold,
                split=item.split,
            )
            if item.slug in bundle.truths:
                name, data = bundle.truths[item.slug]
                with tempfile.TemporaryDirectory() as tmp:
                    path = Path(tmp) / PurePosixPath(name).name
                    path.write_bytes(data)
                    import_truth(phase, path, label=f"bundle {definition.slug}: {name}", uploaded_by=imported_by)
                stored.append(phase.truth_file)
            # Inside the transaction: past the deadline, the rows roll back and the stored files are deleted.
            deadline.check(f"after storing phases[{order}]")
    return challenge


def definition_of(challenge: Challenge) -> dict:
    """The challenge as bundle YAML data (truth paths point into the exported zip)."""
    phases = []
    for phase in challenge.phases.all():
        item = {
            "slug": phase.slug,
            "title": phase.title,
            "task": phase.task_slug,
            "starts_at": phase.starts_at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
            "ends_at": phase.ends_at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z") if phase.ends_at else None,
            "daily_limit": phase.daily_limit,
            "total_limit": phase.total_limit,
            "concurrent_limit": phase.concurrent_limit,
            "board": phase.board_mode,
            "final_selection": {"allowed": phase.final_selection_allowed, "count": phase.final_selection_count},
            "public_board": phase.public_board,
            "ladder_threshold": phase.ladder_threshold,
            "split": phase.split,
            "truth": _truth_entry(phase) if phase.has_truth else None,
        }
        phases.append({k: v for k, v in item.items() if v is not None})
    data = {
        "slug": challenge.slug,
        "title": challenge.title,
        "overview": challenge.overview,
        "rules": challenge.rules,
        "data": challenge.data_description,
        "terms": challenge.terms,
        "registration": challenge.registration_mode,
        "allowed_domains": list(challenge.allowed_domains),
        "max_team_size": challenge.max_team_size,
        "contact": challenge.contact_email,
        "published": challenge.is_published,
        "organizers": sorted(challenge.organizers.values_list("username", flat=True)),
    }
    return {
        "version": SCHEMA_VERSION,
        "challenge": {k: v for k, v in data.items() if v not in (None, "", [])},
        "phases": phases,
    }


def _truth_entry(phase: Phase) -> str:
    name = phase.truth_file.name or ""
    suffix = ".csv.gz" if name.endswith(".gz") else (".tsv" if name.endswith(".tsv") else ".csv")
    return f"truth/{phase.slug}{suffix}"


def export_bundle(challenge: Challenge) -> bytes:
    """The challenge as a bundle .zip (definition plus current truth files) that import_bundle reads back."""
    buffer = io.BytesIO()
    definition = definition_of(challenge)
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(DEFINITION, yaml.safe_dump(definition, sort_keys=False, allow_unicode=True))
        for phase in challenge.phases.all():
            if phase.has_truth:
                # Streamed from storage (a local folder or a bucket) into the archive: no local path.
                with phase.truth_file.open("rb") as src, archive.open(_truth_entry(phase), "w") as dst:
                    shutil.copyfileobj(src, dst, 1024 * 1024)
    return buffer.getvalue()
