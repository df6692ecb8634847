from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin, messages
from django.db import transaction
from django.utils import timezone

from leaderboard.submissions import edits
from leaderboard.submissions.models import PhaseEntry, Result, Submission
from leaderboard.submissions.signals import board_changed

if TYPE_CHECKING:
    from django.db.models import QuerySet
    from django.http import HttpRequest


class ResultInline(admin.TabularInline):
    model = Result
    extra = 0
    can_delete = False
    readonly_fields = ["key", "seed", "value"]


@admin.action(description="Re-run scoring (clears results, queues again)")
def rerun(modeladmin: admin.ModelAdmin[Submission], request: HttpRequest, queryset: QuerySet[Submission]) -> None:
    count = 0
    for submission in queryset.exclude(status__in=[Submission.Status.QUEUED, Submission.Status.RUNNING]):
        edits.requeue(submission)
        count += 1
    modeladmin.message_user(request, f"Queued {count} submission(s) for re-scoring.", messages.SUCCESS)


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["method_name", "phase", "team", "status", "error_kind", "primary_value", "created_at", "is_public"]
    list_filter = ["status", "error_kind", "is_public", "is_baseline", "is_verified", "phase__task_slug"]
    search_fields = ["method_name", "team__name", "user__username", "id", "sha256"]
    readonly_fields = [
        "id",
        "file",
        "file_name",
        "file_size",
        "sha256",
        "status",
        "error_kind",
        "error_message",
        "attempts",
        "claim_token",
        "worker_host",
        "scorer_version",
        "created_at",
        "queued_at",
        "enqueued_at",
        "started_at",
        "finished_at",
        "primary_value",
        "report",
        "verified_at",
    ]
    raw_id_fields = ["phase", "team", "user"]
    inlines = [ResultInline]
    actions = [rerun]

    def save_model(self, request: HttpRequest, obj: Submission, form, change: bool) -> None:
        # The verified badge: stamp when staff set it, and rebuild the board so cached pages and exports show it.
        verification = {"is_verified", "verification_note", "verification_url"}
        if obj.is_verified and obj.verified_at is None:
            obj.verified_at = timezone.now()
        elif not obj.is_verified:
            obj.verified_at = None
        super().save_model(request, obj, form, change)
        if change and verification & set(form.changed_data):
            transaction.on_commit(lambda: board_changed.send(sender=Submission, phase=obj.phase))


@admin.register(PhaseEntry)
class PhaseEntryAdmin(admin.ModelAdmin):
    """Which team each user submits through on a phase; changing it is the organizer's decision."""

    list_display = ["user", "phase", "team", "created_at"]
    list_filter = ["phase"]
    search_fields = ["user__username", "team__name"]
    raw_id_fields = ["user", "team"]
