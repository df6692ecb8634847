"""Serializers that describe the API's bodies for the OpenAPI schema (and validate the small inputs).

The bodies themselves are built by ``leaderboard.api.presenters`` and the
board exports; these classes are their documented shape, checked against the
live responses by the schemathesis test.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.urls import reverse
from rest_framework import serializers as s

from scoring import submission_fields
from scoring.submission_fields import SubmissionField


def request_field(f: SubmissionField) -> s.Field:
    """How the upload takes a declared method field (validated by the site's form; this is its schema)."""
    common = {"required": f.required, "help_text": f.help or f.label}
    if f.kind == "flag":
        return s.ChoiceField(choices=list(f.values), **common)
    if f.kind == "choice":
        # Values only: drf-spectacular names an enum by its field, so the request's and the responses' sets
        # (and the visibility endpoint's) must be the same set to share a name.
        return s.ChoiceField(choices=list(f.values), allow_blank=f.optional_blank, **common)
    if f.kind == "count":
        return s.IntegerField(min_value=0, **common)
    if f.kind == "url":
        return s.URLField(max_length=f.max_length or submission_fields.URL_MAX_LENGTH, **common)
    return s.CharField(max_length=f.max_length, **common)


def response_field(f: SubmissionField) -> s.Field:
    """How a submission's body shows a declared method field (``submission_fields.shown_value``)."""
    if f.kind == "flag":
        return s.BooleanField(help_text=f.label)
    if f.kind == "choice":
        return s.ChoiceField(choices=list(f.values), allow_blank=f.optional_blank, help_text=f.label)
    if f.kind == "count":
        return s.IntegerField(allow_null=True, help_text=f.label)
    return s.CharField(allow_blank=not f.required, help_text=f.label)


def _with_fields(declared: dict[str, s.Field], fields: dict[str, s.Field], after: str | None) -> dict[str, s.Field]:
    """``declared`` with ``fields`` inserted after the field named ``after`` (None: first)."""
    out = {} if after is not None else dict(fields)
    for name, value in declared.items():
        out[name] = value
        if name == after:
            out.update(fields)
    return out


def request_fields(fields: Iterable[SubmissionField] = submission_fields.FIELDS) -> dict[str, s.Field]:
    return {f.name: request_field(f) for f in fields}


def response_fields(fields: Iterable[SubmissionField] = submission_fields.FIELDS) -> dict[str, s.Field]:
    return {f.name: response_field(f) for f in fields}


class ProblemSerializer(s.Serializer):
    type = s.CharField()
    title = s.CharField()
    status = s.IntegerField()
    detail = s.CharField()
    errors = s.ListField(child=s.DictField(), required=False)


class MetricSerializer(s.Serializer):
    key = s.CharField()
    name = s.CharField()
    higher_is_better = s.BooleanField()
    description = s.CharField(allow_blank=True)


class DeclarationSerializer(s.Serializer):
    key = s.CharField()
    label = s.CharField()
    help = s.CharField(allow_blank=True)
    choices = s.ListField(child=s.CharField(), allow_null=True)
    required = s.BooleanField(help_text="an upload without this declaration is refused (422)")


class TaskSerializer(s.Serializer):
    slug = s.CharField()
    family = s.CharField()
    dataset = s.CharField()
    dataset_name = s.CharField()
    split = s.CharField()
    kind = s.CharField()
    description = s.CharField(allow_blank=True)
    classes = s.ListField(child=s.CharField())
    prediction_columns = s.ListField(child=s.CharField())
    optional_prediction_columns = s.ListField(child=s.CharField())
    metrics = MetricSerializer(many=True)
    primary_metric = s.CharField()
    tiebreak_metrics = s.ListField(child=s.CharField())
    seeds = s.ListField(child=s.IntegerField())
    spread = s.CharField(allow_null=True)
    citation = s.CharField(allow_blank=True)
    paper_url = s.CharField(allow_blank=True)
    caveats = s.ListField(child=s.CharField())
    declarations = DeclarationSerializer(many=True)
    links = s.DictField(child=s.CharField())


class QuotaSerializer(s.Serializer):
    team = s.CharField()
    team_name = s.CharField()
    daily_limit = s.IntegerField()
    daily_used = s.IntegerField()
    total_limit = s.IntegerField()
    total_used = s.IntegerField()
    remaining = s.IntegerField()
    resets_at = s.DateTimeField()


class PhaseSerializer(s.Serializer):
    slug = s.CharField()
    title = s.CharField()
    challenge = s.CharField()
    task = s.CharField()
    starts_at = s.DateTimeField()
    ends_at = s.DateTimeField(allow_null=True)
    is_open = s.BooleanField()
    accepts_submissions = s.BooleanField()
    daily_limit = s.IntegerField()
    total_limit = s.IntegerField()
    board_mode = s.CharField()
    quota = QuotaSerializer(many=True, allow_null=True, help_text="your teams' quota; null without a token")
    links = s.DictField(
        child=s.CharField(allow_null=True),
        help_text="self, leaderboard, submissions, preflight; inputs and example (null until offered)",
    )


class ChallengeSerializer(s.Serializer):
    slug = s.CharField()
    title = s.CharField()
    kind = s.CharField()
    family = s.CharField(allow_null=True)
    description = s.CharField(allow_blank=True)
    phases = PhaseSerializer(many=True)
    links = s.DictField(child=s.CharField())


class PageSerializer(s.Serializer):
    count = s.IntegerField()
    page = s.IntegerField()
    page_size = s.IntegerField()
    pages = s.IntegerField()
    next = s.CharField(allow_null=True)
    previous = s.CharField(allow_null=True)


class LeaderboardSerializer(PageSerializer):
    task = s.CharField()
    challenge = s.CharField()
    phase = s.CharField()
    view = s.CharField()
    view_label = s.CharField()
    sort = s.CharField()
    private_rows = s.BooleanField()
    filters = s.DictField(child=s.ListField(child=s.CharField()))
    metric = s.CharField()
    higher_is_better = s.BooleanField()
    scoring_version = s.CharField()
    board_computed_at = s.DateTimeField(allow_null=True)
    columns = s.ListField(child=s.CharField())
    rows = s.ListField(
        child=s.DictField(),
        help_text="one object per row with the CSV export's columns (rank, method, team, ..., one per metric); "
        "as in the CSV, published results sit where they would rank, unranked (rank null, source "
        "'reported in <paper>, Table N'); ?published=0 leaves them out",
    )


class PrimarySerializer(s.Serializer):
    key = s.CharField()
    name = s.CharField()
    value = s.FloatField(allow_null=True)
    higher_is_better = s.BooleanField()


class SubmissionSerializer(s.Serializer):
    id = s.UUIDField()
    status = s.ChoiceField(choices=["queued", "running", "scored", "failed"])
    status_display = s.CharField()
    error = s.CharField(allow_null=True)
    error_kind = s.CharField(allow_null=True)
    problems = s.ListField(child=s.DictField())
    problem_count = s.IntegerField()
    primary = PrimarySerializer()
    metrics = s.DictField(child=s.FloatField(allow_null=True))
    headline = s.ListField(child=s.DictField())
    queue_position = s.IntegerField(allow_null=True)
    scorer_version = s.CharField(allow_null=True)
    created_at = s.DateTimeField(allow_null=True)
    started_at = s.DateTimeField(allow_null=True)
    finished_at = s.DateTimeField(allow_null=True)
    url = s.CharField()
    task = s.CharField()
    challenge = s.CharField()
    phase = s.CharField()
    team = s.CharField()
    team_name = s.CharField()
    # The declared method fields come here (``response_fields``).
    declarations = s.DictField()
    file_name = s.CharField()
    file_size = s.IntegerField()
    sha256 = s.CharField()
    links = s.DictField(child=s.CharField())

    def get_fields(self) -> dict[str, s.Field]:
        return _with_fields(super().get_fields(), response_fields(), after="team_name")


class SubmissionSummarySerializer(s.Serializer):
    id = s.UUIDField()
    status = s.ChoiceField(choices=["queued", "running", "scored", "failed"])
    task = s.CharField()
    challenge = s.CharField()
    phase = s.CharField()
    team = s.CharField()
    method_name = s.CharField()
    visibility = s.ChoiceField(choices=["public", "private"])
    primary_metric = s.CharField()
    primary_value = s.FloatField(allow_null=True)
    error = s.CharField(allow_null=True)
    created_at = s.DateTimeField()
    finished_at = s.DateTimeField(allow_null=True)
    url = s.CharField()
    links = s.DictField(child=s.CharField())


class SubmissionPageSerializer(PageSerializer):
    results = SubmissionSummarySerializer(many=True)


class SubmissionCreateSerializer(s.Serializer):
    file = s.FileField(help_text="CSV or TSV, optionally gzip-compressed")
    # The declared method fields come here (``request_fields``).
    team = s.CharField(required=False, help_text="team slug; default: your personal team")
    modalities = s.ListField(
        child=s.CharField(), required=False, help_text="task declarations by key (see the task's declarations)"
    )

    def get_fields(self) -> dict[str, s.Field]:
        return _with_fields(super().get_fields(), request_fields(), after="file")


class TruthUploadSerializer(s.Serializer):
    file = s.FileField(help_text="CSV or TSV with the task's columns, optionally gzip-compressed")
    groups = s.FileField(
        required=False,
        help_text="ImDrug classification tasks: a class,group file (head, middle, tail or open per class); the truth "
        "is stored with a group column filled from it, replacing any group column of the file",
    )


class TruthVersionSerializer(s.Serializer):
    sha256 = s.CharField()
    rows = s.IntegerField()
    uploaded_by = s.CharField(allow_null=True)
    created_at = s.DateTimeField()
    scores = s.IntegerField(help_text="stored scores computed against this version")
    current = s.BooleanField()


class TruthSerializer(s.Serializer):
    challenge = s.CharField()
    phase = s.CharField()
    sha256 = s.CharField()
    rows = s.IntegerField()
    changed = s.BooleanField(help_text="false when this file already was the phase's truth")
    rescoring = s.IntegerField(help_text="submissions of the phase sent back to the worker to be re-scored")
    warnings = s.ListField(
        child=s.CharField(), help_text="e.g. the truth shares rows with a public test set hosted on this site"
    )
    versions = TruthVersionSerializer(many=True)


class VisibilitySerializer(s.Serializer):
    # Optional, as PATCH is partial: a body without it changes nothing and answers the submission as it is.
    visibility = s.ChoiceField(choices=["public", "private"], required=False)


class PreflightSerializer(s.Serializer):
    accepts = s.BooleanField(help_text="always true: a refusal is a problem document instead")
    task = s.CharField()
    challenge = s.CharField()
    phase = s.CharField()
    team = s.CharField()
    quota = QuotaSerializer()
    max_bytes = s.IntegerField(help_text="the largest file an upload takes")


def link_the_guide(result, generator, request, public):
    """drf-spectacular postprocessing hook: the description links the API guide's site page (docs/api.md).

    The reference page renders the description as Markdown, so a visitor opens the
    guide with its examples instead of reading a repository path.
    """
    guide = reverse("docs:page", args=["api"])
    result["info"]["description"] += f" Walkthrough with examples: [the API and command-line guide]({guide})."
    return result
