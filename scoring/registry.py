"""The benchmark registry: every family and task the leaderboard hosts.

Instances of ``scoring.definitions``' frozen dataclasses, no I/O. The readers
use a task's columns, classes and seeds to parse files; ``Task.kind`` names its ``scoring.kinds`` entry, which
says how it is read, scored and shown; the site shows the names, citations,
caveats and declarations. The scoring rules themselves are in
``scoring.metrics`` and are written up in docs/metrics.md.
"""

from __future__ import annotations

from scoring import keys
from scoring.definitions import Declaration, Family, Task
from scoring.keys import MetricDef
from scoring.kinds import classification, mudi, pair, regression

__all__ = [
    "FAMILIES", "TASKS", "Declaration", "Family", "MetricDef", "Task", "get_task", "split_sibling", "tasks_in_family",
]  # fmt: skip

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
# Where each family's test labels can be read: every hosted task's labels are public, so no standing
# board can tell an honest prediction from one fitted to its test labels.
_MUDI_LABELS = "The MUDI test labels are published in the authors' repository (dataset/test.csv)."
_IMDRUG_LABELS = (
    "ImDrug's test splits are rebuilt from public datasets with the authors' code and seeds, so their labels "
    "are public."
)
_CHEMICALX_LABELS = (
    "ChemicalX's labelled triples are public and its splits are seeded, so the test labels can be rebuilt."
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
_IMDRUG_TRUTH_COLUMNS = ("seed", "id", "label")
_IMDRUG_PREDICTION_COLUMNS = ("seed", "id", "prediction")


def _prob_columns(classes: tuple[str, ...]) -> tuple[str, ...]:
    """Probability columns, one per class, named by 0-based class index.

    Binary tasks may instead give a single ``score`` column (probability of
    class 1).
    """
    columns = tuple(f"prob_{i}" for i in range(len(classes)))
    return columns + ("score",) if len(classes) == 2 else columns


def _imdrug_classification_task(
    slug: str,
    dataset: str,
    dataset_name: str,
    split: str,
    classes: tuple[str, ...],
    caveats: tuple[str, ...],
    description: str,
) -> Task:
    """An ImDrug classification task: the family's columns, metrics, ranking, seeds and citation."""
    return Task(
        slug=slug,
        family="imdrug",
        dataset=dataset,
        dataset_name=dataset_name,
        split=split,
        kind="classification",
        classes=classes,
        optional_prediction_columns=_prob_columns(classes),
        metrics=classification.METRICS,
        primary="balanced_accuracy",
        secondary=("balanced_f1", "auroc"),
        seeds=(0, 1, 2),
        spread="std",
        citation=_IMDRUG_CITATION,
        public_labels=_IMDRUG_LABELS,
        paper_url="https://arxiv.org/abs/2209.07921",
        caveats=caveats,
        description=description,
        truth_columns=_IMDRUG_TRUTH_COLUMNS,
        prediction_columns=_IMDRUG_PREDICTION_COLUMNS,
    )


def _imdrug_classification(dataset: str, split: str) -> Task:
    name, classes, about = _IMDRUG_DATASETS[dataset]
    return _imdrug_classification_task(
        slug=f"imdrug-{dataset}-{split}",
        dataset=dataset,
        dataset_name=name,
        split=split,
        classes=classes,
        caveats=(_SPLITS[split], "Mean and population standard deviation over seeds 0, 1 and 2."),
        description=(
            f"{about} {_SPLITS[split]} {LABEL_RULE} Optional columns prob_0..prob_{len(classes) - 1} give a "
            "probability per class (by index)"
            + (", or a single score column giving the probability of class 1" if len(classes) == 2 else "")
            + "; without them AUROC is not computed."
        ),
    )


_IMDRUG_OPENLT = _imdrug_classification_task(
    slug="imdrug-drugbank-openlt",
    dataset="drugbank",
    dataset_name="DrugBank DDI (open long-tailed)",
    split="openlt",
    classes=OPENLT_CLASSES,
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
    metrics=regression.METRICS,
    primary="mse",
    secondary=("mae",),
    seeds=(0, 1, 2),
    spread="std",
    citation=_IMDRUG_CITATION,
    public_labels=_IMDRUG_LABELS,
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
    metrics=mudi.METRICS,
    primary=keys.mudi_key("aware", "macro", "f1"),
    secondary=(keys.mudi_key("aware", "micro", "f1"), keys.mudi_key("agnostic", "macro", "f1")),
    seeds=(0,),
    spread=None,
    citation=_MUDI_CITATION,
    public_labels=_MUDI_LABELS,
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
    declarations: tuple[Declaration, ...] = ()
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
        metrics=pair.METRICS,
        primary="auroc",
        secondary=("aupr", "f1"),
        seeds=tuple(range(10)),
        spread="stderr",
        citation=_CHEMICALX_CITATION,
        public_labels=_CHEMICALX_LABELS,
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


def unknown_task_message(slug: str) -> str:
    """The one sentence for a slug that is no task, listing the valid ones (API, client and CLI say it alike)."""
    return f"No task {slug!r}; valid tasks: {', '.join(TASKS)}."


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


# Splits whose boards are compared side by side (ImDrug's random and standard splits).
_SIBLING_SPLITS = {"random": "standard", "standard": "random"}


def split_sibling(task: Task) -> Task | None:
    """The task with the same family, dataset and kind under the other split, or None."""
    other = _SIBLING_SPLITS.get(task.split)
    if other is None:
        return None
    same = (task.family, task.dataset, task.kind, other)
    return next((t for t in TASKS.values() if (t.family, t.dataset, t.kind, t.split) == same), None)
