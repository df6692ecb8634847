"""The organizer forms: a challenge, a phase, a co-organizer, a truth file, a bundle.

Dates are entered and shown in UTC (the site's time zone), and every error names
its field. The phase form's task is a choice from the scoring registry, so an
unknown task cannot be submitted.
"""

from __future__ import annotations

import datetime as dt
from typing import cast

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

import scoring
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.organize.services import overlapping_phase

DATETIME_FORMAT = "%Y-%m-%d %H:%M"
DATETIME_HINT = "UTC, as YYYY-MM-DD HH:MM (e.g. 2027-03-01 12:00)."
TRUTH_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz", ".gz")


class UTCDateTimeField(forms.DateTimeField):
    """A date and time typed in UTC; the widget shows stored values in UTC too."""

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("input_formats", [DATETIME_FORMAT, "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d"])
        widget = forms.DateTimeInput(format=DATETIME_FORMAT, attrs={"placeholder": "YYYY-MM-DD HH:MM"})
        kwargs.setdefault("widget", widget)
        kwargs.setdefault("help_text", DATETIME_HINT)
        super().__init__(**kwargs)

    def to_python(self, value):
        moment = super().to_python(value)
        if moment is not None:
            moment = moment.astimezone(dt.UTC)  # TIME_ZONE is UTC: typed values are already in UTC
        return moment


class DomainsField(forms.Field):
    """E-mail domains, one per line or separated by commas; stored lower-case, without "@"."""

    widget = forms.Textarea

    def to_python(self, value) -> list[str]:
        text = str(value or "").strip()
        domains = [d.strip().lower().lstrip("@") for d in text.replace(",", "\n").splitlines()]
        return [d for d in domains if d]

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list) else value

    def validate(self, value) -> None:
        for domain in value:
            if "." not in domain or " " in domain or "@" in domain:
                raise ValidationError(f'"{domain}" is not an e-mail domain (write e.g. uni-example.edu).')


class ChallengeForm(forms.ModelForm):
    """Create and edit a challenge: the same fields on /challenges/new/ and the manage page."""

    use_required_attribute = False
    allowed_domains = DomainsField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Allowed e-mail domains",
        help_text="With registration restricted to e-mail domains: one per line, e.g. uni-example.edu.",
    )

    class Meta:
        model = Challenge
        fields = [
            "title", "slug", "overview", "rules", "data_description", "terms", "registration_mode",
            "allowed_domains", "max_team_size", "contact_email", "is_published",
        ]  # fmt: skip
        labels = {
            "slug": "Address (slug)",
            "data_description": "Data",
            "terms": "Terms participants accept",
            "registration_mode": "Registration",
            "max_team_size": "Maximum team size",
            "contact_email": "Contact e-mail",
            "is_published": "Published",
        }
        help_texts = {
            "slug": "Lower-case letters, digits and hyphens: the last part of the challenge's address.",
            "overview": "Markdown. Links and basic formatting are kept; anything else is removed.",
            "rules": "Markdown.",
            "data_description": "Markdown: what the data is, where the inputs come from, its licence.",
            "terms": "Markdown. Empty: nothing to accept. Participants accept these when they register.",
            "max_team_size": "Empty: no limit.",
            "is_published": "An unpublished challenge is visible to its organizers and staff only.",
        }
        widgets = {
            "overview": forms.Textarea(attrs={"rows": 6}),
            "rules": forms.Textarea(attrs={"rows": 5}),
            "data_description": forms.Textarea(attrs={"rows": 5}),
            "terms": forms.Textarea(attrs={"rows": 4}),
        }

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"].lower()
        # "new" and "import" are the organizer pages' own addresses under /challenges/.
        if slug in ("new", "import"):
            raise ValidationError(f'"{slug}" is reserved; choose another address.')
        return slug

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("registration_mode") == Challenge.Registration.DOMAINS and not cleaned.get("allowed_domains"):
            self.add_error("allowed_domains", "Name at least one e-mail domain, or choose another registration mode.")
        if cleaned.get("max_team_size") == 0:
            self.add_error("max_team_size", "A team has at least one member; leave it empty for no limit.")
        return cleaned

    def values(self) -> dict:
        return {name: self.cleaned_data[name] for name in self.Meta.fields}


class OrganizerForm(forms.Form):
    username = forms.CharField(max_length=150, label="Username")


SPLIT_CHOICES = [
    ("none", "No split: every test row is public"),
    ("usage", "A usage column in the truth file (public / private per row)"),
    ("fraction", "A public fraction, chosen by a hash of each row's key and a seed"),
]


class PhaseForm(forms.ModelForm):
    """Every setting of a phase; ``clean`` checks the dates against the challenge's other phases."""

    use_required_attribute = False
    task_slug = forms.ChoiceField(label="Task", choices=())
    starts_at = UTCDateTimeField(label="Starts (UTC)")
    ends_at = UTCDateTimeField(label="Ends (UTC)", required=False, help_text=DATETIME_HINT + " Empty: no end.")
    reveal_at = UTCDateTimeField(
        label="Reveal the private board at (UTC)",
        required=False,
        help_text=DATETIME_HINT + " Empty: when the phase ends.",
    )
    split_mode = forms.ChoiceField(
        label="Public/private split", choices=SPLIT_CHOICES, widget=forms.RadioSelect, initial="none"
    )
    split_fraction = forms.FloatField(
        label="Public fraction",
        required=False,
        min_value=0.01,
        max_value=0.99,
        help_text="With a fraction split: the share of test rows scored live, e.g. 0.3 (the rest is private).",
    )
    split_seed = forms.IntegerField(
        label="Split seed", required=False, min_value=0, initial=0, help_text="Any whole number; keep it secret."
    )

    class Meta:
        model = Phase
        fields = [
            "title", "slug", "task_slug", "starts_at", "ends_at", "daily_limit", "total_limit", "concurrent_limit",
            "board_mode", "final_selection_allowed", "final_selection_count", "public_board", "ladder_threshold",
            "reveal_at",
        ]  # fmt: skip
        labels = {
            "slug": "Address (slug)",
            "daily_limit": "Submissions per team per day",
            "total_limit": "Submissions per team in all",
            "concurrent_limit": "Submissions per team scored at once",
            "board_mode": "Board",
            "final_selection_allowed": "Teams choose their final submissions",
            "final_selection_count": "Final submissions per team",
            "public_board": "Public board",
            "ladder_threshold": "Ladder threshold",
        }
        help_texts = {
            "slug": "Lower-case letters, digits and hyphens, e.g. development or test.",
            "concurrent_limit": "Empty: no limit.",
            "final_selection_count": "A team that selects none is ranked by its best ones by public score.",
            "ladder_threshold": (
                "Empty: off. With a threshold, a team's shown public score changes only when a new submission "
                "beats its previous best by more than this (Blum and Hardt 2015, the Ladder), which blunts "
                "probing the public rows with many small variations."
            ),
        }
        widgets = {"board_mode": forms.RadioSelect, "public_board": forms.RadioSelect}

    def __init__(self, *args, challenge: Challenge, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.challenge = challenge
        task_field = cast(forms.ChoiceField, self.fields["task_slug"])
        task_field.choices = [(t.slug, f"{t.slug}: {t.dataset_name} ({t.split})") for t in scoring.TASKS.values()]
        spec = self.instance.split_spec if self.instance.pk else None
        if spec is not None and not self.is_bound:
            self.initial["split_mode"] = "usage" if spec.usage_column else "fraction"
            self.initial["split_fraction"] = spec.fraction
            self.initial["split_seed"] = spec.seed
        for name in ("starts_at", "ends_at", "reveal_at"):
            value = self.initial.get(name)
            if isinstance(value, dt.datetime):
                self.initial[name] = value.astimezone(dt.UTC)
        if not self.instance.pk and not self.is_bound:
            self.initial.setdefault("starts_at", timezone.now().replace(second=0, microsecond=0))

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"].lower()
        if slug == "new":
            raise ValidationError('"new" is reserved; choose another address.')
        if self.challenge.phases.filter(slug=slug).exclude(pk=self.instance.pk or 0).exists():
            raise ValidationError(f'This challenge already has a phase "{slug}".')
        return slug

    def clean_task_slug(self) -> str:
        task = self.cleaned_data["task_slug"]
        phase = self.instance
        if phase.pk and task != phase.task_slug and phase.submissions.exists():
            raise ValidationError("This phase has submissions, so it keeps its task; create another phase instead.")
        return task

    def clean(self):
        cleaned = super().clean()
        starts, ends = cleaned.get("starts_at"), cleaned.get("ends_at")
        if starts and ends and ends <= starts:
            self.add_error("ends_at", "The phase must end after it starts.")
        elif starts and "ends_at" not in self.errors and cleaned.get("task_slug"):
            other = overlapping_phase(
                self.challenge, starts, ends, task_slug=cleaned["task_slug"], exclude=self.instance.pk
            )
            if other is not None:
                window = f"{other.starts_at:%Y-%m-%d %H:%M}" + (
                    f" to {other.ends_at:%Y-%m-%d %H:%M} UTC" if other.ends_at else " UTC with no end"
                )
                self.add_error(
                    "starts_at" if other.starts_at <= starts else "ends_at",
                    f'These dates overlap the phase "{other.title}" ({window}), which scores the same task; phases '
                    "of one task run one after another (phases of different tasks may run at once).",
                )
        reveal = cleaned.get("reveal_at")
        if reveal and starts and reveal < starts:
            self.add_error("reveal_at", "The private board is revealed after the phase starts.")
        if cleaned.get("final_selection_allowed") and (cleaned.get("final_selection_count") or 0) < 1:
            self.add_error("final_selection_count", "Allow at least one final submission.")
        cleaned["split"] = self._split(cleaned)
        return cleaned

    def _split(self, cleaned) -> dict | None:
        mode = cleaned.get("split_mode")
        if mode == "usage":
            return scoring.SplitSpec.usage().to_dict()
        if mode == "fraction":
            fraction, seed = cleaned.get("split_fraction"), cleaned.get("split_seed")
            if fraction is None and "split_fraction" not in self.errors:
                self.add_error("split_fraction", "Give the public fraction, e.g. 0.3.")
            if fraction is None:
                return None
            return scoring.SplitSpec.hashed(fraction, seed or 0).to_dict()
        return None

    def values(self) -> dict:
        values = {name: self.cleaned_data[name] for name in self.Meta.fields}
        values["split"] = self.cleaned_data["split"]
        return values


def _checked_file(upload, *, required: bool = True):
    if upload is None and not required:
        return None
    if not (upload.name or "").lower().endswith(TRUTH_SUFFIXES):
        raise ValidationError("Upload a .csv or .tsv file (optionally .gz compressed).")
    if upload.size == 0:
        raise ValidationError("The file is empty.")
    return upload


GROUPS_LABEL = "Class groups (class,group CSV)"
GROUPS_HINT = (
    "One line per class, class (name or 0-based index) and group (head, middle, tail or open). "
    "The truth is stored with a group column filled from it, replacing any group column of the file."
)


class TruthForm(forms.Form):
    """The truth upload; the page offers ``groups`` for class-group tasks only (``replace_truth`` refuses others)."""

    use_required_attribute = False
    file = forms.FileField(label="Truth file", help_text="CSV or TSV with the task's columns, optionally .gz.")
    groups = forms.FileField(label=GROUPS_LABEL, help_text=f"Optional. {GROUPS_HINT}", required=False)

    def clean_file(self):
        return _checked_file(self.cleaned_data["file"])

    def clean_groups(self):
        return _checked_file(self.cleaned_data.get("groups"), required=False)


class ClassGroupsForm(forms.Form):
    """A ``class,group`` mapping applied to the phase's current truth."""

    use_required_attribute = False
    # Not "groups": the truth form on the same page has that field (one id per page).
    mapping = forms.FileField(label=GROUPS_LABEL, help_text=GROUPS_HINT)

    def clean_mapping(self):
        return _checked_file(self.cleaned_data["mapping"])


class BundleForm(forms.Form):
    use_required_attribute = False
    bundle = forms.FileField(label="Bundle (.zip)", help_text="challenge.yaml plus its truth files, as documented.")

    def clean_bundle(self):
        upload = self.cleaned_data["bundle"]
        if not (upload.name or "").lower().endswith(".zip"):
            raise ValidationError("Upload the bundle as a .zip file.")
        return upload
