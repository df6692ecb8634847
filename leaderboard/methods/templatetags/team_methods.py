"""``{% team_methods team %}``: the team page's list of its methods, each linking to its page.

An inclusion tag, so the team page (accounts app, below this one) lists them
without its view importing the boards or this app.
"""

from __future__ import annotations

from django import template

from leaderboard.boards.models import BoardRow
from leaderboard.methods.results import method_slug, standing_boards

register = template.Library()


@register.inclusion_tag("methods/_team_methods.html")
def team_methods(team) -> dict:
    boards = standing_boards()
    rows = (
        BoardRow.objects.public()
        .filter(board__in=list(boards.values()), team=team)
        .order_by("method_key", "-submitted_at")
        .values_list("method_key", "method_name")
    )
    methods: dict[str, dict] = {}
    for key, name in rows:
        entry = methods.setdefault(method_slug(key), {"name": name, "slug": method_slug(key), "n_tasks": 0})
        entry["n_tasks"] += 1
    return {"team": team, "methods": sorted(methods.values(), key=lambda m: m["name"].casefold())}
