"""``python -m scoring``: list tasks, score or validate a file (or one part of a split), make inputs and truths,
print the submission fields' docs table.

Exit status: 0 on success, 2 on invalid input (bad file, unknown task, missing
file), as argparse does for bad arguments.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import sys
from collections.abc import Sequence

from scoring import submission_fields
from scoring.api import Score, load_truth, resolve_task, score_files
from scoring.errors import ScoringError, fail
from scoring.registry import TASKS, Task
from scoring.splits import PARTS, SplitSpec, has_usage_column, load_split_truth, score_parts
from scoring.truth import make_chemicalx_truth, test_inputs, validate_prediction, write_csv
from scoring.validation.imdrug import read_group_mapping, truth_with_group_column

EXIT_OK = 0
EXIT_INVALID = 2


def parse_seeds(text: str) -> list[int]:
    """``"0-9"`` / ``"0,1,2"`` / ``"0-4,7"`` -> list of ints."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if "-" in part:
            low, high = part.split("-", 1)
            seeds.extend(range(int(low), int(high) + 1))
        elif part:
            seeds.append(int(part))
    if not seeds:
        raise argparse.ArgumentTypeError(f"no seeds in {text!r}")
    return seeds


def _seeds_argument(text: str) -> list[int]:
    try:
        return parse_seeds(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds must look like 0-9 or 0,1,2, not {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scoring", description="Score drug-interaction benchmark files.")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("tasks", help="list the tasks")

    score = commands.add_parser("score", help="score a prediction file against a truth file")
    score.add_argument("task", help="task slug (see `tasks`)")
    score.add_argument("--truth", required=True, help="truth file (CSV/TSV, optionally gzip)")
    score.add_argument("--pred", required=True, help="prediction file (CSV/TSV, optionally gzip)")
    score.add_argument("--groups", help="classification: a class,group file giving each class's head/middle/tail group")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.add_argument(
        "--split",
        choices=PARTS,
        help="score one part of a challenge's public/private split (from the truth's usage column unless --fraction)",
    )
    score.add_argument("--fraction", type=float, help="with --split: public fraction of a hash split, e.g. 0.3")
    score.add_argument("--split-seed", type=int, default=0, help="with --fraction: the split's seed (default 0)")

    validate = commands.add_parser(
        "validate", help="check a prediction file without the labels (the server's checks, same messages)"
    )
    validate.add_argument("task", help="task slug (see `tasks`)")
    validate.add_argument("pred", help="prediction file (CSV/TSV, optionally gzip)")
    validate.add_argument(
        "--inputs", help="the task's test inputs (its inputs.csv download): adds duplicate, unknown and missing keys"
    )
    validate.add_argument("--json", action="store_true", help="print one JSON object")

    inputs = commands.add_parser("inputs", help="write the truth's key columns without labels")
    inputs.add_argument("task")
    inputs.add_argument("--truth", required=True)
    inputs.add_argument("--out", help="output CSV (default: standard output)")

    make = commands.add_parser("make-truth", help="build a truth file from public data")
    make.add_argument("family", choices=["chemicalx"])
    make.add_argument("--triples", required=True, help="labeled_triples.csv path or http(s) URL")
    make.add_argument("--seeds", type=_seeds_argument, default=list(range(10)), help="e.g. 0-9 (default)")
    make.add_argument("--threshold", type=float, help="label > X counts as positive (for continuous labels)")
    make.add_argument("--out", required=True, help="output CSV")

    fields = commands.add_parser("fields", help="print the submission fields as the Markdown table of the docs")
    fields.add_argument("--update", metavar="DOC", help="rewrite the table between the markers of this Markdown file")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "tasks":
            return _tasks()
        if args.command == "score":
            return _score(args)
        if args.command == "validate":
            return _validate(args)
        if args.command == "inputs":
            truth = args.truth
            if has_usage_column(truth):  # a challenge truth: participants never see the usage column
                truth = load_split_truth(args.task, truth, SplitSpec.usage())[0]
            frame = test_inputs(args.task, truth)
            text = write_csv(frame, args.out)
            if text is not None:
                sys.stdout.write(text)
            return EXIT_OK
        if args.command == "fields":
            return _fields(args.update)
        if args.command == "make-truth":
            truth = make_chemicalx_truth(args.triples, seeds=args.seeds, threshold=args.threshold, out=args.out)
            print(f"Wrote {len(truth):,} rows ({len(args.seeds)} seeds) to {args.out}.", file=sys.stderr)
            return EXIT_OK
    except ScoringError as error:
        if getattr(args, "json", False):
            print(json.dumps(error.to_dict()))
        else:
            print(f"Invalid input ({error.total} problem{'s' if error.total != 1 else ''}):", file=sys.stderr)
            print(str(error), file=sys.stderr)
        return EXIT_INVALID
    return EXIT_INVALID  # unreachable: argparse requires a command


def _fields(update: str | None) -> int:
    if update is None:
        sys.stdout.write(submission_fields.markdown_table())
        return EXIT_OK
    try:
        with open(update, encoding="utf-8") as doc:
            text = doc.read()
        new = submission_fields.updated_docs(text)
    except (OSError, ValueError) as error:
        print(f"Cannot update {update}: {error}.", file=sys.stderr)
        return EXIT_INVALID
    if new != text:
        with open(update, "w", encoding="utf-8") as doc:
            doc.write(new)
    print(f"{update}: the submission fields table is {'updated' if new != text else 'up to date'}.", file=sys.stderr)
    return EXIT_OK


def _tasks() -> int:
    rows = [("slug", "family", "dataset", "split", "primary")]
    rows += [(t.slug, t.family, t.dataset, t.split, t.primary) for t in TASKS.values()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    return EXIT_OK


def _score(args: argparse.Namespace) -> int:
    task = resolve_task(args.task)
    truth = args.truth
    if args.groups:
        if not task.kind_def.class_groups:
            raise fail(f"--groups is for classification tasks; {task.slug} has no class groups.")
        if args.split is not None:
            raise fail("--groups cannot be combined with --split; add a group column to the truth instead.")
        # The site's own path: the truth written again with a group column, every class of it mapped or refused.
        grouped = truth_with_group_column(task, args.truth, read_group_mapping(task, args.groups))
        truth = load_truth(task, io.BytesIO(grouped))
    if args.split is None:
        if args.fraction is not None:
            raise fail("--fraction needs --split public, private or all.")
        result = score_files(task, truth, args.pred)
    else:
        spec = SplitSpec.usage() if args.fraction is None else SplitSpec.hashed(args.fraction, args.split_seed)
        result = score_parts(task, args.truth, args.pred, spec)[args.split]
    if args.json:
        out = {"task": result.task, "primary": result.primary, "metrics": _jsonable(result.metrics)}
        if args.split is not None:
            out["split"] = args.split
        print(json.dumps(out))
    else:
        print(format_report(task, result, part=args.split))
    return EXIT_OK


def _validate(args: argparse.Namespace) -> int:
    n_rows = validate_prediction(args.task, args.pred, inputs=args.inputs)
    scope = "against the test inputs" if args.inputs else "format only (give --inputs to check the keys)"
    if args.json:
        print(
            json.dumps(
                {"task": args.task, "valid": True, "rows": n_rows, "checked": "inputs" if args.inputs else "format"}
            )
        )
    else:
        print(f"Valid: {n_rows:,} rows for {args.task}, {scope}.")
    return EXIT_OK


def _jsonable(metrics: dict[str, float]) -> dict[str, float | None]:
    return {k: (v if isinstance(v, (int, float)) and math.isfinite(v) else None) for k, v in metrics.items()}


COUNT_SUFFIXES = ("tp", "fp", "fn", "support")


def _value(key: str, value: float) -> str:
    if key.rsplit("/", 1)[-1] in COUNT_SUFFIXES:
        return f"{int(value):,}"
    return f"{value:.6f}"


def format_report(task: Task, result: Score, *, part: str | None = None) -> str:
    """Readable report: the primary metric first, then metrics grouped by their key's first part.

    ``part`` names the public/private part scored, when there is one.
    """
    primary = "not computed" if result.primary_value is None else _value(result.primary, result.primary_value)
    lines = [
        f"Task     {task.slug} ({task.dataset_name}, split {task.split})",
        *([f"Part     {part} rows"] if part else []),
        f"Rows     {result.n_rows:,} predictions",
        f"Primary  {result.primary} = {primary}",
        "",
    ]
    groups: dict[str, list[str]] = {}
    for key in result.metrics:
        group = key.split("/", 1)[0] if "/" in key else "summary"
        groups.setdefault(group, []).append(key)
    ordered = ["summary"] + sorted(g for g in groups if g != "summary")
    for group in ordered:
        keys = groups.get(group)
        if not keys:
            continue
        lines.append(f"[{group}]")
        width = max(len(k) for k in keys)
        lines += [f"  {k.ljust(width)}  {_value(k, result.metrics[k])}" for k in keys]
        lines.append("")
    lines.append(f"scorer {result.scorer_version}")
    return "\n".join(lines)
