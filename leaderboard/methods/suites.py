"""Suite views: methods ranked across a family's tasks, or across every hosted task.

The ranking is ``scoring.suites.rank_suite`` (mean normalised rank over the tasks
a method entered; the rule is stated in that module and on the page) over the
placements read from the standing boards (``leaderboard.methods.results``).
"""

from __future__ import annotations

import scoring
from leaderboard.accounts.models import Team
from leaderboard.formatting import metric_text
from leaderboard.methods.results import placements
from scoring import suites

ALL = "all"


def suite_tasks(slug: str) -> list | None:
    """The tasks of a suite in registry order: a family's, or every task for "all"; None for an unknown suite."""
    if slug == ALL:
        return list(scoring.TASKS.values())
    if slug not in scoring.FAMILIES:
        return None
    return [t for t in scoring.TASKS.values() if t.family == slug]


def suite_context(slug: str) -> dict | None:
    tasks = suite_tasks(slug)
    if tasks is None:
        return None
    task_slugs = [t.slug for t in tasks]
    found, info = placements(task_slugs)
    standings = suites.rank_suite(found, task_slugs)
    team_slugs = dict(Team.objects.filter(pk__in={k.team_id for k in found}).values_list("pk", "slug"))
    rows = []
    for line in standings:
        entry = info[line.key]
        cells: list[dict | None] = []
        for task in tasks:
            place = entry["tasks"].get(task.slug)
            if place is None:
                cells.append(None)
            else:
                normalised = suites.normalised_rank(place["better"], place["n"])
                cells.append({"rank": place["rank"], "n": place["n"], "normalised": f"{normalised:.2f}",
                              "value": metric_text(place["value"])})  # fmt: skip
        rows.append(
            {
                "rank": line.rank,
                "name": entry["name"],
                "team": entry["team"],
                "team_slug": team_slugs.get(line.key.team_id, ""),
                "method_slug": entry["slug"],
                "mean": f"{line.mean_normalised_rank:.3f}",
                "covered": len(line.entered),
                "n_tasks": line.n_tasks,
                "cells": cells,
            }
        )
    name = "All hosted tasks" if slug == ALL else scoring.FAMILIES[slug].name
    return {"slug": slug, "name": name, "tasks": tasks, "rows": rows}
