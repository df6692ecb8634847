"""Submissions and their results.

The Submission row is the state machine: queued -> running -> scored | failed.
Workers claim a row with a conditional UPDATE, so a duplicate delivery is a
no-op; the database, not the broker, is the source of truth.
"""

from __future__ import annotations

import math
import uuid
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse

from leaderboard.challenges.models import Registration
from leaderboard.storage import private_storage
from scoring import keys as result_keys
from scoring import replicates as scoring_replicates
from scoring import submission_fields
from scoring.splits import ALL, PRIVATE, PUBLIC

if TYPE_CHECKING:
    from leaderboard.accounts.models import Team
    from leaderboard.challenges.models import Phase


def submission_upload_to(submission: Submission, filename: str) -> str:
    return f"submissions/{submission.phase_id}/{submission.id}/{filename}"


class SubmissionQuerySet(models.QuerySet):
    def scored(self) -> SubmissionQuerySet:
        return self.filter(status=Submission.Status.SCORED)

    def for_task(self, task_slug: str) -> SubmissionQuerySet:
        return self.filter(phase__task_slug=task_slug)

    def charged(self) -> SubmissionQuerySet:
        """Submissions that count against a quota.

        Everything but failures: a platform failure is our fault, and an invalid
        file (found by the worker for uploads too large to check in the request)
        is treated like one rejected by the form, which never costs quota.
        """
        return self.exclude(status=Submission.Status.FAILED)

    def failed(self) -> SubmissionQuerySet:
        return self.filter(status=Submission.Status.FAILED)

    def queued(self) -> SubmissionQuerySet:
        return self.filter(status=Submission.Status.QUEUED)

    def oldest_queued_at(self):
        """When the submission waiting longest for a scoring worker was queued (None: nothing waits)."""
        from django.db.models.functions import Coalesce

        return self.queued().aggregate(oldest=models.Min(Coalesce("queued_at", "created_at")))["oldest"]

    def running(self) -> SubmissionQuerySet:
        return self.filter(status=Submission.Status.RUNNING)

    def on_boards(self) -> SubmissionQuerySet:
        """Scored submissions a board may rank: not hidden by a moderator, and not of a team
        disqualified from the challenge (``challenges.Registration``). The boards' one filter."""
        disqualified = Registration.objects.filter(
            challenge_id=OuterRef("phase__challenge_id"),
            team_id=OuterRef("team_id"),
            status=Registration.Status.DISQUALIFIED,
        )
        return self.filter(status=Submission.Status.SCORED, is_hidden=False).filter(~Exists(disqualified))

    def for_team_phase(self, team: Team, phase: Phase) -> SubmissionQuerySet:
        return self.filter(team=team, phase=phase)

    def for_user_phase(self, user, phase: Phase) -> SubmissionQuerySet:
        return self.filter(user=user, phase=phase)


class Submission(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SCORED = "scored", "Scored"
        FAILED = "failed", "Failed"

    class ErrorKind(models.TextChoices):
        NONE = "", "None"
        INVALID = "invalid", "Invalid submission"
        PLATFORM = "platform", "Platform error"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    phase = models.ForeignKey("challenges.Phase", on_delete=models.PROTECT, related_name="submissions")
    team = models.ForeignKey("accounts.Team", on_delete=models.PROTECT, related_name="submissions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="submissions")

    file = models.FileField(upload_to=submission_upload_to, storage=private_storage, max_length=300)
    file_name = models.CharField(max_length=255)
    file_size = models.BigIntegerField(default=0)
    sha256 = models.CharField(max_length=64)

    # The method fields a submitter fills in: declared, with their labels, help and validation, in
    # scoring.submission_fields (a test holds these columns to it); "" or None = not said.
    method_name = models.CharField(max_length=100)
    description = models.TextField(blank=True)  # Markdown, rendered sanitised
    paper_url = models.URLField(blank=True)
    code_url = models.URLField(blank=True)
    code_commit_url = models.URLField(max_length=300, blank=True)
    model_family = models.CharField(
        max_length=20, choices=submission_fields.field("model_family").choice_pairs, blank=True
    )
    n_parameters = models.BigIntegerField(null=True, blank=True)
    training_hardware = models.CharField(max_length=100, blank=True)
    # Pre-training on data beyond the benchmark's own training set counts as external data.
    uses_external_data = models.BooleanField(default=False)
    is_public = models.BooleanField(default=True)  # the "visibility" field
    # Task-specific declarations keyed by scoring's Declaration.key.
    declarations = models.JSONField(default=dict, blank=True)
    is_baseline = models.BooleanField(default=False)
    # Staff reproduced the result from the linked code (set in the admin, never by the submitter).
    is_verified = models.BooleanField(default=False)
    verification_note = models.CharField(
        max_length=300, blank=True, help_text='e.g. "reproduced from the linked code at commit 1a2b3c4"'
    )
    verification_url = models.URLField(blank=True, help_text="The reproduction: a log, a notebook, a commit.")
    verified_at = models.DateTimeField(null=True, blank=True)

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    # The Celery queue its scoring waits on (``queueing.scoring_queue_for``: large and compressed uploads
    # apart), chosen once at upload; the queue position counts this queue only.
    scoring_queue = models.CharField(max_length=20, default="scoring")
    error_kind = models.CharField(max_length=10, choices=ErrorKind.choices, default="", blank=True)
    error_message = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # Set by each claim; only the holder of the current token may write the outcome.
    claim_token = models.UUIDField(null=True, blank=True, editable=False)
    # The Celery task id of the current claim: the same message delivered again is a redelivery.
    task_id = models.CharField(max_length=255, blank=True)
    worker_host = models.CharField(max_length=255, blank=True)
    scorer_version = models.CharField(max_length=20, blank=True)
    # Whether the submitter gets the result e-mail when this scoring ends. A re-score after a truth fix
    # clears it: each participant gets one message about the fix instead of one per submission.
    notify_result = models.BooleanField(default=True)
    # The truth file the stored score was computed against (replacing a truth re-scores the phase).
    truth_version = models.ForeignKey(
        "challenges.TruthVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="submissions"
    )

    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    # When the row was last handed to the broker; the sweep re-sends rows whose message may be lost.
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    # Denormalised from the results for ranking and lists.
    primary_value = models.FloatField(null=True, blank=True)
    # The full structured report from scoring (per-class tables, confusion matrices, curves).
    # On a phase with a private part: the report of the public rows only.
    report = models.JSONField(null=True, blank=True)
    # A phase with a private part: the private rows' primary value and report, shown nowhere
    # but to organizers until the phase's reveal (Phase.revealed_at).
    private_primary_value = models.FloatField(null=True, blank=True)
    private_report = models.JSONField(null=True, blank=True)

    # Final selection (Phase.final_selection_allowed): the team's own choice, until the deadline.
    selected_final = models.BooleanField(default=False)

    class FinalBy(models.TextChoices):
        NONE = "", "Not final"
        CHOSEN = "chosen", "Chosen by the team"
        AUTO = "auto", "Best public score (the team chose none)"

    # Set by the reveal: whether (and why) the submission entered the private board.
    final_by = models.CharField(max_length=10, choices=FinalBy.choices, default="", blank=True)

    # Moderation: a hidden submission is on no board; the team sees the reason on its page.
    is_hidden = models.BooleanField(default=False)
    hidden_reason = models.TextField(blank=True)

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # Quota counts: submissions of a team on a phase since a time.
            models.Index(fields=["phase", "team", "created_at"], name="submission_quota_idx"),
            # Per-user quota counts: submissions of a user on a phase since a time.
            models.Index(fields=["phase", "user", "created_at"], name="submission_user_quota_idx"),
            # The sweep: queued or running rows older than a threshold.
            models.Index(fields=["status", "queued_at"], name="submission_status_idx"),
            # The sweep's re-enqueue query: queued rows last sent to the broker before a cutoff.
            models.Index(fields=["status", "enqueued_at"], name="submission_enqueued_idx"),
            # A board update's summary: count and latest date of a phase's public scored submissions
            # (an index-only scan instead of reading the phase's rows).
            models.Index(fields=["phase", "status", "is_public", "created_at"], name="submission_public_activity_idx"),
        ]
        constraints = [
            # A verified badge always says how it was verified.
            models.CheckConstraint(
                condition=Q(is_verified=False) | ~Q(verification_note="") | ~Q(verification_url=""),
                name="submission_verified_says_how",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.method_name} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("submissions:detail", args=[self.pk])

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.SCORED, self.Status.FAILED)

    def queue_position(self) -> int | None:
        """1 for the next submission its scoring queue will start; None unless queued.

        Counted in its own queue (``scoring_queue``: small and large uploads wait apart), from the
        time it was queued (a re-scored submission queues again), so the number falls as the rows
        ahead start.
        """
        if self.status != self.Status.QUEUED:
            return None
        since = self.queued_at or self.created_at
        ahead = Q(queued_at__lt=since) | Q(queued_at__isnull=True, created_at__lt=since)
        return Submission.objects.queued().filter(scoring_queue=self.scoring_queue).filter(ahead).count() + 1


class ResultQuerySet(models.QuerySet):
    def overall(self) -> ResultQuerySet:
        """Values over all seeds (no ``seed/{k}/...`` rows)."""
        return self.filter(seed__isnull=True)

    def by_submission(self, keys: Iterable[str] | None = None, *, part: str = PUBLIC) -> dict[str, dict[str, float]]:
        """``{submission id: {scoring key: value}}``: the one reader of stored results.

        Per-seed rows come back as scoring names them (``seed/{k}/{metric}``).
        ``keys`` limits the answer to those scoring keys (None: every key).
        ``part`` is the test rows the values were computed on: ``public`` (the
        default, and every row of a phase without a split), ``private`` or
        ``all``. Only organizers, or anyone after the reveal, may be shown the
        last two (the callers decide; see ``Result.Part``).
        """
        rows = self.filter(part=part)
        wanted = None if keys is None else set(keys)
        if wanted is not None:
            rows = rows.filter(key__in={result_keys.split_seed(key)[0] for key in wanted} | wanted)
        out: dict[str, dict[str, float]] = defaultdict(dict)
        for submission_id, key, seed, value in rows.values_list("submission_id", "key", "seed", "value").iterator(
            chunk_size=5000
        ):
            full = result_keys.join_seed(key, seed)
            if (wanted is None or full in wanted) and value is not None and math.isfinite(value):
                out[str(submission_id)][full] = value
        return dict(out)


class Result(models.Model):
    """One number: a metric key as scoring names it, for one seed or for all (seed null).

    Stored long: ``seed/{k}/{metric}`` is the row (metric, seed k). ``rows_for``
    writes that shape and ``Result.objects.by_submission`` reads it back.
    """

    class Part(models.TextChoices):
        # A phase without a private part stores its values as "public" only.
        PUBLIC = PUBLIC, "Public test rows"
        PRIVATE = PRIVATE, "Private test rows"
        ALL = ALL, "All test rows"

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="results")
    part = models.CharField(max_length=8, choices=Part.choices, default=PUBLIC)
    key = models.CharField(max_length=120)
    seed = models.SmallIntegerField(null=True, blank=True)
    value = models.FloatField()

    objects = ResultQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "part", "key"], condition=Q(seed__isnull=True), name="result_unique_key_overall"
            ),
            models.UniqueConstraint(
                fields=["submission", "part", "key", "seed"],
                condition=Q(seed__isnull=False),
                name="result_unique_key_seed",
            ),
        ]

    def __str__(self) -> str:
        seed = "all seeds" if self.seed is None else f"seed {self.seed}"
        return f"{self.key} ({seed}) = {self.value:g}"

    @classmethod
    def rows_for(
        cls, submission: Submission, metrics: Mapping[str, float | None], *, part: str = PUBLIC
    ) -> list[Result]:
        """Unsaved rows for a score's metrics; a value that could not be computed is absent, never NaN."""
        rows = []
        for full, value in metrics.items():
            if value is None or not math.isfinite(float(value)):
                continue
            key, seed = result_keys.split_seed(full)
            rows.append(cls(submission=submission, part=part, key=key, seed=seed, value=float(value)))
        return rows


class PhaseEntry(models.Model):
    """The one team a user submits through on a phase: the first one they used.

    Without it, every new team would be a fresh quota. Changing a user's
    team on a phase is an organizer's decision: edit or delete the row in the admin.
    """

    phase = models.ForeignKey("challenges.Phase", on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="phase_entries")
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="phase_entries")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["phase", "user"], name="phase_entry_one_team_per_user")]
        verbose_name_plural = "phase entries"

    def __str__(self) -> str:
        return f"{self.user} as {self.team} on {self.phase}"


class ReplicateSet(models.Model):
    """One submission's stored bootstrap of one ranking metric (``scoring.replicates``), public rows only.

    Written by the scoring worker with the score (or ``manage.py compute_replicates``); a paired test
    between two submissions reads two of these and never their files.
    """

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="replicate_sets")
    metric = models.CharField(max_length=120)
    observed = models.FloatField()
    # Little-endian float64 per-resample sums over seeds (``Replicates.to_bytes``): 8 kB at 1,000 resamples.
    sums = models.BinaryField()
    n_units = models.PositiveSmallIntegerField(default=1)
    # The resampling seed, derived from the truth: only sets with equal seeds are compared.
    seed = models.BigIntegerField()
    # 95% percentile interval and the reach (``scoring.replicates.replicate_reach``; null: undefined replicates).
    low = models.FloatField(null=True)
    high = models.FloatField(null=True)
    reach = models.FloatField(null=True)
    version = models.CharField(max_length=20)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["submission", "metric"], name="replicateset_unique_metric"),
        ]

    def __str__(self) -> str:
        return f"{self.submission_id} {self.metric} ({self.sums and len(self.sums) // 8} resamples)"

    def replicates(self) -> scoring_replicates.Replicates:
        return scoring_replicates.Replicates.from_bytes(self.metric, self.observed, self.sums, self.n_units, self.seed)
