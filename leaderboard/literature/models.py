"""Published results: numbers printed in the benchmarks' papers, shown beside the boards but never ranked.

One row per printed number, exactly as its CSV line (``scoring.literature``
reads and checks the files); ``entries_for`` regroups a task's rows into one
published method each, with the values the board compares and the paper's own
definitions it breaks (flagged, never hidden).
"""

from __future__ import annotations

import uuid

from django.core.cache import cache
from django.db import models
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone

from leaderboard.challenges.models import Phase
from scoring import literature


class PublishedResultQuerySet(models.QuerySet):
    def for_task(self, task_slug: str) -> PublishedResultQuerySet:
        return self.filter(task_slug=task_slug)


class PublishedResult(models.Model):
    task_slug = models.CharField(max_length=100)
    method = models.CharField(max_length=100)
    setting = models.CharField(max_length=40, blank=True)
    metric = models.CharField(max_length=120, help_text="As printed in the paper.")
    # Our result key for the metric; empty when we compute nothing the same way (shown nowhere on a board).
    key = models.CharField(max_length=120, blank=True)
    value = models.FloatField(help_text="As printed.")
    spread = models.FloatField(null=True, blank=True)
    unit = models.CharField(max_length=10, choices=[(u, u) for u in literature.UNITS], default="percent")
    source = models.TextField(help_text="Paper, table and page, as in the CSV.")
    notes = models.TextField(blank=True)
    # Where the row came from: the CSV's file name and line (empty for rows staff added in the admin).
    file_name = models.CharField(max_length=200, blank=True)
    line = models.PositiveIntegerField(null=True, blank=True)
    # When the row was imported (or added): a board's Atom feed announces a published result from then.
    loaded_at = models.DateTimeField(default=timezone.now)

    objects = PublishedResultQuerySet.as_manager()

    class Meta:
        ordering = ["task_slug", "file_name", "line"]
        indexes = [
            # The board page: WHERE task_slug = ?.
            models.Index(fields=["task_slug"], name="published_task_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.setting} {self.metric} = {self.value:g} {self.unit}"

    def save(self, *args, **kwargs) -> None:
        if not self.key:  # rows added in the admin get their key the way the importer gives it
            self.key = literature.result_key(self.task_slug, self.setting, self.metric)
        super().save(*args, **kwargs)

    def as_value(self) -> literature.PublishedValue:
        return literature.PublishedValue(
            line=self.line or 0, task=self.task_slug, method=self.method, setting=self.setting, metric=self.metric,
            key=self.key, value=self.value, spread=self.spread, unit=self.unit,
            fraction=literature.as_fraction(self.value, self.unit), source=self.source, notes=self.notes,
        )  # fmt: skip


def entries_for(task_slug: str) -> list[literature.PublishedEntry]:
    """The task's published methods (one query), checked against the paper's definitions."""
    return literature.entries(row.as_value() for row in PublishedResult.objects.for_task(task_slug))


# Pages and exports that show published rows put this in their cache keys; any change gives a new one.
VERSION_KEY = "literature-version"


def version() -> str:
    """The current version of the published results (a new one after every import or admin edit)."""
    current = cache.get(VERSION_KEY)
    if current is None:
        current = bump()
    return current


def bump() -> str:
    current = uuid.uuid4().hex
    cache.set(VERSION_KEY, current, None)
    return current


def sync_phases(task_slugs: set[str] | None = None) -> None:
    """Set ``Phase.has_published_results`` of the tasks' phases (every phase when None) from the rows.

    Standing phases only: a paper's numbers were computed on the benchmark's published test set,
    and an organized challenge scores its own hidden test rows, so they are not comparable there.
    """
    phases = Phase.objects.all() if task_slugs is None else Phase.objects.filter(task_slug__in=task_slugs)
    with_rows = set(PublishedResult.objects.values_list("task_slug", flat=True).distinct())
    phases.standing().filter(task_slug__in=with_rows).update(has_published_results=True)
    phases.exclude(challenge__kind="standing", task_slug__in=with_rows).update(has_published_results=False)


@receiver([post_save, post_delete], sender=PublishedResult)
def _changed(sender, instance: PublishedResult, **kwargs) -> None:
    sync_phases({instance.task_slug})
    bump()
