from django.contrib import admin

from leaderboard.challenges.models import Challenge, Phase


class PhaseInline(admin.TabularInline):
    model = Phase
    extra = 0
    fields = ["slug", "title", "task_slug", "starts_at", "ends_at", "daily_limit", "total_limit", "truth_is_synthetic"]
    readonly_fields = ["truth_is_synthetic"]


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    list_display = ["slug", "title", "kind", "family"]
    filter_horizontal = ["organizers"]
    inlines = [PhaseInline]


@admin.register(Phase)
class PhaseAdmin(admin.ModelAdmin):
    list_display = ["__str__", "task_slug", "daily_limit", "total_limit", "truth_is_synthetic", "truth_updated_at"]
    list_filter = ["challenge", "truth_is_synthetic"]
    # The truth file is replaced with manage.py import_truth, which validates it first.
    readonly_fields = ["truth_file", "truth_sha256", "truth_is_synthetic", "truth_source", "truth_updated_at"]
