from django.contrib import admin

from leaderboard.challenges.models import Challenge, Phase, TruthVersion


class PhaseInline(admin.TabularInline):
    model = Phase
    extra = 0
    fields = [
        "order", "slug", "title", "task_slug", "starts_at", "ends_at", "daily_limit", "total_limit",
        "truth_is_synthetic",
    ]  # fmt: skip
    readonly_fields = ["truth_is_synthetic"]


class TruthVersionInline(admin.TabularInline):
    """Every truth the phase has had; read-only (a truth changes only through validated imports)."""

    model = TruthVersion
    extra = 0
    can_delete = False
    fields = readonly_fields = ("created_at", "sha256", "n_rows", "source", "uploaded_by")

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    list_display = ["slug", "title", "kind", "family", "is_published"]
    list_filter = ["kind", "is_published"]
    filter_horizontal = ["organizers"]
    inlines = [PhaseInline]


@admin.register(Phase)
class PhaseAdmin(admin.ModelAdmin):
    list_display = [
        "__str__", "task_slug", "daily_limit", "total_limit", "requires_code_url", "truth_is_synthetic",
        "truth_updated_at",
    ]  # fmt: skip
    list_filter = ["challenge", "truth_is_synthetic"]
    # The truth file is replaced with manage.py import_truth, which validates it first.
    readonly_fields = ["truth_file", "truth_sha256", "truth_is_synthetic", "truth_source", "truth_updated_at"]
    inlines = [TruthVersionInline]
