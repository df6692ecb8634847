"""Challenge bundles: one YAML definition plus its truth files in a .zip, imported and exported whole.

The schema is documented in docs/challenges.md; ``docs/examples/mudi-2027/`` is
a complete bundle. Import reads and checks everything first (the YAML against
the schema, every zip entry, every truth file with ``scoring`` exactly as an
uploaded truth is checked) and only then creates the challenge, its phases and
their truths in one transaction: any error creates nothing. Every message names
the key path, e.g. ``phases[1].ends_at: "2027-02-30" is not a date``.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import stat
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml
from django.contrib.auth import get_user_model
from django.db import transaction

import scoring
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.services import copy_to_temp, import_truth, validate_phase_truth

DEFINITION = "challenge.yaml"
SCHEMA_VERSION = 1
# Total uncompressed size of a bundle's entries; a truth file is at most scoring's 200 MB.
MAX_BUNDLE_BYTES = 512 * 1024 * 1024
MAX_ENTRIES = 200
# How many of a truth file's problems a bundle error quotes.
MAX_TRUTH_PROBLEMS = 5
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

CHALLENGE_KEYS = {
    "slug": "required",
    "title": "required",
    "overview": "",
    "rules": "",
    "data": "",
    "terms": "",
    "registration": "",
    "allowed_domains": "",
    "max_team_size": "",
    "contact": "",
    "published": "",
    "organizers": "",
}
PHASE_KEYS = {
    "slug": "required",
    "title": "required",
    "task": "required",
    "starts_at": "required",
    "ends_at": "",
    "daily_limit": "",
    "total_limit": "",
    "concurrent_limit": "",
    "board": "",
    "final_selection": "",
    "public_board": "",
    "ladder_threshold": "",
    "split": "",
    "truth": "",
}
TOP_KEYS = {"version": "required", "challenge": "required", "phases": "required"}


class BundleError(Exception):
    """A bundle that cannot be imported; ``problems`` lists every message, each naming its key path."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader without implicit timestamps: dates stay text, so a bad one can be named."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(text: str):
    """Parse bundle YAML safely (no object construction); BundleError naming the line if it is not YAML."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise BundleError([f"{DEFINITION}: not valid YAML{where}: {problem}"]) from None


# ---------------------------------------------------------------------------
# The definition: plain data checked against the schema
# ---------------------------------------------------------------------------


@dataclass
class PhaseDefinition:
    slug: str
    title: str
    task: str
    starts_at: dt.datetime
    ends_at: dt.datetime | None = None
    daily_limit: int = 5
    total_limit: int = 100
    concurrent_limit: int | None = None
    board: str = Phase.BoardMode.BEST
    final_selection_allowed: bool = False
    final_selection_count: int = 2
    public_board: str = Phase.PublicBoard.LIVE
    ladder_threshold: float | None = None
    split: dict | None = None
    truth: str = ""


@dataclass
class ChallengeDefinition:
    slug: str
    title: str
    overview: str = ""
    rules: str = ""
    data: str = ""
    terms: str = ""
    registration: str = Challenge.Registration.OPEN
    allowed_domains: list[str] = field(default_factory=list)
    max_team_size: int | None = None
    contact: str = ""
    published: bool = False
    organizers: list[str] = field(default_factory=list)
    phases: list[PhaseDefinition] = field(default_factory=list)


def _describe(value) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if value is None:
        return "empty"
    return repr(value)


class _Checker:
    """Collects every schema problem with its key path instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}")

    def mapping(self, path: str, value, keys: dict[str, str]) -> dict | None:
        if not isinstance(value, dict):
            self.add(path, f"{_describe(value)} is not a mapping of keys to values")
            return None
        for key in value:
            if key not in keys:
                self.add(f"{path}.{key}" if path else str(key), f"unknown key; expected one of {', '.join(keys)}")
        for key, need in keys.items():
            if need == "required" and key not in value:
                self.add(f"{path}.{key}" if path else key, "is required")
        return value

    def text(self, path: str, value, *, required: bool = False, slug: bool = False, limit: int = 0) -> str:
        if value is None and not required:
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            self.add(path, f"{_describe(value)} is not {'a slug' if slug else 'text'}")
            return ""
        if slug and not SLUG.match(value):
            self.add(path, f'"{value}" is not a slug (lower-case letters, digits and single hyphens)')
        if limit and len(value) > limit:
            self.add(path, f"is longer than {limit} characters")
        return value

    def integer(self, path: str, value, default, *, minimum: int = 0):
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.add(path, f"{_describe(value)} is not a whole number >= {minimum}")
            return default
        return value

    def boolean(self, path: str, value, default: bool) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(path, f"{_describe(value)} is not true or false")
            return default
        return value

    def choice(self, path: str, value, choices, default: str) -> str:
        if value is None:
            return default
        if value not in choices:
            self.add(path, f"{_describe(value)} is not one of {', '.join(choices)}")
            return default
        return value

    def moment(self, path: str, value, *, required: bool) -> dt.datetime | None:
        """A date (midnight UTC) or an ISO 8601 date-time with a UTC offset."""
        if value is None:
            if required:
                self.add(path, "is required")
            return None
        if not isinstance(value, str):
            self.add(path, f"{_describe(value)} is not a date")
            return None
        try:
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                return dt.datetime.combine(dt.date.fromisoformat(value), dt.time(), tzinfo=dt.UTC)
            moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace(" ", "T", 1))
        except ValueError:
            self.add(path, f'"{value}" is not a date')
            return None
        if moment.tzinfo is None:
            self.add(path, f'"{value}" has no UTC offset; write e.g. {value}Z or {value}+01:00')
            return None
        return moment


def parse_definition(data) -> ChallengeDefinition:
    """Check parsed YAML against the bundle schema; BundleError listing every problem with its key path."""
    check = _Checker()
    top = check.mapping("", data, TOP_KEYS)
    if top is None:
        raise BundleError([f"{DEFINITION}: the file must be a mapping with version, challenge and phases"])
    if "version" in top and top["version"] != SCHEMA_VERSION:
        check.add("version", f"{_describe(top['version'])} is not a supported version; write {SCHEMA_VERSION}")
    raw = check.mapping("challenge", top.get("challenge", {}), CHALLENGE_KEYS) or {}
    definition = ChallengeDefinition(
        slug=check.text("challenge.slug", raw.get("slug"), required=True, slug=True, limit=100),
        title=check.text("challenge.title", raw.get("title"), required=True, limit=200),
        overview=check.text("challenge.overview", raw.get("overview")),
        rules=check.text("challenge.rules", raw.get("rules")),
        data=check.text("challenge.data", raw.get("data")),
        terms=check.text("challenge.terms", raw.get("terms")),
        registration=check.choice(
            "challenge.registration", raw.get("registration"), Challenge.Registration.values, "open"
        ),
        max_team_size=check.integer("challenge.max_team_size", raw.get("max_team_size"), None, minimum=1),
        contact=check.text("challenge.contact", raw.get("contact"), limit=254),
        published=check.boolean("challenge.published", raw.get("published"), False),
    )
    if definition.contact and "@" not in definition.contact:
        check.add("challenge.contact", f'"{definition.contact}" is not an e-mail address')
    for key in ("allowed_domains", "organizers"):
        values = raw.get(key) or []
        if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
            check.add(f"challenge.{key}", f"{_describe(values)} is not a list of names")
            values = []
        setattr(definition, key, [v.strip().lower().lstrip("@") if key == "allowed_domains" else v for v in values])
    if definition.registration == Challenge.Registration.DOMAINS and not definition.allowed_domains:
        check.add("challenge.allowed_domains", "registration is domains, so name at least one e-mail domain")

    phases = top.get("phases", [])
    if not isinstance(phases, list) or not phases:
        check.add("phases", f"{_describe(phases)} is not a non-empty list of phases")
        phases = []
    for i, item in enumerate(phases):
        phase = _parse_phase(check, f"phases[{i}]", item)
        if phase is not None:
            definition.phases.append(phase)
    _check_order(check, definition.phases)
    if check.problems:
        raise BundleError(check.problems)
    return definition


def _parse_phase(check: _Checker, path: str, item) -> PhaseDefinition | None:
    raw = check.mapping(path, item, PHASE_KEYS)
    if raw is None:
        return None
    task = check.text(f"{path}.task", raw.get("task"), required=True)
    if task and task not in scoring.TASKS:
        check.add(f"{path}.task", f'"{task}" is not a task; valid tasks: {", ".join(scoring.TASKS)}')
    phase = PhaseDefinition(
        slug=check.text(f"{path}.slug", raw.get("slug"), required=True, slug=True, limit=100),
        title=check.text(f"{path}.title", raw.get("title"), required=True, limit=200),
        task=task,
        starts_at=check.moment(f"{path}.starts_at", raw.get("starts_at"), required="starts_at" in raw),
        ends_at=check.moment(f"{path}.ends_at", raw.get("ends_at"), required=False),
        daily_limit=check.integer(f"{path}.daily_limit", raw.get("daily_limit"), 5, minimum=1),
        total_limit=check.integer(f"{path}.total_limit", raw.get("total_limit"), 100, minimum=1),
        concurrent_limit=check.integer(f"{path}.concurrent_limit", raw.get("concurrent_limit"), None, minimum=1),
        board=check.choice(f"{path}.board", raw.get("board"), Phase.BoardMode.values, Phase.BoardMode.BEST),
        public_board=check.choice(
            f"{path}.public_board", raw.get("public_board"), Phase.PublicBoard.values, Phase.PublicBoard.LIVE
        ),
        truth=check.text(f"{path}.truth", raw.get("truth")),
    )
    final = raw.get("final_selection")
    if final is not None:
        final = check.mapping(f"{path}.final_selection", final, {"allowed": "required", "count": ""})
        if final is not None:
            phase.final_selection_allowed = check.boolean(
                f"{path}.final_selection.allowed", final.get("allowed"), False
            )
            phase.final_selection_count = check.integer(
                f"{path}.final_selection.count", final.get("count"), 2, minimum=1
            )
    threshold = raw.get("ladder_threshold")
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or threshold < 0:
            check.add(f"{path}.ladder_threshold", f"{_describe(threshold)} is not a number >= 0")
        else:
            phase.ladder_threshold = float(threshold)
    if raw.get("split") is not None:
        try:
            phase.split = scoring.SplitSpec.from_dict(raw["split"]).to_dict()
        except scoring.ScoringError as error:
            check.add(f"{path}.split", str(error))
    if phase.starts_at and phase.ends_at and phase.ends_at <= phase.starts_at:
        check.add(
            f"{path}.ends_at", f"{phase.ends_at.isoformat()} is not after starts_at ({phase.starts_at.isoformat()})"
        )
    return phase


def _check_order(check: _Checker, phases: list[PhaseDefinition]) -> None:
    """Phases run in the listed order: slugs unique, each one starting when (or after) the previous ends."""
    seen: dict[str, int] = {}
    for i, phase in enumerate(phases):
        if phase.slug in seen:
            check.add(f"phases[{i}].slug", f'"{phase.slug}" is already the slug of phases[{seen[phase.slug]}]')
        seen.setdefault(phase.slug, i)
    for i in range(1, len(phases)):
        before, after = phases[i - 1], phases[i]
        if before.starts_at is None or after.starts_at is None:
            continue
        if before.ends_at is None:
            check.add(f"phases[{i - 1}].ends_at", "is required: only the last phase may be open-ended")
        elif after.starts_at < before.ends_at:
            check.add(
                f"phases[{i}].starts_at",
                f"{after.starts_at.isoformat()} overlaps phases[{i - 1}], which ends at {before.ends_at.isoformat()}; "
                "phases run in order",
            )


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


def read_bundle(source, *, max_bytes: int | None = None) -> Bundle:
    """Open and check a bundle (path or binary file): zip entries, schema, truth files. Creates nothing.

    ``max_bytes`` caps the total uncompressed size (default MAX_BUNDLE_BYTES).
    """
    max_bytes = MAX_BUNDLE_BYTES if max_bytes is None else max_bytes
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
        truths: dict[str, tuple[str, bytes]] = {}
        problems = []
        for i, phase in enumerate(definition.phases):
            if not phase.truth:
                continue
            name = str(PurePosixPath(phase.truth.replace("\\", "/")))
            if name not in entries:
                problems.append(f'phases[{i}].truth: "{phase.truth}" is not in the bundle')
                continue
            truths[phase.slug] = (name, _read_entry(archive, entries[name], budget))
    for i, phase in enumerate(definition.phases):
        if phase.slug in truths:
            problems += _truth_problems(f"phases[{i}].truth", phase, *truths[phase.slug])
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


def import_bundle(source, *, slug: str | None = None, imported_by=None, max_bytes: int | None = None) -> Challenge:
    """Create an organized challenge from a bundle, all or nothing. ``slug`` overrides the bundle's.

    The importing user (if any) becomes an organizer, besides the usernames the
    bundle lists. Raises BundleError; nothing is created on any error.
    """
    bundle = read_bundle(source, max_bytes=max_bytes)
    definition = bundle.definition
    if slug is not None:
        definition.slug = slug
    problems = []
    if Challenge.objects.filter(slug=definition.slug).exists():
        problems.append(f'challenge.slug: "{definition.slug}" already exists on this site; choose another slug')
    users = {u.username: u for u in get_user_model().objects.filter(username__in=definition.organizers)}
    for i, name in enumerate(definition.organizers):
        if name not in users:
            problems.append(f'challenge.organizers[{i}]: "{name}" is not a user of this site')
    if problems:
        raise BundleError(problems)
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
    name = phase.truth_file.name
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
                with tempfile.TemporaryDirectory() as tmp:
                    archive.write(copy_to_temp(phase.truth_file, Path(tmp)), _truth_entry(phase))
    return buffer.getvalue()
