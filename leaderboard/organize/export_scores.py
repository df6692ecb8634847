"""The organizers' CSV of every submission of a challenge, with its public, private and all-row scores.

Streamed: rows are read in chunks of ``CHUNK`` submissions (their results with
them), so a challenge with many thousands of submissions never sits in memory.
Every text cell goes through the site's formula-injection-safe ``safe_cell``.
Organizers only, before the reveal too: this is the one place private scores
leave the site before a phase is revealed, and only ``get_managed_challenge`` lets
a request get here.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.csvsafe import safe_cell
from leaderboard.links import absolute_reverse
from leaderboard.submissions.models import Result, Submission
from scoring import keys as result_keys

CHUNK = 500
PARTS = (Result.Part.PUBLIC, Result.Part.PRIVATE, Result.Part.ALL)

FIXED_COLUMNS = (
    "submission_id", "submission_url", "phase", "task", "team", "submitted_by", "method", "status", "error_kind",
    "submitted_at", "finished_at", "visibility", "hidden", "hidden_reason", "baseline", "verified", "selected_final",
    "final_by", "truth_sha256",
)  # fmt: skip


def metric_keys(phases: list[Phase]) -> list[str]:
    """Every overall metric key (and its spread) of the phases' tasks, in the tasks' order, once each."""
    keys: list[str] = []
    for phase in phases:
        task = phase.task
        for metric in task.metrics:
            for key in (metric.key, result_keys.spread_key(metric.key, task.spread) if task.spread else None):
                if key and key not in keys:
                    keys.append(key)
    return keys


def header(keys: list[str]) -> list[str]:
    return [*FIXED_COLUMNS, *(f"{part}:{key}" for part in PARTS for key in keys)]


class _Line:
    """A file-like object whose ``write`` returns the text: lets ``csv.writer`` produce one line at a time."""

    def write(self, text: str) -> str:
        return text


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


# A stand-in id, reversed once per export: every row's link is this with its own id (reverse() per row
# was a fifth of the export's time).
_PLACEHOLDER = "00000000-0000-0000-0000-000000000000"


def _row(s: Submission, values: dict[Result.Part, dict[str, dict[str, float]]], keys: list[str], link: str) -> list:
    sid = str(s.pk)
    cells: list = [
        sid, link.replace(_PLACEHOLDER, sid), s.phase.slug, s.phase.task_slug, s.team.name,
        s.user.username, s.method_name, s.status, s.error_kind, s.created_at.isoformat(),
        s.finished_at.isoformat() if s.finished_at else "", "public" if s.is_public else "private", _yes(s.is_hidden),
        s.hidden_reason, _yes(s.is_baseline), _yes(s.is_verified), _yes(s.selected_final), s.final_by,
        s.truth_version.sha256 if s.truth_version is not None else "",
    ]  # fmt: skip
    for part in PARTS:
        found = values[part].get(sid, {})
        cells += [found.get(key, "") for key in keys]
    return [safe_cell(c) for c in cells]


def export_lines(challenge: Challenge, phase: Phase | None = None) -> Iterator[str]:
    """CSV lines (header first) of every submission of the challenge (or of one phase), oldest first."""
    phases = [phase] if phase is not None else list(challenge.phases.all())
    keys = metric_keys(phases)
    writer = csv.writer(_Line())
    yield writer.writerow(header(keys))
    rows = (
        Submission.objects.filter(phase__in=phases)
        .select_related("phase", "team", "user", "truth_version")
        .order_by("created_at", "pk")
    )
    chunk: list[Submission] = []
    for submission in rows.iterator(chunk_size=CHUNK):
        chunk.append(submission)
        if len(chunk) == CHUNK:
            yield from _chunk_lines(writer, chunk, keys)
            chunk = []
    if chunk:
        yield from _chunk_lines(writer, chunk, keys)


def _chunk_lines(writer, chunk: list[Submission], keys: list[str]) -> Iterator[str]:
    ids = [s.pk for s in chunk]
    results = Result.objects.filter(submission_id__in=ids).overall()
    values = {part: results.by_submission(keys, part=part) for part in PARTS}
    link = absolute_reverse("submissions:detail", _PLACEHOLDER)
    for submission in chunk:
        yield writer.writerow(_row(submission, values, keys, link))
