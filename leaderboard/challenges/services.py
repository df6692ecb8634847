"""Writes on challenges and phases: the standing benchmarks and their truth files."""

from __future__ import annotations

import hashlib
import logging
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from django.core.files import File
from django.db import transaction
from django.utils import timezone

import scoring
from leaderboard.challenges.models import Challenge, Phase, TruthVersion

log = logging.getLogger(__name__)

# Truth files fetched from a URL are refused beyond this size (the largest real one is ~60 MB).
MAX_TRUTH_DOWNLOAD_BYTES = 500 * 1024 * 1024


@dataclass
class SyncReport:
    challenges_created: int = 0
    phases_created: int = 0
    phases_updated: int = 0


def phase_title(task) -> str:
    split = "" if task.split in ("test", "") else f" ({task.split})"
    return f"{task.dataset_name}{split}"


@transaction.atomic
def sync_standing_challenges() -> SyncReport:
    """Create or update one standing challenge per scoring family and one open phase per task.

    Idempotent: a second run changes nothing. Limits and dates an operator
    edited in the admin are left alone; only titles and descriptions follow
    the registry.
    """
    report = SyncReport()
    for family in scoring.FAMILIES.values():
        challenge, created = Challenge.objects.get_or_create(
            slug=family.slug,
            defaults={"title": family.name, "kind": Challenge.Kind.STANDING, "family": family.slug},
        )
        report.challenges_created += created
        changed: dict[str, object] = {"title": family.name, "description": family.description, "family": family.slug}
        if created:
            changed["is_published"] = True  # a standing benchmark is public; an operator may unpublish it later
        if any(getattr(challenge, k) != v for k, v in changed.items()):
            for k, v in changed.items():
                setattr(challenge, k, v)
            challenge.save(update_fields=list(changed))
    for task in scoring.TASKS.values():
        challenge = Challenge.objects.get(slug=task.family)
        phase, created = Phase.objects.get_or_create(
            challenge=challenge,
            slug=task.slug,
            defaults={"title": phase_title(task), "task_slug": task.slug},
        )
        if created:
            report.phases_created += 1
        elif phase.title != phase_title(task) or phase.task_slug != task.slug:
            phase.title = phase_title(task)
            phase.task_slug = task.slug
            phase.save(update_fields=["title", "task_slug"])
            report.phases_updated += 1
    return report


def standing_phase(task_slug: str) -> Phase:
    """The standing phase of a registry task (``Phase.DoesNotExist`` if not loaded)."""
    return Phase.objects.standing().select_related("challenge").get(task_slug=task_slug)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1024 * 1024), b""):
            digest.update(chunk)
    return digest.hexdigest()


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def download(url: str, directory: Path) -> Path:
    """Fetch a URL into ``directory``; refuses anything over MAX_TRUTH_DOWNLOAD_BYTES."""
    name = Path(url.split("?", 1)[0]).name or "truth.csv"
    target = directory / name
    with urllib.request.urlopen(url, timeout=60) as response, open(target, "wb") as out:  # noqa: S310 (operator-given)
        copied = 0
        for chunk in iter(lambda: response.read(1024 * 1024), b""):
            copied += len(chunk)
            if copied > MAX_TRUTH_DOWNLOAD_BYTES:
                raise ValueError(f"{url} is larger than {MAX_TRUTH_DOWNLOAD_BYTES // (1024 * 1024)} MB")
            out.write(chunk)
    return target


@dataclass
class TruthImport:
    phase: Phase
    sha256: str
    n_rows: int
    changed: bool


def truth_counts(truth) -> dict:
    """Row counts of a parsed truth for the pages: {"rows": n, "per_seed": {"0": n, ...}} (per seed when seeded)."""
    counts: dict = {"rows": int(getattr(truth, "n_rows", 0))}
    by_seed = getattr(truth, "rows_by_seed", None)
    if by_seed and len(by_seed) > 1:
        counts["per_seed"] = {str(seed): int(len(rows)) for seed, rows in sorted(by_seed.items())}
    return counts


def validate_phase_truth(phase: Phase, path: Path | BinaryIO):
    """Parse a truth file for ``phase`` as ``scoring`` will score it, split included; raises ScoringError."""
    spec = phase.split_spec
    if spec is None:
        return scoring.validate_truth(phase.task, path)
    return scoring.load_split_truth(phase.task, path, spec)[0]


def import_truth(
    phase: Phase, source: str | Path, *, synthetic: bool = False, label: str = "", uploaded_by=None
) -> TruthImport:
    """Validate a truth file with ``scoring`` and store it privately on the phase.

    ``source`` is a path or an http(s) URL. Raises ``scoring.ScoringError`` for
    an invalid file (nothing is stored); a phase with a split checks the split
    too. Importing the same bytes again is a no-op (``changed`` False).
    ``label`` is what the site records as the source (defaults to the path or
    URL). A replaced truth stays stored as an earlier ``TruthVersion``.
    """
    source = str(source)
    with tempfile.TemporaryDirectory() as tmp:
        path = download(source, Path(tmp)) if is_url(source) else Path(source)
        truth = validate_phase_truth(phase, path)
        sha = file_sha256(path)
        n_rows = getattr(truth, "n_rows", 0)
        counts = truth_counts(truth)
        if (
            sha == phase.truth_sha256
            and phase.truth_file
            and phase.truth_file.storage.exists(phase.truth_file.name or "")
        ):
            changed = (
                phase.truth_is_synthetic != synthetic
                or (label or source) != phase.truth_source
                or phase.truth_counts != counts
            )
            if changed:
                phase.truth_is_synthetic = synthetic
                phase.truth_source = (label or source)[:500]
                phase.truth_counts = counts
                phase.save(update_fields=["truth_is_synthetic", "truth_source", "truth_counts"])
            return TruthImport(phase, sha, n_rows, changed=False)
        suffix = ".csv.gz" if path.name.endswith(".gz") else (".tsv" if path.name.endswith(".tsv") else ".csv")
        with open(path, "rb") as handle:
            phase.truth_file.save(f"{phase.task_slug}-{sha[:12]}{suffix}", File(handle), save=False)
        phase.truth_sha256 = sha
        phase.truth_is_synthetic = synthetic
        phase.truth_source = (label or source)[:500]
        phase.truth_updated_at = timezone.now()
        phase.truth_counts = counts
        with transaction.atomic():
            phase.save(
                update_fields=[
                    "truth_file", "truth_sha256", "truth_is_synthetic", "truth_source", "truth_updated_at",
                    "truth_counts",
                ]
            )  # fmt: skip
            # The version shares the stored file with the phase; an earlier version's file is kept.
            TruthVersion.objects.update_or_create(
                phase=phase,
                sha256=sha,
                defaults={
                    "file": phase.truth_file.name,
                    "n_rows": n_rows,
                    "source": phase.truth_source,
                    "uploaded_by": uploaded_by,
                    "created_at": phase.truth_updated_at,
                },
            )
        log.info("imported truth for %s from %s (%s rows, sha256 %s)", phase.task_slug, source, n_rows, sha[:12])
        return TruthImport(phase, sha, n_rows, changed=True)


def current_truth_version(phase_id: int) -> TruthVersion | None:
    """The version of the phase's current truth file (None before any truth was imported)."""
    return (
        TruthVersion.objects.filter(
            phase_id=phase_id, sha256=Phase.objects.filter(pk=phase_id).values("truth_sha256")[:1]
        )
        .order_by("-created_at")
        .first()
    )
