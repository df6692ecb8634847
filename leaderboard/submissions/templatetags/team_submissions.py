"""``{% team_submissions team %}``: the team page's submissions and per-task quotas.

An inclusion tag, so the team page (accounts app, below this one) lists them
without its view importing the submissions app.
"""

from __future__ import annotations

from django import template

from leaderboard.submissions.models import Submission
from leaderboard.submissions.quotas import quota_for

register = template.Library()

# The team page lists this many of the latest submissions; the rest are on the boards and profiles.
TEAM_SUBMISSIONS = 30


@register.inclusion_tag("submissions/_team_submissions.html")
def team_submissions(team) -> dict:
    submissions = list(
        Submission.objects.filter(team=team).select_related("phase", "user").order_by("-created_at")[:TEAM_SUBMISSIONS]
    )
    phases = {s.phase_id: s.phase for s in submissions}
    quotas = []
    for phase in sorted(phases.values(), key=lambda p: (p.task.dataset_name, p.task.split, p.pk)):
        quotas.append({"phase": phase, "task": phase.task, "quota": quota_for(team, phase)})
    rows = [{"submission": s, "task": s.phase.task} for s in submissions]
    return {"team": team, "rows": rows, "quotas": quotas}
