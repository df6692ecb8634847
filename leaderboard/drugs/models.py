"""The drugs of MUDI's test set: what the drug pages show, all of it computed at import.

``manage.py load_drugs`` writes every field; a page reads one row and never
parses a file, draws a structure or counts pairs.
"""

from __future__ import annotations

from django.db import models
from django.urls import reverse


class Drug(models.Model):
    drugbank_id = models.CharField(max_length=20, primary_key=True)  # bare: DB00014
    name = models.CharField(max_length=300)
    formula = models.CharField(max_length=200, blank=True)
    smiles = models.TextField(blank=True)
    # [{"title": "Summary", "html": "..."}]: the description's sections, sanitised at import (nh3).
    description = models.JSONField(default=list, blank=True)
    # The 2D drawing RDKit made from ``drawn_smiles`` at import; redrawn only when the SMILES changes.
    structure_svg = models.TextField(blank=True)
    drawn_smiles = models.TextField(blank=True)
    # Why there is no drawing ("" when there is one).
    structure_error = models.CharField(max_length=300, blank=True)
    # Distinct unordered MUDI test pairs involving the drug: {"Synergism": n, ..., "total": n}.
    test_pairs = models.JSONField(default=dict, blank=True)
    test_pairs_total = models.PositiveIntegerField(default=0)
    # The truth file the counts come from (sha256), so the page can say which test set it counted.
    counted_from = models.CharField(max_length=64, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        indexes = [
            # The list page: ORDER BY name, searched by name.
            models.Index(fields=["name"], name="drug_name_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.drugbank_id})"

    def get_absolute_url(self) -> str:
        return reverse("drugs:detail", args=[self.drugbank_id])

    @property
    def has_structure(self) -> bool:
        return bool(self.structure_svg)
