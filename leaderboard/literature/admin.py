from django.contrib import admin

from leaderboard.literature.models import PublishedResult


@admin.register(PublishedResult)
class PublishedResultAdmin(admin.ModelAdmin):
    list_display = ["task_slug", "method", "setting", "metric", "value", "unit", "key", "file_name", "line"]
    list_filter = ["task_slug", "file_name", "setting"]
    search_fields = ["method", "metric", "source"]
    readonly_fields = ["key", "file_name", "line"]
