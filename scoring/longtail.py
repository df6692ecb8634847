"""ImDrug's long-tailed class groups: head, middle, tail (and open), and the metrics per group.

The authors (DrugLT/ImDrug ``lib/utils/split.py`` ``get_lt_labels`` and
``lib/core/function.py`` ``test_model``, commit 48afc7e) rank the classes by
their frequency in the whole dataset, most frequent first, and cut them by
class count with fractions 0.3 / 0.4 / 0.3: head = ceil(0.3 K), tail =
rint((K - head) * 0.3 / 0.7) (half to even), middle = the rest. In the open
long-tailed setting the open class is its own group, ``open``.

A grouping is a property of the dataset, not of a test file, so it arrives with
the truth: a ``group`` column in the truth file or an organizer's
``class,group`` mapping (``scoring.validation.imdrug.read_group_mapping``). Scores are averaged by class
id over the classes of each group; the authors average by position among the
classes present, which shifts their groups when a class is missing from a seed
(docs/metrics.md shows the difference).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from scoring.errors import Problems
from scoring.keys import group_key
from scoring.readers import Table
from scoring.validation.common import add_located
from scoring.validation.keyed import GroupedTruth, KeyedTruth

HEAD, MIDDLE, TAIL, OPEN = "head", "middle", "tail", "open"
GROUPS = (HEAD, MIDDLE, TAIL, OPEN)
# The metrics computed per group (per-class recall, balanced F1 and one-vs-rest AUROC, averaged).
GROUP_METRICS = ("balanced_accuracy", "balanced_f1", "auroc")
GROUP_COLUMN = "group"
MAPPING_CLASS = "class"
# A class -> group assignment in task class order; None for a class the grouping does not name.
ClassGroups = tuple[str | None, ...]


def group_sizes(n_classes: int) -> tuple[int, int, int]:
    """(head, middle, tail) class counts of the authors' 0.3 / 0.4 / 0.3 cut of ``n_classes`` classes.

    >>> group_sizes(10), group_sizes(86)
    ((3, 4, 3), (26, 34, 26))
    """
    head = math.ceil(0.3 * n_classes)
    tail = int(np.rint((n_classes - head) * 0.3 / 0.7))
    return head, n_classes - head - tail, tail


def groups_from_counts(counts: Sequence[int], open_index: int | None = None) -> ClassGroups:
    """The grouping of classes with these whole-dataset counts (task class order), by the authors' rule.

    Classes are ranked most frequent first (ties keep class order); ``open_index``
    names the open class of the open long-tailed setting, grouped ``open`` and
    left out of the cut.
    """
    ranked = [i for i in sorted(range(len(counts)), key=lambda i: -counts[i]) if i != open_index]
    head, middle, _ = group_sizes(len(ranked))
    groups: list[str | None] = [None] * len(counts)
    for position, index in enumerate(ranked):
        groups[index] = HEAD if position < head else MIDDLE if position < head + middle else TAIL
    if open_index is not None:
        groups[open_index] = OPEN
    return tuple(groups)


def _group_name(text: str) -> str | None:
    name = str(text).strip().lower()
    return name if name in GROUPS else None


def assign_groups(
    table: Table,
    column: str,
    class_codes: np.ndarray,
    n_classes: int,
    problems: Problems,
    what: str,
) -> ClassGroups:
    """One group per class from a per-row group column; empty, unknown or conflicting groups are reported."""
    label = table.label(column)
    texts = table.frame[column].astype(str).to_numpy(dtype=object)
    names = np.array([_group_name(t) or "" for t in texts], dtype=object)
    bad = np.flatnonzero(names == "")

    def unknown(row: int, line: int) -> str:
        if not str(texts[row]).strip():
            return f'Line {line}, column "{label}" is empty; give head, middle or tail for every {what}.'
        return f'Line {line}, column "{label}": "{texts[row]}" is not a group; use head, middle, tail or open.'

    add_located(problems, table, bad, unknown, column)
    groups: list[str | None] = [None] * n_classes
    first_line: dict[int, int] = {}
    conflicts = []
    for row in np.flatnonzero((names != "") & (class_codes >= 0)):
        code = int(class_codes[row])
        if groups[code] is None:
            groups[code] = names[row]
            first_line[code] = int(table.lines[row])
        elif groups[code] != names[row]:
            conflicts.append(row)
    add_located(
        problems,
        table,
        np.asarray(conflicts, dtype=np.int64),
        lambda row, line: (
            f'Line {line}, column "{label}": this class is in group "{names[row]}" here but in '
            f'"{groups[int(class_codes[row])]}" on line {first_line[int(class_codes[row])]}; '
            "a class belongs to one group."
        ),
        column,
    )
    return tuple(groups)


def groups_from_truth_column(table: Table, labels: np.ndarray, n_classes: int, problems: Problems) -> ClassGroups:
    """The grouping a truth file's optional ``group`` column carries (every row names its class's group)."""
    return assign_groups(table, GROUP_COLUMN, labels, n_classes, problems, "row")


def with_class_groups(truth: KeyedTruth, groups: ClassGroups | None) -> KeyedTruth:
    """The truth with its classes' groups attached (a ``GroupedTruth``); None removes a grouping."""
    values = {f.name: getattr(truth, f.name) for f in fields(truth) if f.name != "class_groups"}
    return GroupedTruth(**values, class_groups=groups)


def class_groups_of(truth: Any) -> ClassGroups | None:
    """The grouping a loaded truth carries, or None."""
    groups = getattr(truth, "class_groups", None)
    return groups if groups is not None and any(g is not None for g in groups) else None


def groups_in(groups: ClassGroups) -> tuple[str, ...]:
    """The groups a grouping uses, in the order head, middle, tail, open."""
    used = set(groups)
    return tuple(g for g in GROUPS if g in used)


def group_values(
    groups: ClassGroups,
    recall: np.ndarray,
    f1: np.ndarray,
    gold: np.ndarray,
    used: np.ndarray,
    auroc: np.ndarray | None,
) -> dict[str, float]:
    """One seed's ``group/{g}/{metric}`` values from per-class arrays (task class order).

    ``recall`` and ``f1`` are the per-class recall and balanced F1, ``gold`` marks
    classes with gold rows and ``used`` classes in gold or predictions; ``auroc``
    holds per-class one-vs-rest areas (NaN where a class lacks gold rows or
    negatives) or is None without probabilities. A group's balanced accuracy
    averages its gold classes, its balanced F1 its gold-or-predicted classes
    (as the whole-task metrics do) and its AUROC the classes with an area; a
    group with none of them has no value, never 0.
    """
    names = np.asarray(groups, dtype=object)
    out: dict[str, float] = {}
    for group in groups_in(groups):
        member = names == group
        if np.any(member & gold):
            out[group_key(group, "balanced_accuracy")] = float(np.mean(recall[member & gold]))
        if np.any(member & used):
            out[group_key(group, "balanced_f1")] = float(np.mean(f1[member & used]))
        if auroc is not None:
            defined = member & ~np.isnan(auroc)
            if np.any(defined):
                out[group_key(group, "auroc")] = float(np.mean(auroc[defined]))
    return out


def group_counts(groups: ClassGroups) -> Mapping[str, int]:
    """How many classes each group has."""
    return {g: sum(1 for x in groups if x == g) for g in groups_in(groups)}


def group_column(labels: np.ndarray, classes: Sequence[str]) -> np.ndarray:
    """Each row's group when ``labels`` (class indices) are the whole dataset: the counts come from them.

    Used for demo truths, whose synthetic rows are all the data there is; a class
    named ``open`` is the open class.
    """
    counts = np.bincount(np.asarray(labels, dtype=np.int64), minlength=len(classes))
    open_index = list(classes).index(OPEN) if OPEN in classes else None
    groups = groups_from_counts(counts.tolist(), open_index)
    return np.asarray(groups, dtype=object)[np.asarray(labels, dtype=np.int64)]
