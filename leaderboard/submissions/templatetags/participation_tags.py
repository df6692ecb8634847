"""``{% team_on_phase team phase as mine %}``: a registered team's quota, submissions and final picks on a phase.

For the challenge page (the challenges app sits below submissions, so its view cannot
count submissions; its template asks here, as the profile page does for its list).
"""

from __future__ import annotations

from django import template

from leaderboard.submissions import finals, quotas
from leaderboard.submissions.models import Submission

register = template.Library()


@register.simple_tag
def team_on_phase(team, phase) -> dict:
    """The team's quota (``quotas.quota_for``), number of submissions and final selections on ``phase``."""
    mine = Submission.objects.for_team_phase(team, phase)
    return {
        "quota": quotas.quota_for(team, phase),
        "count": mine.count(),
        "finals": finals.selected_for(team, phase),
        "selection_open": finals.selection_open(phase),
    }
