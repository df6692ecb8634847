"""The submission form: file, method metadata, task declarations; validates small files with scoring."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.conf import settings

import scoring
from leaderboard.accounts.models import Team
from leaderboard.challenges.truth_cache import phase_truth
from leaderboard.submissions.services import Metadata
from leaderboard.submissions.tasks import scoring_limits

if TYPE_CHECKING:
    from django.core.files.uploadedfile import UploadedFile

    from leaderboard.accounts.models import User
    from leaderboard.challenges.models import Phase

ALLOWED_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz", ".gz")
YES_NO = [("no", "No"), ("yes", "Yes")]
VISIBILITY = [("public", "Public: shown on the leaderboard"), ("private", "Private: only your team and organizers")]
DECLARATION_PREFIX = "declare_"


def _yes_no_field(label: str, help_text: str = "", initial: str | None = None) -> forms.TypedChoiceField:
    return forms.TypedChoiceField(
        label=label,
        help_text=help_text,
        choices=YES_NO,
        coerce=lambda value: value == "yes",
        widget=forms.RadioSelect,
        initial=initial,
    )


def megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB"


class SubmissionForm(forms.Form):
    file = forms.FileField(
        label="Prediction file",
        help_text="CSV or TSV, optionally gzip-compressed (.gz).",
    )
    team = forms.ModelChoiceField(queryset=Team.objects.none(), empty_label=None, label="Submit as team")
    method_name = forms.CharField(max_length=100, label="Method name")
    description = forms.CharField(
        required=False,
        max_length=20_000,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="Markdown. Links and basic formatting are kept; anything else is removed.",
    )
    paper_url = forms.URLField(required=False, label="Paper URL", assume_scheme="https")
    code_url = forms.URLField(required=False, label="Code URL", assume_scheme="https")
    n_parameters = forms.IntegerField(required=False, min_value=0, label="Number of parameters")
    uses_external_data = _yes_no_field(
        "Uses external data", "Data beyond the benchmark's own training set (e.g. pretraining corpora).", "no"
    )
    visibility = forms.ChoiceField(choices=VISIBILITY, widget=forms.RadioSelect, initial="public")

    def __init__(self, *args: Any, phase: Phase, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.phase = phase
        self.task = phase.task
        self.user = user
        self.problems: scoring.ScoringError | None = None
        self.validated_inline = False
        teams = Team.objects.for_user(user).order_by("-personal", "name")
        self.teams = teams  # the teams the user may submit for
        cast(forms.ModelChoiceField, self.fields["team"]).queryset = teams
        personal = teams.filter(personal=True).first()
        if personal is not None:
            self.fields["team"].initial = personal.pk
        self.fields["file"].help_text += f" At most {megabytes(settings.SUBMISSION_MAX_BYTES)}."
        for declaration in self.task.declarations:
            name = DECLARATION_PREFIX + declaration.key
            if declaration.choices:
                self.fields[name] = forms.MultipleChoiceField(
                    label=declaration.label,
                    help_text=declaration.help,
                    choices=[(c, c) for c in declaration.choices],
                    widget=forms.CheckboxSelectMultiple,
                )
            else:
                # No default: the submitter must answer explicitly (DrugbankDDI's context features leak the label).
                self.fields[name] = _yes_no_field(declaration.label, declaration.help)

    def declaration_fields(self) -> list:
        return [self[DECLARATION_PREFIX + d.key] for d in self.task.declarations]

    def clean_file(self) -> UploadedFile:
        upload = self.cleaned_data["file"]
        name = (upload.name or "").lower()
        if not name.endswith(ALLOWED_SUFFIXES):
            raise forms.ValidationError("Upload a .csv or .tsv file (optionally .gz compressed).")
        if upload.size > settings.SUBMISSION_MAX_BYTES:
            raise forms.ValidationError(
                f"The file is {megabytes(upload.size)}; the limit is {megabytes(settings.SUBMISSION_MAX_BYTES)}."
            )
        if upload.size == 0:
            raise forms.ValidationError("The file is empty.")
        return upload

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        upload = cleaned.get("file")
        if upload is not None and not self.errors and upload.size <= settings.SUBMISSION_INLINE_VALIDATION_BYTES:
            self._validate_inline(upload)
        return cleaned

    def _validate_inline(self, upload: UploadedFile) -> None:
        """Check the file against the truth now; an invalid file never becomes a submission."""
        upload.seek(0)
        try:
            scoring.align(self.task, phase_truth(self.phase), upload.read(), limits=scoring_limits())
        except scoring.ScoringError as error:
            self.problems = error
            self.add_error(
                "file",
                f"The file is not valid for this task: {error.total} problem{'s' if error.total != 1 else ''} "
                "(listed in the table above the form). Nothing was submitted and no quota was used.",
            )
        else:
            self.validated_inline = True
        finally:
            upload.seek(0)

    def metadata(self) -> Metadata:
        data = self.cleaned_data
        declarations = {d.key: data[DECLARATION_PREFIX + d.key] for d in self.task.declarations}
        return Metadata(
            method_name=data["method_name"].strip(),
            description=data["description"],
            paper_url=data["paper_url"],
            code_url=data["code_url"],
            n_parameters=data["n_parameters"],
            uses_external_data=data["uses_external_data"],
            declarations=declarations,
            is_public=data["visibility"] == "public",
        )
