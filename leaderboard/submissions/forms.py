"""The submission form: file, method metadata, task declarations; validates small files with scoring."""

from __future__ import annotations

import gzip
import logging
import zlib
from typing import Any, cast

from django import forms
from django.conf import settings

import scoring
from leaderboard.accounts.models import Team
from leaderboard.challenges.truth_cache import phase_truth
from leaderboard.submissions import quotas, staging
from leaderboard.submissions.intake import Metadata
from leaderboard.submissions.models import Submission
from leaderboard.submissions.runs import scoring_limits
from scoring import submission_fields
from scoring.submission_fields import SubmissionField

ALLOWED_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz", ".gz")
YES_NO = [(submission_fields.NO, "No"), (submission_fields.YES, "Yes")]
NOT_SAID = ("", "not said")
DECLARATION_PREFIX = "declare_"

log = logging.getLogger(__name__)


def _yes_no_field(label: str, help_text: str = "", initial: str | None = None) -> forms.TypedChoiceField:
    return forms.TypedChoiceField(
        label=label,
        help_text=help_text,
        choices=YES_NO,
        coerce=lambda value: value == submission_fields.YES,
        widget=forms.RadioSelect,
        initial=initial,
    )


def form_field(f: SubmissionField) -> forms.Field:
    """The submit form's field for a declared method field (its validation is the API's too)."""
    common: dict[str, Any] = {"label": f.label, "help_text": f.help, "required": f.required}
    if f.kind == "flag":
        return _yes_no_field(f.label, f.help, f.default)
    if f.kind == "choice" and f.default:  # always answered: radio buttons, preset
        return forms.ChoiceField(choices=f.choice_pairs, widget=forms.RadioSelect, initial=f.default, label=f.label,
                                 help_text=f.help)  # fmt: skip
    if f.kind == "choice":
        return forms.ChoiceField(choices=[NOT_SAID, *f.choice_pairs], **common)
    if f.kind == "count":
        return forms.IntegerField(min_value=0, **common)
    if f.kind == "url":
        max_length = f.max_length or submission_fields.URL_MAX_LENGTH
        return forms.URLField(max_length=max_length, assume_scheme="https", **common)
    if f.kind == "markdown":
        return forms.CharField(max_length=f.max_length, widget=forms.Textarea(attrs={"rows": 5}), **common)
    return forms.CharField(max_length=f.max_length, **common)


def method_form_fields(fields=submission_fields.FIELDS) -> dict[str, forms.Field]:
    """The form fields of the declared method fields, by name, in declaration order."""
    return {f.name: form_field(f) for f in fields}


GZIP_MAGIC = b"\x1f\x8b"


def bounded_content(upload, max_bytes: int, max_rows: int) -> bytes | None:
    """The upload's uncompressed bytes if they stay within both bounds, else None (the worker validates it).

    Reads at most ``max_bytes + 1`` uncompressed bytes, so a tiny gzip of
    millions of rows costs the web process a fixed amount of memory and time.
    A corrupt gzip returns the raw bytes: scoring then names the problem.
    """
    upload.seek(0)
    head = upload.read(2)
    upload.seek(0)
    try:
        if head == GZIP_MAGIC:
            try:
                with gzip.GzipFile(fileobj=upload, mode="rb") as unzipped:
                    data = unzipped.read(max_bytes + 1)
                if data[:2] == GZIP_MAGIC:  # gzip in gzip: scoring (and the worker) unpack one layer, so check that
                    upload.seek(0)
                    data = upload.read(max_bytes + 1)
            except (gzip.BadGzipFile, EOFError, zlib.error):
                upload.seek(0)
                return upload.read(max_bytes + 1)
        else:
            data = upload.read(max_bytes + 1)
    finally:
        upload.seek(0)
    # Lines end in LF, CRLF or (old Mac files, which scoring reads too) CR alone: the larger count is the lines.
    lines = max(data.count(b"\n"), data.count(b"\r"))
    if len(data) > max_bytes or lines > max_rows + 1:  # + 1: the header line
        return None
    return data


def megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB"


def previous_answers(user, phase) -> dict:
    """Initial values from the user's latest submission to this phase: the obvious defaults of a resubmission."""
    remembered = [f for f in submission_fields.FIELDS if f.remembered]
    last = (
        Submission.objects.filter(phase=phase, user=user, is_baseline=False)
        .only("team_id", "declarations", *(f.column_name for f in remembered))
        .order_by("-created_at")
        .first()
    )
    if last is None:
        return {}
    initial: dict[str, Any] = {"team": last.team_id}
    for f in remembered:
        initial[f.name] = submission_fields.wire_value(f, getattr(last, f.column_name))
    for key, value in (last.declarations or {}).items():
        if isinstance(value, bool):
            value = submission_fields.YES if value else submission_fields.NO
        initial[DECLARATION_PREFIX + key] = value
    return initial


class TeamSelect(forms.Select):
    """The team list: a team that cannot take the submission is shown disabled, its reason in the label."""

    def __init__(self, *args, refusals: dict[int, str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.refusals = refusals

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        reason = self.refusals.get(getattr(value, "value", value))
        if reason:
            option["attrs"]["disabled"] = True
            option["label"] = f"{label} (not available: {reason})"
        return option


class SubmissionForm(forms.Form):
    # Every check happens on the server with the same error style; no browser-only "required" bubble.
    use_required_attribute = False

    # Not required by the field: a file kept from an earlier attempt (staged_file) also counts.
    file = forms.FileField(
        label="Prediction file",
        help_text="CSV or TSV, optionally gzip-compressed (.gz).",
        required=False,
    )
    staged_file = forms.CharField(required=False, widget=forms.HiddenInput)
    team = forms.ModelChoiceField(queryset=Team.objects.none(), empty_label=None, label="Submit as team")
    # Then the declared method fields (``method_form_fields``), added per form in ``__init__``.

    def __init__(self, *args, phase, user, upload_refused: str = "", teams=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Set when the upload handler cut the file off while streaming (uploads.CappedUploadHandler).
        self.upload_refused = upload_refused
        self.phase = phase
        self.task = phase.task
        self.user = user
        self.problems: scoring.ScoringError | None = None
        self.validated_inline = False
        # A file kept from an earlier attempt (shown as "... is kept"), or None.
        self.kept: staging.Staged | None = None
        if self.is_bound:
            self.kept = staging.load(user, self.data.get("staged_file", ""))
        if teams is None:
            teams = Team.objects.for_user(user).order_by("-personal", "name")
        self.teams = teams  # the teams the user may submit for (an organized phase: the registered one)
        cast(forms.ModelChoiceField, self.fields["team"]).queryset = teams
        self.fields.update(method_form_fields())
        personal = teams.filter(personal=True).first()
        if personal is not None:
            self.fields["team"].initial = personal.pk
        # The team this user submits through on the phase, once they have one (quotas.bind).
        self.entry_team = quotas.entry_team(user, phase) if user.is_authenticated else None
        # Teams that cannot take this submission are offered disabled, with the reason.
        self.team_refusals = quotas.team_refusals(user, teams, phase) if user.is_authenticated else {}
        team_field = cast(forms.ModelChoiceField, self.fields["team"])
        team_field.widget = TeamSelect(refusals=self.team_refusals)
        team_field.widget.choices = team_field.choices
        contact = phase.challenge.contact
        if self.entry_team is not None:
            team_field.initial = self.entry_team.pk
            team_field.help_text = (
                f"You submit to this task through {self.entry_team.name}; {contact} can move you to another team."
            )
        else:
            available = [t for t in teams if t.pk not in self.team_refusals]
            if team_field.initial not in {t.pk for t in available} and available:
                team_field.initial = available[0].pk
            # The one-team rule, said before the first upload rather than after the second.
            team_field.help_text = (
                "Your first submission to this task binds you to the team you choose here: it is final, every "
                f"later submission of yours to this task goes through the same team, and only {contact} "
                "can change it."
            )
        self.fields["file"].help_text += f" At most {megabytes(settings.SUBMISSION_MAX_BYTES)}."
        if phase.requires_code_url:  # a board setting: entries must be reproducible from their code
            self.fields["code_url"].required = True
            self.fields["code_url"].help_text = "Required on this board: the code that made these predictions."
        for declaration in self.task.declarations:
            name = DECLARATION_PREFIX + declaration.key
            if declaration.choices:
                self.fields[name] = forms.MultipleChoiceField(
                    label=declaration.label,
                    help_text=declaration.help,
                    choices=[(c, c) for c in declaration.choices],
                    widget=forms.CheckboxSelectMultiple,
                    required=declaration.required,
                )
            else:
                # No default: the submitter must answer explicitly (DrugbankDDI's context features leak the label).
                self.fields[name] = _yes_no_field(declaration.label, declaration.help)
                self.fields[name].required = declaration.required
        for f in submission_fields.FIELDS:  # the page's order, so the error summary follows it
            if not f.describes_method:
                self.fields[f.name] = self.fields.pop(f.name)

    def declaration_fields(self) -> list:
        return [self[DECLARATION_PREFIX + d.key] for d in self.task.declarations]

    def method_fields(self) -> list:
        """The declared fields about the method, in order (the submit page asks them before the declarations)."""
        return [self[f.name] for f in submission_fields.FIELDS if f.describes_method]

    def entry_fields(self) -> list:
        """The declared choices about the entry itself (visibility), asked after the declarations."""
        return [self[f.name] for f in submission_fields.FIELDS if not f.describes_method]

    def clean_file(self):
        if self.upload_refused:
            raise forms.ValidationError(self.upload_refused)
        upload = self.cleaned_data["file"]
        if not upload:
            if self.kept is not None:
                return staging.open_file(self.kept)
            raise forms.ValidationError("Choose a prediction file.")
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

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("file")
        # Checked even when another field failed: only a file that passed is kept for the next attempt.
        is_kept = self.kept is not None and not self.files.get("file")
        if (
            upload is not None
            and not is_kept
            and "file" not in self.errors
            and upload.size <= settings.SUBMISSION_INLINE_VALIDATION_BYTES
        ):
            self._validate_inline(upload)
        return cleaned

    def keep_file(self) -> None:
        """After a form error: stage a newly chosen file that passed its checks (no need to choose it again)."""
        upload = self.files.get("file")
        if upload is None or "file" in self.errors:
            return
        if self.kept is not None:
            staging.discard(self.kept)
        try:
            self.kept = staging.stage(self.user, upload)
        except OSError:  # storage full or unreachable: the form's error says so; the file is chosen again
            log.warning("could not stage an upload of %s", self.user, exc_info=True)
            self.kept = None

    def error_summary(self) -> list[dict[str, object]]:
        """Every error, in form order, with the id of the field it belongs to (the summary links to it)."""
        items: list[dict[str, object]] = [
            {"id": "submission-form", "label": "", "message": e} for e in self.non_field_errors()
        ]
        for name, field in self.fields.items():
            for message in self.errors.get(name, []):
                bound = self[name]
                widget_id = bound.id_for_label or f"id_{name}"
                items.append({"id": f"field-{name}", "target": widget_id, "label": field.label, "message": message})
        return items

    def discard_kept(self) -> None:
        """After the submission is stored: close and delete the kept file it was made from."""
        if self.kept is None:
            return
        used = getattr(self, "cleaned_data", {}).get("file")
        if used is not None and not self.files.get("file"):
            used.close()
        staging.discard(self.kept)
        self.kept = None

    def _validate_inline(self, upload) -> None:
        """Check the file against the truth now; an invalid file never becomes a submission.

        Bounded by uncompressed bytes and rows (``bounded_content``); a file past
        either bound is left to the worker.
        """
        content = bounded_content(
            upload, settings.SUBMISSION_INLINE_VALIDATION_BYTES, settings.SUBMISSION_INLINE_VALIDATION_ROWS
        )
        if content is None:
            return  # past the in-request bound once uncompressed: the worker validates it, with the same checks
        try:
            truth = phase_truth(self.phase)
            scoring.align(self.task, truth, content, limits=scoring_limits(truth, self.task))
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

    @property
    def chosen_team(self) -> Team | None:
        """The team the form has selected (the posted one, else the initial one), for the binding notice."""
        value = self["team"].value()
        return next((t for t in self.teams if str(t.pk) == str(value)), None)

    def metadata(self) -> Metadata:
        data = self.cleaned_data
        declarations = {d.key: data[DECLARATION_PREFIX + d.key] for d in self.task.declarations}
        return Metadata(
            declarations=declarations,
            **{f.column_name: submission_fields.stored_value(f, data[f.name]) for f in submission_fields.FIELDS},
        )
