"""The benchmark registry: every family and task the leaderboard hosts.

Plain frozen dataclasses, no I/O. The readers use a task's columns, classes and
seeds to parse files; the metrics dispatch on ``Task.kind``; the site shows the
names, citations, caveats and declarations. The scoring rules themselves are in
``scoring.metrics`` and are written up in docs/metrics.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring import keys

KINDS = ("mudi", "classification", "regression", "pair")
SPREADS = ("std", "stderr", None)


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
class MetricDef:
    """How one metric key is named and which direction is better."""

    key: str
    name: str
    higher_is_better: bool
    description: str


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


_MUDI_SETTINGS = {"aware": "direction-aware", "agnostic": "direction-agnostic"}
_MUDI_SCOPES = {
    "synergism": "Synergism",
    "antagonism": "Antagonism",
    "new_effect": "New Effect",
    "micro": "micro",
    "macro": "macro",
}
_MUDI_STATS = {"precision": "precision", "recall": "recall", "f1": "F1", "f1_mean": "mean of class F1s"}
# Counts: more true positives is better, more errors is worse; support is a
# property of the truth, reported as "higher" only so the API stays boolean.
_MUDI_COUNTS = {"tp": True, "fp": False, "fn": False, "support": True}


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
    per_class = keys.parse_class(key)
    if per_class and task.kind == "classification" and per_class[0] in task.classes:
        stat = "recall" if per_class[1] == "recall" else "F1 (scikit-learn)"
        return MetricDef(key, f"{per_class[0]} {stat}", True, f"per-class {stat}, mean over seeds")
    if task.kind == "mudi":
        parts = key.split("/")
        if len(parts) == 3 and parts[0] in _MUDI_SETTINGS and parts[1] in _MUDI_SCOPES:
            setting, scope, stat = parts
            label = f"{_MUDI_SCOPES[scope]} {{}} ({_MUDI_SETTINGS[setting]})"
            is_class = scope not in ("micro", "macro")
            if stat in ("precision", "recall", "f1") or (stat == "f1_mean" and scope == "macro"):
                return MetricDef(key, label.format(_MUDI_STATS[stat]), True, f"{scope} {stat}, {setting}")
            if is_class and stat in _MUDI_COUNTS:
                return MetricDef(key, label.format(stat.upper()), _MUDI_COUNTS[stat], f"{stat} count")
    return None


# ---------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------

_MUDI_CITATION = (
    "Ngo, T.-L., Tran, B.-H., Can, D.-C., Do, T.-H., Chén, O. Y., Le, H.-Q. (2025). MUDI: A Multimodal "
    "Biomedical Dataset for Understanding Pharmacodynamic Drug-Drug Interactions. arXiv:2506.01478."
)
_IMDRUG_CITATION = (
    "Li, L. et al. (2022). ImDrug: A Benchmark for Deep Imbalanced Learning in AI-aided Drug Discovery. "
    "arXiv:2209.07921."
)
_CHEMICALX_CITATION = (
    "Rozemberczki, B. et al. (2022). ChemicalX: A Deep Learning Library for Drug Pair Scoring. arXiv:2202.05240."
)

FAMILIES: dict[str, Family] = {
    "mudi": Family(
        slug="mudi",
        name="MUDI",
        description=(
            "Pharmacodynamic drug-drug interactions: predict whether a drug pair is synergistic, "
            "antagonistic or causes a new effect. Test pairs are unseen in training."
        ),
        citation=_MUDI_CITATION,
        paper_url="https://arxiv.org/abs/2506.01478",
        caveats=("Data licence CC BY-NC 4.0.",),
    ),
    "imdrug": Family(
        slug="imdrug",
        name="ImDrug",
        description=(
            "Imbalanced and long-tailed drug discovery: molecular property, binding affinity, "
            "reaction type and drug-drug interaction type prediction, scored with class-balanced metrics."
        ),
        citation=_IMDRUG_CITATION,
        paper_url="https://arxiv.org/abs/2209.07921",
        caveats=("Each seed has its own split, so each seed has its own test rows.",),
    ),
    "chemicalx": Family(
        slug="chemicalx",
        name="ChemicalX",
        description=(
            "Drug pair scoring: predict the propensity that a (drug, drug, context) triple is positive, "
            "over 10 random 80/20 splits."
        ),
        citation=_CHEMICALX_CITATION,
        paper_url="https://arxiv.org/abs/2202.05240",
        caveats=("Splits are random and not stratified; duplicate triples are all scored.",),
    ),
}


# ---------------------------------------------------------------------------
# Metric definitions, shared between tasks of the same kind
# ---------------------------------------------------------------------------


def _mudi_metrics() -> tuple[MetricDef, ...]:
    defs = []
    for setting, setting_name in _MUDI_SETTINGS.items():
        for scope in ("macro", "micro"):
            for stat in ("f1", "precision", "recall"):
                defs.append(
                    MetricDef(
                        keys.mudi_key(setting, scope, stat),
                        f"{scope.capitalize()} {_MUDI_STATS[stat]} ({setting_name})",
                        True,
                        f"{scope} {stat} over Synergism, Antagonism and New Effect, pairs {setting_name}",
                    )
                )
        defs.append(
            MetricDef(
                keys.mudi_key(setting, "macro", "f1_mean"),
                f"Mean of class F1s ({setting_name})",
                True,
                "arithmetic mean of the three per-class F1 scores (not the paper's macro F1)",
            )
        )
    return tuple(defs)


_CLASSIFICATION_METRICS = (
    MetricDef(
        "balanced_accuracy", "Balanced accuracy", True, "mean over gold classes of per-class recall, mean over seeds"
    ),
    MetricDef(
        "balanced_f1",
        "Balanced F1",
        True,
        "ImDrug's F1 on the row-normalised confusion matrix, mean over gold-or-predicted classes",
    ),
    MetricDef("auroc", "AUROC", True, "one-vs-rest AUROC, unweighted mean over classes; needs probabilities"),
    MetricDef("macro_f1", "Macro F1 (scikit-learn)", True, "scikit-learn macro F1 over gold-or-predicted labels"),
)

_REGRESSION_METRICS = (
    MetricDef("mse", "MSE", False, "mean squared error, mean over seeds"),
    MetricDef("mae", "MAE", False, "mean absolute error, mean over seeds"),
)

_PAIR_METRICS = (
    MetricDef("auroc", "AUROC", True, "area under the ROC curve, mean over the 10 splits"),
    MetricDef(
        "aupr",
        "AUPR",
        True,
        "trapezoidal area under the precision-recall curve (not average precision), mean over splits",
    ),
    MetricDef("f1", "F1", True, "F1 of the positive class, positive iff propensity > 0.5, mean over splits"),
)


# ---------------------------------------------------------------------------
# Tasks
# ---------------------------------------------------------------------------

LABEL_RULE = (
    "A label in a file is either the exact class name (case-insensitive) or the 0-based integer "
    "index of the class in the task's class list."
)

USPTO_CLASSES = (
    "heteroatom alkylation and arylation",
    "acylation and related processes",
    "C-C bond formation",
    "heterocycle formation",
    "protections",
    "deprotections",
    "reductions",
    "oxidations",
    "functional group interconversion",
    "functional group addition",
)
DRUGBANK_CLASSES = tuple(f"type {i}" for i in range(1, 87))
OPENLT_CLASSES = tuple(f"class {i}" for i in range(1, 69)) + ("open",)
BINARY_ACTIVITY = ("inactive", "active")

_IMDRUG_DATASETS = {
    "hiv": ("HIV", BINARY_ACTIVITY, "Molecular property prediction: does a molecule inhibit HIV replication."),
    "sbap": ("SBAP", BINARY_ACTIVITY, "Structure-based affinity prediction: is a ligand-protein pair a binder."),
    "uspto50k": (
        "USPTO-50K",
        USPTO_CLASSES,
        "Reaction type prediction over the 10 reaction classes of Schneider et al. (2016). Integer labels are "
        "0-based: Schneider's class 1 (heteroatom alkylation and arylation) is label 0, class 10 is label 9.",
    ),
    "drugbank": ("DrugBank DDI", DRUGBANK_CLASSES, "Drug-drug interaction type prediction over 86 types."),
}

_SPLITS = {
    "random": "Random split: each class is sampled separately, so the test set keeps the class imbalance.",
    "standard": (
        "Standard split: test and validation sets are balanced by under-sampling every class to the "
        "smallest class's count; training stays imbalanced."
    ),
}

# Column names follow the readers in scoring/validation/ (which also accept a
# few aliases, e.g. "label" for "prediction" and prob_<class name>).
_IMDRUG_CLASSIFICATION_COLUMNS = {
    "truth_columns": ("seed", "id", "label"),
    "prediction_columns": ("seed", "id", "prediction"),
}


def _prob_columns(classes: tuple[str, ...]) -> tuple[str, ...]:
    """Probability columns, one per class, named by 0-based class index.

    Binary tasks may instead give a single ``score`` column (probability of
    class 1).
    """
    columns = tuple(f"prob_{i}" for i in range(len(classes)))
    return columns + ("score",) if len(classes) == 2 else columns


def _imdrug_classification(dataset: str, split: str) -> Task:
    name, classes, about = _IMDRUG_DATASETS[dataset]
    return Task(
        slug=f"imdrug-{dataset}-{split}",
        family="imdrug",
        dataset=dataset,
        dataset_name=name,
        split=split,
        kind="classification",
        classes=classes,
        optional_prediction_columns=_prob_columns(classes),
        metrics=_CLASSIFICATION_METRICS,
        primary="balanced_accuracy",
        secondary=("balanced_f1", "auroc"),
        seeds=(0, 1, 2),
        spread="std",
        citation=_IMDRUG_CITATION,
        paper_url="https://arxiv.org/abs/2209.07921",
        caveats=(_SPLITS[split], "Mean and population standard deviation over seeds 0, 1 and 2."),
        description=(
            f"{about} {_SPLITS[split]} {LABEL_RULE} Optional columns prob_0..prob_{len(classes) - 1} give a "
            "probability per class (by index)"
            + (", or a single score column giving the probability of class 1" if len(classes) == 2 else "")
            + "; without them AUROC is not computed."
        ),
        **_IMDRUG_CLASSIFICATION_COLUMNS,
    )


_IMDRUG_OPENLT = Task(
    slug="imdrug-drugbank-openlt",
    family="imdrug",
    dataset="drugbank",
    dataset_name="DrugBank DDI (open long-tailed)",
    split="openlt",
    kind="classification",
    classes=OPENLT_CLASSES,
    optional_prediction_columns=_prob_columns(OPENLT_CLASSES),
    metrics=_CLASSIFICATION_METRICS,
    primary="balanced_accuracy",
    secondary=("balanced_f1", "auroc"),
    seeds=(0, 1, 2),
    spread="std",
    citation=_IMDRUG_CITATION,
    paper_url="https://arxiv.org/abs/2209.07921",
    caveats=(
        "Open long-tailed setting: the 68 most frequent DDI types are known classes; every other type is the "
        "single class 'open'.",
        "Class names 'class 1'..'class 68' are positional: integer label i (0..67) is 'class i+1', 68 is 'open'.",
        "Mean and population standard deviation over seeds 0, 1 and 2.",
    ),
    description=(
        "Drug-drug interaction type prediction with 68 known classes plus one open class. "
        f"{LABEL_RULE} Optional columns prob_0..prob_68 give a score per class (by index)."
    ),
    **_IMDRUG_CLASSIFICATION_COLUMNS,
)

_IMDRUG_SBAP_REGRESSION = Task(
    slug="imdrug-sbap-regression",
    family="imdrug",
    dataset="sbap",
    dataset_name="SBAP (affinity regression)",
    split="random",
    kind="regression",
    classes=(),
    truth_columns=("seed", "id", "label"),
    prediction_columns=("seed", "id", "prediction"),
    optional_prediction_columns=(),
    metrics=_REGRESSION_METRICS,
    primary="mse",
    secondary=("mae",),
    seeds=(0, 1, 2),
    spread="std",
    citation=_IMDRUG_CITATION,
    paper_url="https://arxiv.org/abs/2209.07921",
    caveats=("Lower is better for both MSE and MAE.", "Mean and population standard deviation over seeds 0, 1, 2."),
    description="Structure-based binding affinity regression. Scored by MSE (primary) and MAE.",
)

_MUDI = Task(
    slug="mudi",
    family="mudi",
    dataset="mudi",
    dataset_name="MUDI",
    split="test",
    kind="mudi",
    classes=("Synergism", "Antagonism", "New Effect"),
    truth_columns=("Drug1", "Interaction", "Drug2"),
    prediction_columns=("Drug1", "Interaction", "Drug2"),
    optional_prediction_columns=(),
    metrics=_mudi_metrics(),
    primary=keys.mudi_key("aware", "macro", "f1"),
    secondary=(keys.mudi_key("aware", "micro", "f1"), keys.mudi_key("agnostic", "macro", "f1")),
    seeds=(0,),
    spread=None,
    citation=_MUDI_CITATION,
    paper_url="https://arxiv.org/abs/2506.01478",
    caveats=(
        "'New Adverse' and 'New Effect (New Adverse)' are the same class as 'New Effect'.",
        "'No Interaction' is a legal prediction but never a true or false positive; a gold pair predicted "
        "'No Interaction' is a false negative of its gold class.",
        "Macro F1 is the harmonic mean of macro precision and macro recall, as in the paper; the mean of the "
        "class F1s is shown separately.",
        "Drug ids are compared after stripping a 'Compound::' prefix.",
        "Data licence CC BY-NC 4.0.",
    ),
    declarations=(
        Declaration(
            key="modalities",
            label="Modalities used",
            help="Which drug representations the model reads.",
            choices=("text", "formula", "graph", "image"),
        ),
    ),
    description=(
        "Classify drug pairs as Synergism, Antagonism or New Effect (or No Interaction). Scored over sets of "
        "(pair, class) in two settings: direction-aware (ordered pairs) and direction-agnostic (unordered). "
        "Class labels are matched by name, case-insensitive; 'New Adverse' means 'New Effect'."
    ),
)

_CHEMICALX_DATASETS = {
    "drugbankddi": ("DrugbankDDI", "383,616 triples, 86 interaction-type contexts."),
    "twosides": ("TWOSIDES", "499,582 triples, 10 side-effect contexts."),
    "drugcomb": ("DrugComb", "659,333 triples, 288 cell-line contexts."),
    "drugcombdb": ("DrugCombDB", "191,391 triples, 112 cell-line contexts."),
    "oncolypharm": ("OncolyPharm", "23,052 triples."),
}

_CHEMICALX_CAVEATS = {
    "drugbankddi": (
        "The context is the interaction type itself, so a model that uses context features sees the answer; "
        "submissions must declare whether they use context features.",
    ),
    "drugcombdb": ("Duplicate triples exist, some with conflicting labels; every row is scored.",),
    "oncolypharm": (
        "An early version of the dataset whose labels are continuous synergy scores, binarised by the "
        "organizer; not the labels of the published paper.",
    ),
}


def _chemicalx(dataset: str) -> Task:
    name, size = _CHEMICALX_DATASETS[dataset]
    declarations = ()
    if dataset == "drugbankddi":
        declarations = (
            Declaration(
                key="uses_context_features",
                label="Uses context features",
                help="Does the model read the context (interaction type) features? They encode the label.",
            ),
        )
    return Task(
        slug=f"chemicalx-{dataset}",
        family="chemicalx",
        dataset=dataset,
        dataset_name=name,
        split="random-80-20",
        kind="pair",
        classes=("negative", "positive"),
        truth_columns=("seed", "drug_1", "drug_2", "context", "label"),
        prediction_columns=("seed", "drug_1", "drug_2", "context", "prediction"),
        optional_prediction_columns=(),
        metrics=_PAIR_METRICS,
        primary="auroc",
        secondary=("aupr", "f1"),
        seeds=tuple(range(10)),
        spread="stderr",
        citation=_CHEMICALX_CITATION,
        paper_url="https://arxiv.org/abs/2202.05240",
        caveats=(
            *_CHEMICALX_CAVEATS.get(dataset, ()),
            "Mean and standard error (population std / sqrt(10)) over splits 0-9.",
        ),
        declarations=declarations,
        description=(
            f"{name}: {size} Predict a propensity in [0, 1] for every test triple of each of the 10 splits. "
            "Split k's test rows are the first n - floor(0.8 n) entries of numpy RandomState(k).permutation(n) "
            "over the rows of labeled_triples.csv in file order."
        ),
    )


def _build_tasks() -> dict[str, Task]:
    tasks = [_MUDI]
    for dataset in ("hiv", "sbap"):
        tasks += [_imdrug_classification(dataset, "random"), _imdrug_classification(dataset, "standard")]
        if dataset == "sbap":
            tasks.append(_IMDRUG_SBAP_REGRESSION)
    for dataset in ("uspto50k", "drugbank"):
        tasks += [_imdrug_classification(dataset, "random"), _imdrug_classification(dataset, "standard")]
    tasks.append(_IMDRUG_OPENLT)
    tasks += [_chemicalx(dataset) for dataset in _CHEMICALX_DATASETS]
    return {task.slug: task for task in tasks}


TASKS: dict[str, Task] = _build_tasks()


def get_task(slug: str) -> Task:
    """Return the task with this slug, or raise ``KeyError`` listing the valid slugs."""
    try:
        return TASKS[slug]
    except KeyError:
        raise KeyError(f"unknown task {slug!r}; valid tasks: {', '.join(TASKS)}") from None


def tasks_in_family(family_slug: str) -> list[Task]:
    """The tasks of one family, in registry order (``KeyError`` for an unknown family)."""
    if family_slug not in FAMILIES:
        raise KeyError(f"unknown family {family_slug!r}; valid families: {', '.join(FAMILIES)}")
    return [task for task in TASKS.values() if task.family == family_slug]
