"""What a team says about one of its methods across tasks (paper, code, a description).

A method is a team's method name across every standing task (the boards' own
grouping: ``BoardRow.method_key``, the name without case or extra spaces); its
results are read from the boards, so a method has a page as soon as it has a
public row. This row only holds what the team curates, and exists once they do.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class MethodProfile(models.Model):
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="method_profiles")
    # The boards' method key (``leaderboard.boards.recompute.method_key``): the name without case or extra spaces.
    method_key = models.CharField(max_length=100)
    description = models.TextField(blank=True, max_length=2000)
    paper_url = models.URLField(blank=True)
    code_url = models.URLField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "method_key"], name="methodprofile_unique_team_method")]

    def __str__(self) -> str:
        return f"{self.method_key} ({self.team_id})"
