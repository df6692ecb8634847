"""The fields a submitter fills in about a method, each declared once.

Plain data, no Django and no third-party import, so the site and the
``ddi-leaderboard`` client both read it. From ``FIELDS`` the site derives its
submit form, the API's request and response schema, the board filters and the
export columns, and the submission page; the client derives the ``submit``
command's options and ``Client.submit``'s keywords; ``markdown_table`` is the
table in docs/submissions.md. Only the ``Submission`` model's columns are
written out by hand, because migrations are made from them; a test checks them
against this list.

Adding a field: one ``SubmissionField`` here, the model column and its migration
(docs/submissions.md, "Adding a method field").

Values travel in three shapes:

- on the wire (form posts, the API's multipart body, the client's request): text,
  ``yes``/``no`` for a flag, a choice's value;
- stored (the model column): ``stored_value`` converts; a flag is a boolean, a
  choice kept in a boolean column (``stored_true``) too;
- shown (API responses, board exports): ``shown_value`` converts back; a flag
  shows as ``true``/``false``, a choice as its value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Literal

# text: one line; markdown: long text rendered as sanitised Markdown; url: a link; count: a whole
# number >= 0 or nothing; choice: one of ``choices`` ("" = not said, unless the field has a default);
# flag: a yes/no answer, stored as a boolean.
Kind = Literal["text", "markdown", "url", "count", "choice", "flag"]
KINDS: tuple[Kind, ...] = ("text", "markdown", "url", "count", "choice", "flag")
YES, NO = "yes", "no"
# The width of a URL column when a field does not say (Django's URLField default).
URL_MAX_LENGTH = 200


@dataclass(frozen=True)
class Choice:
    value: str  # on the wire, in the database and in board URLs
    label: str  # what people read


@dataclass(frozen=True)
class BoardFilter:
    """Boards filter on the field: ``?<param>=<value>`` (a flag: yes or no; a choice: one of its values)."""

    param: str
    label: str
    help: str


# eq=False: a declaration is itself (hashed by identity), which keeps the per-field caches cheap.
@dataclass(frozen=True, eq=False)
class SubmissionField:
    """One thing a submitter says about a method, and how every surface names it.

    ``name`` is the form's and the API's name (request and response) and, unless
    overridden, the model column, the export column, the client keyword and the
    command-line option (``--name-with-dashes``).
    """

    name: str
    kind: Kind
    label: str
    help: str = ""
    required: bool = False
    max_length: int | None = None  # text, markdown and url fields
    choices: tuple[Choice, ...] = ()
    # The value when the submitter sends none (a flag: yes or no; a choice with a default is never blank).
    default: str = ""
    column: str = ""  # the Submission model column ("": ``name``)
    # A choice kept in a boolean column: the column is true for this value (the other choice is false).
    stored_true: str = ""
    export: str | None = None  # the board exports' column (None: not exported)
    board_filter: BoardFilter | None = None
    option: str = ""  # the command-line option ("": --name-with-dashes); a markdown field's option reads a file
    keyword: str = ""  # Client.submit's keyword ("": ``name``)
    # A two-way choice the client offers as an on/off switch (``--private``, ``private=True``) picking this value.
    switch_to: str = ""
    # Pre-filled on the submit page from the submitter's previous submission to the same phase.
    remembered: bool = True
    # False for a choice about the entry rather than a fact about the method (visibility): the submit
    # page asks it after the task's declarations, the submission page shows it beside the date.
    describes_method: bool = True

    def __post_init__(self) -> None:
        problems = _problems(self)
        if problems:
            raise ValueError(f"submission field {self.name!r}: {'; '.join(problems)}")

    @property
    def column_name(self) -> str:
        return self.column or self.name

    @property
    def option_name(self) -> str:
        return self.option or "--" + self.name.replace("_", "-")

    @property
    def keyword_name(self) -> str:
        return self.keyword or self.name

    @property
    def values(self) -> tuple[str, ...]:
        """A choice's values; a flag's two answers."""
        return (YES, NO) if self.kind == "flag" else tuple(c.value for c in self.choices)

    @property
    def optional_blank(self) -> bool:
        """Whether "" (not said) is an answer: an optional field without a default."""
        return not self.required and not self.default and self.kind != "flag"

    @property
    def choice_pairs(self) -> list[tuple[str, str]]:
        """(value, label) of each choice, as Django's ``choices`` takes them."""
        return [(c.value, c.label) for c in self.choices]

    def label_of(self, value: str) -> str:
        """A choice value's label (the value itself if unknown)."""
        for choice in self.choices:
            if choice.value == value:
                return choice.label
        return value

    def describe(self) -> str:
        """One sentence for help texts that have no room for two: the help, else the label."""
        return self.help or self.label


def _problems(f: SubmissionField) -> list[str]:
    problems = []
    if not re.fullmatch(r"[a-z][a-z0-9_]*", f.name):
        problems.append("name must be snake_case")
    if f.kind not in KINDS:
        problems.append(f"kind must be one of {', '.join(KINDS)}")
    if (f.kind == "choice") != bool(f.choices):
        problems.append("choices go with (and only with) kind 'choice'")
    if f.kind == "flag" and f.default not in (YES, NO):
        problems.append("a flag needs a default of 'yes' or 'no'")
    if f.default and f.kind not in ("flag", "choice"):
        problems.append("only flags and choices take a default")
    if f.kind == "choice" and f.default and f.default not in f.values:
        problems.append("the default must be one of the choices")
    if f.stored_true and (f.kind != "choice" or len(f.choices) != 2 or f.stored_true not in f.values):
        problems.append("stored_true needs a choice of exactly two values, one of them")
    if f.switch_to and (f.kind != "choice" or not f.default or f.switch_to not in f.values or f.switch_to == f.default):
        problems.append("switch_to needs a choice with a default and another of its values")
    if f.max_length is not None and f.kind not in ("text", "markdown", "url"):
        problems.append("max_length is for text, markdown and url fields")
    if f.kind in ("text", "markdown") and f.max_length is None:
        problems.append("text and markdown fields need a max_length")
    return problems


def choices(*pairs: tuple[str, str]) -> tuple[Choice, ...]:
    return tuple(Choice(value, label) for value, label in pairs)


FIELDS: tuple[SubmissionField, ...] = (
    SubmissionField(
        "method_name", "text", "Method name", "The name the boards show.",
        required=True, max_length=100, export="method", option="--method", keyword="method",
    ),
    SubmissionField(
        "description", "markdown", "Description",
        "Markdown. Links and basic formatting are kept; anything else is removed.",
        max_length=20_000, option="--description-file",
    ),
    SubmissionField("paper_url", "url", "Paper URL", export="paper_url", option="--paper"),
    SubmissionField("code_url", "url", "Code URL", export="code_url", option="--code"),
    SubmissionField(
        "code_commit_url", "url", "Code commit URL",
        "A link to the exact commit that made these predictions (e.g. https://github.com/you/repo/commit/1a2b3c4).",
        max_length=300, export="code_commit_url",
        remembered=False,  # a new run is usually a new commit: never offer the last one by default
    ),
    SubmissionField(
        "model_family", "choice", "Model family",
        choices=choices(
            ("gnn", "GNN"),
            ("transformer", "Transformer"),
            ("language-model", "Language model"),
            ("fingerprints-ml", "Fingerprints + classical ML"),
            ("other", "Other"),
        ),
        export="model_family",
        board_filter=BoardFilter("family", "Model family", "The kind of model, as the submitter declared it."),
    ),
    SubmissionField("n_parameters", "count", "Number of parameters", export="n_parameters"),
    SubmissionField(
        "training_hardware", "text", "Training hardware", 'e.g. "1x NVIDIA A100 40 GB, 6 h".',
        max_length=100, export="training_hardware",
    ),
    SubmissionField(
        "uses_external_data", "flag", "Uses external data or pre-training",
        "Yes if the model saw data beyond the benchmark's own training set, pre-training included "
        "(a pre-trained language model or graph encoder counts).",
        default=NO, export="uses_external_data", option="--external-data",
        board_filter=BoardFilter("external", "Uses external data", "Trained with data beyond the benchmark's own."),
    ),
    SubmissionField(
        "visibility", "choice", "Visibility",
        choices=choices(
            ("public", "Public: shown on the leaderboard"), ("private", "Private: only your team and organizers")
        ),
        default="public", column="is_public", stored_true="public", export="visibility",
        option="--private", keyword="private", switch_to="private", describes_method=False,
    ),
)  # fmt: skip


def _check_unique(fields: Iterable[SubmissionField]) -> None:
    seen: dict[str, set[str]] = {}
    for f in fields:
        for surface, name in (
            ("name", f.name), ("column", f.column_name), ("option", f.option_name), ("keyword", f.keyword_name),
            ("export", f.export), ("filter", f.board_filter.param if f.board_filter else None),
        ):  # fmt: skip
            if name is None:
                continue
            if name in seen.setdefault(surface, set()):
                raise ValueError(f"two submission fields share the {surface} {name!r}")
            seen[surface].add(name)


_check_unique(FIELDS)


def field(name: str, fields: Iterable[SubmissionField] = FIELDS) -> SubmissionField:
    """The field called ``name``; ``KeyError`` if none is."""
    for f in fields:
        if f.name == name:
            return f
    raise KeyError(name)


def stored_value(f: SubmissionField, value: object) -> object:
    """A validated wire value as its model column keeps it (a flag's or a boolean-column choice's ``bool``)."""
    if f.kind == "flag":
        return value is True or value == YES
    if f.stored_true:
        return value == f.stored_true
    if f.kind == "count":
        return None if value in (None, "") else int(str(value))
    return "" if value is None else value


def shown_value(f: SubmissionField, stored: object) -> object:
    """A column's value as API responses and exports show it (``stored_value`` undone, a flag stays boolean)."""
    return shower(f)(stored)


@cache
def shower(f: SubmissionField) -> Callable[[object], object]:
    """``shown_value`` for one field as a function, made once: a large export calls it for every row."""
    if f.kind == "flag":
        return bool
    if f.stored_true:
        yes, no = f.stored_true, next(v for v in f.values if v != f.stored_true)
        return lambda stored: yes if stored else no
    if f.kind == "count":
        return lambda stored: None if stored is None else int(str(stored))
    return lambda stored: "" if stored is None else stored


def wire_value(f: SubmissionField, stored: object) -> str:
    """A column's value as the form and the API take it back (a resubmission's defaults)."""
    if f.kind == "flag":
        return YES if stored else NO
    shown = shown_value(f, stored)
    return "" if shown is None else str(shown)


def request_fields(values: Mapping[str, object], fields: Iterable[SubmissionField] = FIELDS) -> dict[str, str]:
    """The API's multipart fields for ``Client.submit``'s keywords (``keyword_name``); None means not given.

    A flag takes a bool; a switch (``switch_to``) takes a bool that picks its value;
    a count an int. ``TypeError`` for an unknown keyword or a missing required one,
    as a Python call would raise.
    """
    fields = tuple(fields)
    known = {f.keyword_name: f for f in fields}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise TypeError(f"submit() got an unexpected keyword argument {unknown[0]!r}")
    body: dict[str, str] = {}
    for f in fields:
        value = values.get(f.keyword_name)
        if value is None:
            if f.required:
                raise TypeError(f"submit() missing required keyword argument {f.keyword_name!r}")
            continue
        if f.switch_to:
            body[f.name] = f.switch_to if value else f.default
        elif f.kind == "flag":
            body[f.name] = (YES if value else NO) if isinstance(value, bool) else str(value)
        else:
            body[f.name] = str(value)
    return body


# --- the docs table -------------------------------------------------------------------------------

DOCS_START = "<!-- submission fields: generated by `python -m scoring fields --update docs/submissions.md` -->"
DOCS_END = "<!-- end of submission fields -->"


def _values_text(f: SubmissionField) -> str:
    if f.kind == "flag":
        return f"`{YES}` or `{NO}` (default `{f.default}`)"
    if f.kind == "choice":
        values = ", ".join(f"`{c.value}` ({c.label})" for c in f.choices)
        return values + (f"; default `{f.default}`" if f.default else "; empty: not said")
    if f.kind == "count":
        return "a whole number ≥ 0, or empty"
    if f.kind == "url":
        return f"an http(s) URL, up to {f.max_length or URL_MAX_LENGTH} characters"
    what = "Markdown" if f.kind == "markdown" else "text"
    return f"{what}, up to {f.max_length:,} characters"


def _client_text(f: SubmissionField) -> str:
    if f.switch_to:
        return f"`{f.option_name}` · `{f.keyword_name}=True` (`{f.switch_to}`)"
    if f.kind == "flag":
        return f"`{f.option_name}` · `{f.keyword_name}=True`"
    if f.kind == "markdown":
        return f"`{f.option_name} FILE` · `{f.keyword_name}=`"
    return f"`{f.option_name}` · `{f.keyword_name}=`"


def markdown_table(fields: Iterable[SubmissionField] = FIELDS) -> str:
    """The docs table of the fields: what each takes, and its name on every surface."""
    lines = [
        "| Field (form, API) | Label | Values | Command line · `Client.submit` | Export column | Board filter |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for f in fields:
        name = f"`{f.name}`" + (" (required)" if f.required else "")
        label = f.label + (f": {f.help}" if f.help else "")
        export = f"`{f.export}`" if f.export else "—"
        board = f"`{f.board_filter.param}=`" if f.board_filter else "—"
        lines.append(f"| {name} | {label} | {_values_text(f)} | {_client_text(f)} | {export} | {board} |")
    return "\n".join(lines) + "\n"


def updated_docs(text: str, fields: Iterable[SubmissionField] = FIELDS) -> str:
    """``text`` with the generated table between ``DOCS_START`` and ``DOCS_END`` replaced (``ValueError`` if absent)."""
    start, end = text.find(DOCS_START), text.find(DOCS_END)
    if start < 0 or end < start:
        raise ValueError("the document has no submission-fields markers")
    return text[: start + len(DOCS_START)] + "\n\n" + markdown_table(fields) + "\n" + text[end:]
