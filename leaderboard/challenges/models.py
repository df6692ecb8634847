"""Challenges and their phases.

Each benchmark family of the ``scoring`` registry is a *standing* challenge with
one open-ended phase per task; ``/tasks/<slug>/`` addresses that phase.
Organizer-run, time-boxed challenges (kind ``organized``) reuse the same two
models: one code path for both. ``TruthVersion`` keeps every truth a phase had.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.utils import parseaddr
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property

import scoring
from leaderboard.storage import private_storage

if TYPE_CHECKING:
    from datetime import datetime

    from django.contrib.auth.models import AnonymousUser

    from leaderboard.accounts.models import User
    from scoring.registry import Task
    from scoring.splits import SplitSpec

# The permission a staff user grants to let someone create challenges ("challenges.host_challenges").
HOST_PERMISSION = "challenges.host_challenges"


class ChallengeQuerySet(models.QuerySet):
    def organized(self) -> ChallengeQuerySet:
        return self.filter(kind=Challenge.Kind.ORGANIZED)

    def published(self) -> ChallengeQuerySet:
        return self.filter(is_published=True)

    def visible_to(self, user: User | AnonymousUser) -> ChallengeQuerySet:
        """Published challenges, plus unpublished ones the user organizes (all of them for staff)."""
        if getattr(user, "is_staff", False):
            return self
        if not getattr(user, "is_authenticated", False):
            return self.published()
        return self.filter(models.Q(is_published=True) | models.Q(organizers=user)).distinct()


class Challenge(models.Model):
    class Kind(models.TextChoices):
        STANDING = "standing", "Standing benchmark"
        ORGANIZED = "organized", "Organized challenge"

    class Registration(models.TextChoices):
        OPEN = "open", "Open to everyone"
        APPROVAL = "approval", "Approved by the organizers"
        DOMAINS = "domains", "Restricted to e-mail domains"

    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.STANDING)
    # For standing challenges: the scoring registry's family slug.
    family = models.CharField(max_length=50, blank=True)
    description = models.TextField(blank=True)
    organizers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="organized_challenges")
    created_at = models.DateTimeField(auto_now_add=True)

    # Organized challenges: Markdown pages, rendered sanitised like descriptions.
    overview = models.TextField(blank=True)
    rules = models.TextField(blank=True)
    data_description = models.TextField(blank=True)
    # Participants accept these when they register (empty: nothing to accept).
    terms = models.TextField(blank=True)
    registration_mode = models.CharField(max_length=10, choices=Registration.choices, default=Registration.OPEN)
    # With registration_mode "domains": lower-case e-mail domains, e.g. ["uni-example.edu"].
    allowed_domains = models.JSONField(default=list, blank=True)
    max_team_size = models.PositiveIntegerField(null=True, blank=True, help_text="Empty: no limit.")
    contact_email = models.EmailField(blank=True)
    # Unpublished challenges are visible to their organizers (and staff) only. Standing ones are published.
    is_published = models.BooleanField(default=False)

    objects = ChallengeQuerySet.as_manager()

    class Meta:
        ordering = ["slug"]
        permissions = [("host_challenges", "Can host challenges")]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        """An organized challenge's page; a standing benchmark family is listed on the benchmarks page."""
        if self.kind == self.Kind.ORGANIZED:
            return reverse("challenges:detail", args=[self.slug])
        return reverse("boards:benchmarks")

    def clean(self) -> None:
        domains = [str(d).strip().lower().lstrip("@") for d in self.allowed_domains or []]
        self.allowed_domains = [d for d in domains if d]
        if self.registration_mode == self.Registration.DOMAINS and not self.allowed_domains:
            raise ValidationError({"allowed_domains": "Name at least one e-mail domain, or choose another mode."})
        if self.max_team_size == 0:
            raise ValidationError({"max_team_size": "A team has at least one member; leave empty for no limit."})

    def state(self, now: datetime | None = None) -> str:
        """``open`` while a phase accepts submissions, ``upcoming`` before the first, ``between`` once a phase
        has closed (an early reveal closes it at once) and the next has not opened, ``finished`` after the last.

        Reads ``phases.all()``, so prefetch them for a list.
        """
        now = now or timezone.now()
        states = {p.state(now) for p in self.phases.all()}
        if "open" in states:
            return "open"
        if "upcoming" in states:
            return "between" if "closed" in states else "upcoming"
        return "finished"

    @property
    def contact(self) -> Contact:
        """Whom a participant asks about this challenge: its organizers, or BOARD_CONTACT on the standing boards."""
        if self.kind == self.Kind.ORGANIZED:
            return Contact(f"the organizers of {self.title}", self.contact_email)
        name, address = parseaddr(settings.BOARD_CONTACT)
        return Contact(name or address or settings.BOARD_CONTACT, address)

    def is_organizer(self, user: User | AnonymousUser) -> bool:
        """Whether ``user`` may manage this challenge (an organizer of it, or staff)."""
        if not getattr(user, "is_authenticated", False):
            return False
        return bool(user.is_staff) or self.organizers.filter(pk=user.pk or 0).exists()


@dataclass(frozen=True)
class Contact:
    """A name to show, and an e-mail address to link when there is one."""

    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} ({self.email})" if self.email and self.email != self.name else self.name


class PhaseQuerySet(models.QuerySet):
    def standing(self) -> PhaseQuerySet:
        return self.filter(challenge__kind=Challenge.Kind.STANDING)

    def synthetic_task_slugs(self) -> set[str]:
        """The task slugs of these phases whose test labels are synthetic demo data (the lists mark them)."""
        return set(self.filter(truth_is_synthetic=True).values_list("task_slug", flat=True))

    def open_now(self) -> PhaseQuerySet:
        now = timezone.now()
        return self.filter(starts_at__lte=now).filter(models.Q(ends_at__isnull=True) | models.Q(ends_at__gt=now))


def truth_upload_to(phase: Phase, filename: str) -> str:
    return f"truth/{phase.challenge.slug}/{phase.slug}/{filename}"


class Phase(models.Model):
    """A scored period of a challenge: standing (open-ended, no split) and organized phases alike."""

    class BoardMode(models.TextChoices):
        BEST = "best", "Best submission per team and method"
        LATEST = "latest", "Latest submission per team and method"

    class PublicBoard(models.TextChoices):
        LIVE = "live", "Live during the phase"
        HIDDEN = "hidden", "Hidden until the end"

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="phases")
    slug = models.SlugField(max_length=100)
    title = models.CharField(max_length=200)
    # A slug of scoring.TASKS: which task, metrics and file format this phase uses.
    task_slug = models.CharField(max_length=100, db_index=True)
    starts_at = models.DateTimeField(default=timezone.now)
    ends_at = models.DateTimeField(null=True, blank=True)
    daily_limit = models.PositiveIntegerField(default=5)
    total_limit = models.PositiveIntegerField(default=100)
    board_mode = models.CharField(max_length=10, choices=BoardMode.choices, default=BoardMode.BEST)
    # Phases of a challenge run in this order (development before test); ties by slug.
    order = models.PositiveIntegerField(default=0)
    # Submissions of one team being scored at once; empty: no limit.
    concurrent_limit = models.PositiveIntegerField(null=True, blank=True)
    final_selection_allowed = models.BooleanField(default=False)
    final_selection_count = models.PositiveIntegerField(default=2)
    public_board = models.CharField(max_length=10, choices=PublicBoard.choices, default=PublicBoard.LIVE)
    # A board setting: every submission must link its code (the submit form refuses one without).
    requires_code_url = models.BooleanField(
        default=False, help_text="Refuse submissions without a code URL (so entries can be reproduced)."
    )
    # Kept by the literature app: whether the task has published results, so a board without any never looks.
    has_published_results = models.BooleanField(default=False, editable=False)
    # Ladder mode (Blum and Hardt 2015): a shown public score moves only when it beats the team's best
    # by more than this. Empty: off.
    ladder_threshold = models.FloatField(null=True, blank=True)
    # scoring.SplitSpec.to_dict(): {"usage": true} or {"fraction": F, "seed": S}; empty: no private part.
    split = models.JSONField(null=True, blank=True)
    # Hidden test labels, in private storage.
    truth_file = models.FileField(upload_to=truth_upload_to, storage=private_storage, blank=True)
    truth_sha256 = models.CharField(max_length=64, blank=True)
    truth_is_synthetic = models.BooleanField(default=False)
    truth_source = models.CharField(max_length=500, blank=True)
    truth_updated_at = models.DateTimeField(null=True, blank=True)
    # Row counts of the truth, written at import so pages never parse the file: {"rows": n, "per_seed": {seed: n}}.
    truth_counts = models.JSONField(default=dict, blank=True)
    # The private board is published at reveal_at (empty: at ends_at); organizers may reveal early or
    # postpone. revealed_at is set once, by the reveal (boards.reveal), and makes private scores visible.
    reveal_at = models.DateTimeField(null=True, blank=True)
    revealed_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = PhaseQuerySet.as_manager()

    class Meta:
        ordering = ["challenge", "order", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "slug"], name="phase_unique_slug_per_challenge"),
            models.CheckConstraint(
                condition=models.Q(ladder_threshold__isnull=True) | models.Q(ladder_threshold__gte=0),
                name="phase_ladder_threshold_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.challenge.slug}/{self.slug}"

    def get_absolute_url(self) -> str:
        """The phase's leaderboard: an organized phase's own board, a standing phase's task page."""
        if self.challenge.kind == Challenge.Kind.ORGANIZED:
            return reverse("boards:phase", args=[self.challenge.slug, self.slug])
        return reverse("boards:task", args=[self.task_slug])

    def state(self, now: datetime | None = None) -> str:
        """``upcoming``, ``open`` or ``closed`` at ``now``: the one rule for a phase's dates (``open_now`` in SQL)."""
        now = now or timezone.now()
        if self.starts_at > now:
            return "upcoming"
        if self.ends_at is not None and self.ends_at <= now:
            return "closed"
        return "open"

    @property
    def task(self) -> Task:

        return scoring.get_task(self.task_slug)

    @property
    def has_truth(self) -> bool:
        return bool(self.truth_file)

    @property
    def truth_is_hidden(self) -> bool:
        """Whether only the organizers hold the labels (an organized challenge's truth).

        A hidden truth's file hash, name and row order stay with the organizers: anyone holding
        the hash could confirm a guessed truth (docs/challenges.md, "Confidentiality").
        """
        return self.challenge.kind == Challenge.Kind.ORGANIZED

    @cached_property
    def truth_version_number(self) -> int:
        """The current truth's place among the phase's truth files, 1 for the first (what participants see)."""
        current = self.truth_versions.filter(sha256=self.truth_sha256).values("created_at")[:1]
        return self.truth_versions.filter(created_at__lte=models.Subquery(current)).count() or 1

    @property
    def truth_provenance(self) -> dict | None:
        """What the pages and exports say this phase is scored against (None without a truth).

        Published labels are named by their file's sha256; a hidden truth by its version number only.
        """
        if not self.has_truth:
            return None
        hidden = self.truth_is_hidden
        if self.truth_is_synthetic:
            kind = "synthetic demo labels"
        else:
            kind = "the organizers' hidden labels" if hidden else "real published labels"
        return {
            "source": "" if hidden else self.truth_source,
            "sha256": "" if hidden else self.truth_sha256,
            "sha256_prefix": "" if hidden else self.truth_sha256[:12],
            "version": self.truth_version_number if hidden else None,
            "hidden": hidden,
            "synthetic": self.truth_is_synthetic,
            "kind": kind,
            "rows": (self.truth_counts or {}).get("rows"),
        }

    @property
    def is_open(self) -> bool:
        """Whether the phase takes submissions now (started and not ended)."""
        return self.state() == "open"

    @property
    def is_revealed(self) -> bool:
        """Whether private scores are public: set once by the reveal (``leaderboard.boards.reveal``)."""
        return self.revealed_at is not None

    def public_board_hidden_for(self, is_organizer: bool) -> bool:
        """Whether the public board is hidden from this viewer: ``public_board`` hidden, before the reveal."""
        return self.public_board == Phase.PublicBoard.HIDDEN and not self.is_revealed and not is_organizer

    def private_visible_to(self, is_organizer: bool) -> bool:
        """Whether private and all-rows values may be shown: to organizers always, to others after the reveal."""
        return is_organizer or self.is_revealed

    @property
    def split_spec(self) -> SplitSpec | None:
        """The phase's ``scoring.SplitSpec``, or None when every row is public (standing phases)."""
        if not self.split:
            return None
        return scoring.SplitSpec.from_dict(self.split)

    def clean(self) -> None:

        errors = {}
        if self.task_slug not in scoring.TASKS:
            errors["task_slug"] = f"Unknown task {self.task_slug!r}."
        if self.ends_at is not None and self.starts_at is not None and self.ends_at <= self.starts_at:
            errors["ends_at"] = "A phase ends after it starts."
        if self.split:
            try:
                scoring.SplitSpec.from_dict(self.split)
            except scoring.ScoringError as error:
                errors["split"] = str(error)
        if self.final_selection_allowed and self.final_selection_count < 1:
            errors["final_selection_count"] = "Allow at least one final submission."
        if self.ladder_threshold is not None and self.ladder_threshold < 0:
            errors["ladder_threshold"] = "The ladder threshold is a non-negative score difference."
        if errors:
            raise ValidationError(errors)


def truth_version_upload_to(version: TruthVersion, filename: str) -> str:
    return f"truth/{version.phase.challenge.slug}/{version.phase.slug}/versions/{filename}"


class TruthVersion(models.Model):
    """Every truth file a phase has had: replacing the truth keeps the old one, and each score names its version.

    The phase's ``truth_file`` / ``truth_sha256`` are the current version.
    """

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="truth_versions")
    file = models.FileField(upload_to=truth_version_upload_to, storage=private_storage, max_length=300)
    sha256 = models.CharField(max_length=64)
    n_rows = models.PositiveIntegerField(default=0)
    source = models.CharField(max_length=500, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["phase", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "sha256"], name="truth_version_unique_sha_per_phase"),
        ]

    def __str__(self) -> str:
        return f"{self.phase} truth {self.sha256[:12]}"


class Registration(models.Model):
    """A team's registration for an organized challenge: the team that registers is the one that submits.

    ``status`` is the state machine: pending (approval mode) -> approved | rejected; approved ->
    disqualified by an organizer, with a ``reason`` the team sees.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for approval"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        DISQUALIFIED = "disqualified", "Disqualified"

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="registrations")
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="registrations")
    # The member who registered the team (and accepted the terms for it).
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="registrations")
    status = models.CharField(max_length=15, choices=Status.choices, default=Status.APPROVED)
    # Why an organizer rejected or disqualified the team; shown to the team.
    reason = models.TextField(blank=True)
    accepted_terms_at = models.DateTimeField(null=True, blank=True)
    # Announcements of this challenge are e-mailed to the registering member when set.
    wants_announcements = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["challenge", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "team"], name="registration_one_per_team"),
        ]
        indexes = [
            # The participants page: a challenge's registrations by status.
            models.Index(fields=["challenge", "status"], name="registration_status_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.team} in {self.challenge} ({self.status})"


class Announcement(models.Model):
    """A message from the organizers, shown on the challenge page (Markdown, sanitised)."""

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="announcements")
    title = models.CharField(max_length=200)
    body = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    # Set when the e-mails to participants who want them were handed to the worker.
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["challenge", "-created_at"]

    def __str__(self) -> str:
        return self.title


class AuditEntry(models.Model):
    """One organizer action on a challenge: who, what, when, why. Written by ``challenges.audit.record``."""

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="audit_entries")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # A short verb, e.g. "truth.upload", "submission.hide", "team.disqualify", "phase.reveal".
    action = models.CharField(max_length=50)
    # What it acted on, as shown on the page (e.g. "submission 1a2b3c4d", "team Baselines", "phase test").
    target = models.CharField(max_length=300, blank=True)
    reason = models.TextField(blank=True)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["challenge", "-created_at"]
        verbose_name_plural = "audit entries"
        indexes = [models.Index(fields=["challenge", "created_at"], name="audit_challenge_time_idx")]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target}"

    @property
    def changes(self) -> list[tuple[str, str, str]]:
        """(field, before, after) of an edit, as the audit log shows them (``details["changes"]``)."""
        changes = (self.details or {}).get("changes") or {}
        return [
            (name, _shown(values.get("before")), _shown(values.get("after")))
            for name, values in changes.items()
            if isinstance(values, dict)
        ]


def _shown(value) -> str:
    if value is None or value == "":
        return "(empty)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
