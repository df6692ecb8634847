"""Template helpers for submission pages, and the submissions section of the profile page."""

from __future__ import annotations

from dataclasses import dataclass

import markdown as markdown_lib
import nh3
from django import template
from django.apps import apps
from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils.safestring import mark_safe

from leaderboard.formatting import metric_text
from leaderboard.submissions.models import Submission
from scoring import keys as result_keys

register = template.Library()

# The profile lists this many of the latest submissions; older ones are on the boards.
PROFILE_SUBMISSIONS = 50

ALLOWED_TAGS = {
    "p",
    "br",
    "em",
    "strong",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "h3",
    "h4",
    "h5",
    "hr",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "sup",
    "sub",
}


@register.filter
def markdown(text: str) -> str:
    """Markdown rendered to HTML and sanitised (no scripts, no styles, links get rel=noopener)."""
    html = markdown_lib.markdown(text or "", extensions=["tables", "fenced_code"])
    clean = nh3.clean(html, tags=ALLOWED_TAGS, attributes={"a": {"href", "title"}}, link_rel="noopener nofollow")
    return mark_safe(clean)  # noqa: S308 (sanitised by nh3 just above)


@register.filter
def metric_value(value: float | None) -> str:
    """Four decimals, or an em dash for a missing value."""
    return metric_text(value)


@dataclass(frozen=True)
class ProfileLine:
    """A submission as the profile lists it: with its task's name, its primary metric's name and its rank."""

    submission: Submission
    task_name: str
    metric_name: str
    board_rank: int | None


@register.simple_tag
def result_value(key: str, value: float | None) -> str:
    """``{% result_value key value %}``: four decimals, a count (tp, fp, fn, support, test pairs) as a whole number."""
    if value is not None and value == value and (result_keys.is_count(key) or key.endswith("/pairs")):
        return f"{round(value):d}"
    return metric_text(value)


@register.simple_tag
def latest_submissions_of(user) -> list[ProfileLine]:
    """``{% latest_submissions_of user as submissions %}``: the user's own and their teams' latest submissions."""
    return _with_task_and_rank(
        list(
            Submission.objects.filter(Q(user=user) | Q(team__memberships__user=user))
            .distinct()
            .select_related("phase", "team")
            .order_by("-created_at")[:PROFILE_SUBMISSIONS]
        )
    )


def _with_task_and_rank(submissions: list[Submission]) -> list[ProfileLine]:
    """Each submission with its task's name, its primary metric's name and its rank on the board (or None).

    The rank is the submission's row on the task's default board (ranked by the primary
    metric); a submission that is not its method's row on the board has none. The board
    rows are looked up by model name: the boards app sits above this one.
    """
    board_row = apps.get_model("boards", "BoardRow")
    # Rows keep sort keys, not ranks: the rank is 1 + the distinct better keys among the rows
    # the submitter's team sees (public rows and its own private ones), as the board computes it.
    better = (
        board_row.objects.filter(board=OuterRef("board"), quality__lt=OuterRef("quality"))
        .filter(Q(is_public=True) | Q(team_id=OuterRef("team_id")))
        .values("board")
        .annotate(n=Count("quality", distinct=True))
        .values("n")
    )
    found = (
        board_row.objects.ranked()
        .filter(submission__in=submissions)
        .annotate(better=Coalesce(Subquery(better), 0))
        .values("submission_id", "board__metric", "better")
    )
    ranks = {(row["submission_id"], row["board__metric"]): row["better"] + 1 for row in found}
    lines = []
    for submission in submissions:
        task = submission.phase.task
        lines.append(
            ProfileLine(
                submission=submission,
                task_name=f"{task.dataset_name} · {task.split}",
                metric_name=task.metric(task.primary).name,
                board_rank=ranks.get((submission.pk, task.primary)),
            )
        )
    return lines
