"""What a benchmark is: plain frozen dataclasses for families, declarations and tasks.

The data (every hosted family and task) is in ``scoring.registry``; a task's
``kind`` names its entry in ``scoring.kinds``, which says how it is read, scored
and shown. This module sits below both so that the readers, the metrics and the
kinds can name ``Task`` without importing the registry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring import keys
from scoring.keys import MetricDef
from scoring.kinds.base import KINDS, Kind, kind_of

SPREADS = (*keys.SPREADS, None)


@dataclass(frozen=True)
class Family:
    """A benchmark family: one paper, one data source, several tasks."""

    slug: str
    name: str
    description: str
    citation: str
    paper_url: str
    caveats: tuple[str, ...] = ()


@dataclass(frozen=True)
class Declaration:
    """A statement a submitter makes about their method.

    ``choices`` None means a yes/no question; a tuple means "pick any subset of
    these" (a multi-choice question).
    """

    key: str
    label: str
    help: str
    choices: tuple[str, ...] | None = None
    # Every declaration so far must be answered: an unanswered one would read as "no" on the board.
    required: bool = True

    def problems(self, values: list[str] | None) -> list[str]:
        """What is wrong with the answer ``values`` (empty or None: not answered), as sentences."""
        values = [v.strip() for v in values or [] if v.strip()]
        if not values:
            if not self.required:
                return []
            wanted = ", ".join(self.choices) if self.choices else "yes or no"
            return [f"'{self.key}' is required ({self.label}): declare it, e.g. {self.key}=<{wanted}>."]
        allowed = self.choices or ("yes", "no", "true", "false", "1", "0")
        wrong = [v for v in values if (v if self.choices else v.lower()) not in allowed]
        if wrong:
            return [f"'{self.key}': {', '.join(map(repr, wrong))} is not one of {', '.join(allowed)}."]
        if not self.choices and len(values) > 1:
            return [f"'{self.key}' takes one answer, yes or no."]
        return []


def declaration_problems(declarations: tuple[Declaration, ...], given: dict[str, list[str]]) -> list[str]:
    """Unknown keys and missing or invalid answers of a submission's declarations, in the task's order."""
    known = {d.key for d in declarations}
    problems = [
        f"'{key}' is not a declaration of this task; its declarations: {', '.join(sorted(known)) or 'none'}."
        for key in given
        if key not in known
    ]
    for declaration in declarations:
        problems += declaration.problems(given.get(declaration.key))
    return problems


@dataclass(frozen=True)
class Task:
    """One leaderboard: a dataset, a split and how submissions are scored.

    ``family`` is the family slug (a key of ``FAMILIES``). ``classes`` are the
    scored class names; a label in a file is either the exact class name
    (case-insensitive) or its 0-based integer index in ``classes``.
    ``secondary`` lists the tie-break metric keys, in order.
    """

    slug: str
    family: str
    dataset: str
    dataset_name: str
    split: str
    kind: str
    classes: tuple[str, ...]
    truth_columns: tuple[str, ...]
    prediction_columns: tuple[str, ...]
    optional_prediction_columns: tuple[str, ...]
    metrics: tuple[MetricDef, ...]
    primary: str
    secondary: tuple[str, ...]
    seeds: tuple[int, ...]
    spread: str | None
    citation: str
    paper_url: str
    caveats: tuple[str, ...] = ()
    declarations: tuple[Declaration, ...] = ()
    description: str = ""
    # Where the test labels are published ("" when they are hidden). A standing board of a task with
    # public labels says its entries are self-reported and on the honour system.
    public_labels: str = ""
    # Lookup table built from ``metrics``; not part of equality or repr.
    _by_key: dict[str, MetricDef] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"task {self.slug}: unknown kind {self.kind!r}")
        if self.spread not in SPREADS:
            raise ValueError(f"task {self.slug}: unknown spread {self.spread!r}")
        self._by_key.update({m.key: m for m in self.metrics})
        for key in (self.primary, *self.secondary):
            if key not in self._by_key:
                raise ValueError(f"task {self.slug}: ranking metric {key!r} is not in metrics")

    def metric(self, key: str) -> MetricDef:
        """Describe any result key of this task.

        Besides the headline metrics listed in ``metrics`` this resolves the
        derived keys the scorer emits: ``{m}/std``, ``{m}/stderr``,
        ``seed/{k}/{m}``, ``class/{name}/recall|f1`` and MUDI's per-class and
        count keys. Raises ``KeyError`` for anything else.
        """
        if key in self._by_key:
            return self._by_key[key]
        derived = _derived_metric(self, key)
        if derived is None:
            raise KeyError(f"task {self.slug!r} has no metric {key!r}")
        return derived

    def higher_is_better(self, key: str) -> bool:
        """Whether a larger value of ``key`` is better (``KeyError`` if unknown)."""
        return self.metric(key).higher_is_better

    @property
    def kind_def(self) -> Kind:
        """The definition of this task's kind: how it is read, scored and shown."""
        return kind_of(self)


def _derived_metric(task: Task, key: str) -> MetricDef | None:
    """Resolve a derived result key, or None when it is not one of ours."""
    spread = keys.parse_spread(key)
    if spread and spread[0] in task._by_key:
        base = task._by_key[spread[0]]
        what = "population standard deviation" if spread[1] == "std" else "standard error"
        return MetricDef(key, f"{base.name} ({spread[1]})", False, f"{what} of {base.name} over seeds")
    metric, seed = keys.split_seed(key)
    if seed is not None and seed in task.seeds:
        inner = task.metric(metric)
        return MetricDef(key, f"{inner.name}, seed {seed}", inner.higher_is_better, inner.description)
    return kind_of(task).derived_metric(task, key)
