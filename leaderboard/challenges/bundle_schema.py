"""The bundle definition (``challenge.yaml``): safe YAML loading and the documented schema.

Plain data in, plain dataclasses out; every problem is collected with its key
path (``phases[1].ends_at: "2027-02-30" is not a date``) so an organizer fixes
a bundle in one round trip. The schema is written up in docs/challenges.md.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

import yaml

import scoring
from leaderboard.challenges.models import Challenge, Phase

DEFINITION = "challenge.yaml"
SCHEMA_VERSION = 1
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


# Bounds on challenge.yaml, so that a small file cannot cost the site a large one: its size, how
# deep it nests (PyYAML's composer recurses once per level), and its size once every alias is
# expanded (an "alias bomb" of ten aliases of ten aliases ... is a few hundred bytes).
MAX_DEFINITION_BYTES = 1_000_000
MAX_DEPTH = 32
# Nodes plus scalar characters, with every alias counted as a full copy of what it names.
MAX_EXPANDED = 2_000_000
# How much of a value an error message quotes.
MAX_QUOTED = 60


class _Refused(Exception):
    """challenge.yaml passes a bound: the message names the line and column where it did."""


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader without implicit timestamps (dates stay text, so a bad one can be named),
    and with nesting and alias expansion bounded while the document is composed, before anything is built."""

    def __init__(self, stream) -> None:
        super().__init__(stream)
        self._depth = 0
        self._expanded = 0
        self._open_anchors: set[str] = set()
        self._weights: dict[int, int] = {}

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            if event.anchor in self._open_anchors:
                raise _Refused(
                    f"{_at(event.start_mark)}: the alias *{_shown(event.anchor)} refers to a value that contains it"
                )
            node = self.anchors.get(event.anchor)
            if node is not None:
                self._grow(_weight(node, self._weights), event.start_mark)
            return super().compose_node(parent, index)
        if self._depth >= MAX_DEPTH:
            raise _Refused(f"{_at(event.start_mark)}: nested more than {MAX_DEPTH} levels deep")
        anchor = getattr(event, "anchor", None)
        self._depth += 1
        if anchor:
            self._open_anchors.add(anchor)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
            self._open_anchors.discard(anchor or "")
        self._grow(1 + len(node.value) if isinstance(node, yaml.ScalarNode) else 1, event.start_mark)
        return node

    def _grow(self, amount: int, mark) -> None:
        self._expanded += amount
        if self._expanded > MAX_EXPANDED:
            raise _Refused(
                f"{_at(mark)}: the document expands past {MAX_EXPANDED:,} values and characters "
                "(count every alias as a copy of what it names); write the values out instead"
            )


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _at(mark) -> str:
    return f"{DEFINITION}, line {mark.line + 1}, column {mark.column + 1}"


def _weight(node, weights: dict[int, int]) -> int:
    """A composed node's size with its aliases expanded (memoised: shared nodes are counted once each time
    they are referred to, in time linear in the document). Nesting is already bounded by MAX_DEPTH."""
    known = weights.get(id(node))
    if known is not None:
        return known
    if isinstance(node, yaml.ScalarNode):
        weight = 1 + len(node.value)
    elif isinstance(node, yaml.SequenceNode):
        weight = 1 + sum(_weight(child, weights) for child in node.value)
    else:
        weight = 1 + sum(_weight(key, weights) + _weight(value, weights) for key, value in node.value)
    weights[id(node)] = weight
    return weight


def load_yaml(text: str):
    """Parse bundle YAML safely: no object construction, and BundleError naming the line and column when the
    text is not YAML, is over MAX_DEFINITION_BYTES, nests deeper than MAX_DEPTH or expands past MAX_EXPANDED."""
    size = len(text.encode("utf-8"))
    if size > MAX_DEFINITION_BYTES:
        raise BundleError([f"{DEFINITION}: {size:,} bytes; the limit is {MAX_DEFINITION_BYTES:,}"])
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 (a SafeLoader subclass)
    except _Refused as error:
        raise BundleError([str(error)]) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise BundleError([f"{DEFINITION}: not valid YAML{where}: {_shown(problem)}"]) from None


def _shown(text: str) -> str:
    """At most MAX_QUOTED characters of ``text``: messages never echo a large value."""
    text = str(text)
    if len(text) <= MAX_QUOTED:
        return text
    return f"{text[:MAX_QUOTED]}... ({len(text):,} characters)"


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


def describe_value(value) -> str:
    """A value as an error message quotes it: short text in full, anything large by its kind and size."""
    if isinstance(value, str):
        return f'"{_shown(value)}"'
    if value is None:
        return "empty"
    if isinstance(value, dict):
        return f"a mapping of {len(value)} key{'s' if len(value) != 1 else ''}"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    return _shown(repr(value))


class _Checker:
    """Collects every schema problem with its key path instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}")

    def mapping(self, path: str, value, keys: dict[str, str]) -> dict | None:
        if not isinstance(value, dict):
            self.add(path, f"{describe_value(value)} is not a mapping of keys to values")
            return None
        for key in value:
            if key not in keys:
                self.add(
                    f"{path}.{_shown(key)}" if path else _shown(key), f"unknown key; expected one of {', '.join(keys)}"
                )
        for key, need in keys.items():
            if need == "required" and key not in value:
                self.add(f"{path}.{key}" if path else key, "is required")
        return value

    def text(self, path: str, value, *, required: bool = False, slug: bool = False, limit: int = 0) -> str:
        if value is None and not required:
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            self.add(path, f"{describe_value(value)} is not {'a slug' if slug else 'text'}")
            return ""
        if slug and not SLUG.match(value):
            self.add(path, f"{describe_value(value)} is not a slug (lower-case letters, digits and single hyphens)")
        if limit and len(value) > limit:
            self.add(path, f"is longer than {limit} characters")
        return value

    def integer(self, path: str, value, default, *, minimum: int = 0):
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.add(path, f"{describe_value(value)} is not a whole number >= {minimum}")
            return default
        return value

    def boolean(self, path: str, value, default: bool) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(path, f"{describe_value(value)} is not true or false")
            return default
        return value

    def choice(self, path: str, value, choices, default: str) -> str:
        if value is None:
            return default
        if value not in choices:
            self.add(path, f"{describe_value(value)} is not one of {', '.join(choices)}")
            return default
        return value

    def moment(self, path: str, value, *, required: bool) -> dt.datetime | None:
        """A date (midnight UTC) or an ISO 8601 date-time with a UTC offset."""
        if value is None:
            if required:
                self.add(path, "is required")
            return None
        if not isinstance(value, str):
            self.add(path, f"{describe_value(value)} is not a date")
            return None
        try:
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                return dt.datetime.combine(dt.date.fromisoformat(value), dt.time(), tzinfo=dt.UTC)
            moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace(" ", "T", 1))
        except ValueError:
            self.add(path, f"{describe_value(value)} is not a date")
            return None
        if moment.tzinfo is None:
            self.add(
                path, f"{describe_value(value)} has no UTC offset; write e.g. {_shown(value)}Z or {_shown(value)}+01:00"
            )
            return None
        return moment


def parse_definition(data) -> ChallengeDefinition:
    """Check parsed YAML against the bundle schema; BundleError listing every problem with its key path."""
    check = _Checker()
    top = check.mapping("", data, TOP_KEYS)
    if top is None:
        raise BundleError([f"{DEFINITION}: the file must be a mapping with version, challenge and phases"])
    if "version" in top and top["version"] != SCHEMA_VERSION:
        check.add("version", f"{describe_value(top['version'])} is not a supported version; write {SCHEMA_VERSION}")
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
        check.add("challenge.contact", f"{describe_value(definition.contact)} is not an e-mail address")
    for key in ("allowed_domains", "organizers"):
        values = raw.get(key) or []
        if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
            check.add(f"challenge.{key}", f"{describe_value(values)} is not a list of names")
            values = []
        setattr(definition, key, [v.strip().lower().lstrip("@") if key == "allowed_domains" else v for v in values])
    if definition.registration == Challenge.Registration.DOMAINS and not definition.allowed_domains:
        check.add("challenge.allowed_domains", "registration is domains, so name at least one e-mail domain")

    phases = top.get("phases", [])
    if not isinstance(phases, list) or not phases:
        check.add("phases", f"{describe_value(phases)} is not a non-empty list of phases")
        phases = []
    for i, item in enumerate(phases):
        phase = _parse_phase(check, f"phases[{i}]", item)
        if phase is not None:
            definition.phases.append(phase)
    if len(definition.phases) == len(phases):
        # The order is checked once every phase parsed: with one left out, its neighbours would be misnamed.
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
        check.add(f"{path}.task", f"{describe_value(task)} is not a task; valid tasks: {', '.join(scoring.TASKS)}")
    slug = check.text(f"{path}.slug", raw.get("slug"), required=True, slug=True, limit=100)
    title = check.text(f"{path}.title", raw.get("title"), required=True, limit=200)
    starts_at = check.moment(f"{path}.starts_at", raw.get("starts_at"), required="starts_at" in raw)
    ends_at = check.moment(f"{path}.ends_at", raw.get("ends_at"), required=False)
    daily_limit = check.integer(f"{path}.daily_limit", raw.get("daily_limit"), 5, minimum=1)
    total_limit = check.integer(f"{path}.total_limit", raw.get("total_limit"), 100, minimum=1)
    concurrent_limit = check.integer(f"{path}.concurrent_limit", raw.get("concurrent_limit"), None, minimum=1)
    board = check.choice(f"{path}.board", raw.get("board"), Phase.BoardMode.values, Phase.BoardMode.BEST)
    public_board = check.choice(
        f"{path}.public_board", raw.get("public_board"), Phase.PublicBoard.values, Phase.PublicBoard.LIVE
    )
    truth = check.text(f"{path}.truth", raw.get("truth"))
    final_selection_allowed, final_selection_count = False, 2
    final = raw.get("final_selection")
    if final is not None:
        final = check.mapping(f"{path}.final_selection", final, {"allowed": "required", "count": ""})
        if final is not None:
            final_selection_allowed = check.boolean(f"{path}.final_selection.allowed", final.get("allowed"), False)
            final_selection_count = check.integer(f"{path}.final_selection.count", final.get("count"), 2, minimum=1)
    ladder_threshold: float | None = None
    threshold = raw.get("ladder_threshold")
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or threshold < 0:
            check.add(f"{path}.ladder_threshold", f"{describe_value(threshold)} is not a number >= 0")
        else:
            ladder_threshold = float(threshold)
    split: dict | None = None
    if raw.get("split") is not None:
        try:
            split = scoring.SplitSpec.from_dict(raw["split"]).to_dict()
        except scoring.ScoringError as error:
            check.add(f"{path}.split", str(error))
    if starts_at and ends_at and ends_at <= starts_at:
        check.add(f"{path}.ends_at", f"{ends_at.isoformat()} is not after starts_at ({starts_at.isoformat()})")
    if starts_at is None:  # its problem is recorded; the definition will be refused
        return None
    return PhaseDefinition(
        slug=slug,
        title=title,
        task=task,
        starts_at=starts_at,
        ends_at=ends_at,
        daily_limit=daily_limit,
        total_limit=total_limit,
        concurrent_limit=concurrent_limit,
        board=board,
        final_selection_allowed=final_selection_allowed,
        final_selection_count=final_selection_count,
        public_board=public_board,
        ladder_threshold=ladder_threshold,
        split=split,
        truth=truth,
    )


def _check_order(check: _Checker, phases: list[PhaseDefinition]) -> None:
    """Phases run in the listed order: slugs unique, each one starting when (or after) the previous ends."""
    seen: dict[str, int] = {}
    for i, phase in enumerate(phases):
        if phase.slug in seen:
            check.add(
                f"phases[{i}].slug", f"{describe_value(phase.slug)} is already the slug of phases[{seen[phase.slug]}]"
            )
        seen.setdefault(phase.slug, i)
    # Phases of one task run in the listed order; phases of different tasks may overlap (tracks).
    previous: dict[str, int] = {}
    for i, after in enumerate(phases):
        j = previous.get(after.task)
        previous[after.task] = i
        if j is None:
            continue
        before = phases[j]
        if before.starts_at is None or after.starts_at is None:
            continue
        if before.ends_at is None:
            check.add(f"phases[{j}].ends_at", "is required: only the last phase of a task may be open-ended")
        elif after.starts_at < before.ends_at:
            check.add(
                f"phases[{i}].starts_at",
                f"{after.starts_at.isoformat()} overlaps phases[{j}], which ends at {before.ends_at.isoformat()} "
                f"and scores the same task ({describe_value(after.task)}); phases of one task run in order",
            )
