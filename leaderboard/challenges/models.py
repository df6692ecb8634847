"""Challenges and their phases.

Each benchmark family of the ``scoring`` registry is a *standing* challenge with
one open-ended phase per task; ``/tasks/<slug>/`` addresses that phase.
Organizer-run, time-boxed challenges reuse the same two models.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from leaderboard.storage import private_storage


class Challenge(models.Model):
    class Kind(models.TextChoices):
        STANDING = "standing", "Standing benchmark"
        ORGANIZED = "organized", "Organized challenge"

    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.STANDING)
    # For standing challenges: the scoring registry's family slug.
    family = models.CharField(max_length=50, blank=True)
    description = models.TextField(blank=True)
    organizers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="organized_challenges")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.title


class PhaseQuerySet(models.QuerySet):
    def standing(self) -> PhaseQuerySet:
        return self.filter(challenge__kind=Challenge.Kind.STANDING)

    def open_now(self) -> PhaseQuerySet:
        now = timezone.now()
        return self.filter(starts_at__lte=now).filter(models.Q(ends_at__isnull=True) | models.Q(ends_at__gt=now))


def truth_upload_to(phase: Phase, filename: str) -> str:
    return f"truth/{phase.challenge.slug}/{phase.slug}/{filename}"


class Phase(models.Model):
    class BoardMode(models.TextChoices):
        BEST = "best", "Best submission per team and method"
        LATEST = "latest", "Latest submission per team and method"

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
    # Hidden test labels, in private storage.
    truth_file = models.FileField(upload_to=truth_upload_to, storage=private_storage, blank=True)
    truth_sha256 = models.CharField(max_length=64, blank=True)
    truth_is_synthetic = models.BooleanField(default=False)
    truth_source = models.CharField(max_length=500, blank=True)
    truth_updated_at = models.DateTimeField(null=True, blank=True)

    objects = PhaseQuerySet.as_manager()

    class Meta:
        ordering = ["challenge", "slug"]
        constraints = [models.UniqueConstraint(fields=["challenge", "slug"], name="phase_unique_slug_per_challenge")]

    def __str__(self) -> str:
        return f"{self.challenge.slug}/{self.slug}"

    def get_absolute_url(self) -> str:
        """The phase's leaderboard (a standing phase's board lives at its task's page)."""
        return reverse("boards:task", args=[self.task_slug])

    @property
    def task(self):
        import scoring

        return scoring.get_task(self.task_slug)

    @property
    def has_truth(self) -> bool:
        return bool(self.truth_file)
