from django.contrib import admin

from leaderboard.drugs.models import Drug


@admin.register(Drug)
class DrugAdmin(admin.ModelAdmin):
    list_display = ("drugbank_id", "name", "formula", "test_pairs_total", "has_structure")
    search_fields = ("drugbank_id", "name")
    # Written by manage.py load_drugs (drawing and counts at import); edit the source file and re-import.
    readonly_fields = (
        "structure_svg",
        "drawn_smiles",
        "structure_error",
        "test_pairs",
        "test_pairs_total",
        "counted_from",
    )
