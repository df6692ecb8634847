"""Forms of the moderation pages: they validate and normalise; the services in ``moderation`` decide."""

from __future__ import annotations

from typing import cast

from django import forms

from leaderboard.organize.moderation import DECISIONS, MAX_REASON, RERUN_WHICH, SUBMISSION_ACTIONS
from leaderboard.submissions.models import Submission

REASON_HELP = "The team sees this on its page."


class SubmissionFilterForm(forms.Form):
    """The submissions table's filters (GET); an invalid value is reported and ignored."""

    phase = forms.ChoiceField(required=False)
    status = forms.ChoiceField(required=False, choices=[("", "any status"), *Submission.Status.choices])
    team = forms.CharField(required=False, max_length=100, help_text="name or slug, or part of a name")
    failed = forms.BooleanField(required=False, label="Failed only")

    def __init__(self, *args, phases, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["phase"]).choices = [
            ("", "every phase"),
            *((p.slug, p.title) for p in phases),
        ]

    def value(self, name: str):
        """The cleaned value of a valid field (invalid fields filter nothing)."""
        if not self.is_bound:
            return self.fields[name].initial or ""
        self.is_valid()
        return self.cleaned_data.get(name) if name not in self.errors else ""


class SubmissionActionForm(forms.Form):
    action = forms.ChoiceField(choices=[(a, a) for a in SUBMISSION_ACTIONS])
    reason = forms.CharField(required=False, max_length=MAX_REASON, widget=forms.Textarea(attrs={"rows": 2}))
    note = forms.CharField(required=False, max_length=300)
    url = forms.URLField(required=False, assume_scheme="https")


class RerunForm(forms.Form):
    phase = forms.ChoiceField()
    which = forms.ChoiceField(choices=[(w, w) for w in RERUN_WHICH])
    reason = forms.CharField(required=False, max_length=MAX_REASON)

    def __init__(self, *args, phases, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["phase"]).choices = [(p.slug, p.title) for p in phases]


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[(d, d) for d in DECISIONS])
    reason = forms.CharField(required=False, max_length=MAX_REASON, widget=forms.Textarea(attrs={"rows": 2}))


class AnnouncementForm(forms.Form):
    title = forms.CharField(max_length=200)
    body = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 8}), help_text="Markdown; shown sanitised."
    )
    email = forms.BooleanField(
        required=False, initial=True, label="E-mail it to the registered participants who asked for announcements"
    )


def first_error(form: forms.Form) -> str:
    """The form's first error as one sentence, with the field it is about."""
    for field, errors in form.errors.items():
        label = "" if field == "__all__" else f"{form.fields[field].label or field.replace('_', ' ').capitalize()}: "
        return f"{label}{errors[0]}"
    return "The form is invalid."
