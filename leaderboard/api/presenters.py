"""The JSON shapes of tasks, phases and submissions (one home each; views and docs follow them)."""

from __future__ import annotations

from django.urls import reverse

from leaderboard.boards.exports import describe_metric
from leaderboard.challenges.access import inputs_offered
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.submissions import quotas
from leaderboard.submissions.models import Submission
from leaderboard.submissions.summary import field_values, status_payload


def _absolute(request, path: str) -> str:
    return request.build_absolute_uri(path)


def task_dict(task, request) -> dict:
    return {
        "slug": task.slug,
        "family": task.family,
        "dataset": task.dataset,
        "dataset_name": task.dataset_name,
        "split": task.split,
        "kind": task.kind,
        "description": task.description,
        "classes": list(task.classes),
        "prediction_columns": list(task.prediction_columns),
        "optional_prediction_columns": list(task.optional_prediction_columns),
        "metrics": [describe_metric(task, m.key) for m in task.metrics],
        "primary_metric": task.primary,
        "tiebreak_metrics": list(task.secondary),
        "seeds": list(task.seeds),
        "spread": task.spread,
        "citation": task.citation,
        "paper_url": task.paper_url,
        "caveats": list(task.caveats),
        "declarations": [
            {
                "key": d.key,
                "label": d.label,
                "help": d.help,
                "choices": list(d.choices) if d.choices else None,
                "required": d.required,
            }
            for d in task.declarations
        ],
        "links": {
            "board": _absolute(request, reverse("boards:task", args=[task.slug])),
            "inputs": _absolute(request, reverse("submissions:inputs", args=[task.slug])),
            "example": _absolute(request, reverse("submissions:example", args=[task.slug])),
            "leaderboard": _absolute(request, reverse("api:task-leaderboard", args=[task.slug])),
            "submissions": _absolute(request, reverse("api:task-submit", args=[task.slug])),
        },
    }


def quota_dict(team, quota: quotas.Quota) -> dict:
    return {
        "team": team.slug,
        "team_name": team.name,
        "daily_limit": quota.daily_limit,
        "daily_used": quota.daily_used,
        "total_limit": quota.total_limit,
        "total_used": quota.total_used,
        "remaining": quota.remaining,
        "resets_at": quota.resets_at.isoformat(),
    }


def phase_dict(phase: Phase, request, teams) -> dict:
    """A phase with its dates, limits and, for a caller with a token, each of their teams' quota."""
    is_open = phase.is_open
    args = [phase.challenge.slug, phase.slug]
    return {
        "slug": phase.slug,
        "title": phase.title,
        "challenge": phase.challenge.slug,
        "task": phase.task_slug,
        "starts_at": phase.starts_at.isoformat(),
        "ends_at": phase.ends_at.isoformat() if phase.ends_at else None,
        "is_open": is_open,
        "accepts_submissions": is_open and phase.has_truth,
        "daily_limit": phase.daily_limit,
        "total_limit": phase.total_limit,
        "board_mode": phase.board_mode,
        "quota": None if teams is None else [quota_dict(t, quotas.quota_for(t, phase)) for t in teams],
        "links": {
            "self": _absolute(request, reverse("api:phase", args=args)),
            "leaderboard": _absolute(request, reverse("api:phase-leaderboard", args=args)),
            "submissions": _absolute(request, reverse("api:phase-submit", args=args)),
            "preflight": _absolute(request, reverse("api:phase-preflight", args=args)),
            **_phase_files(phase, request),
        },
    }


def _phase_files(phase: Phase, request) -> dict:
    """A phase's test inputs and example file: null until they are offered (the phase has started and has a test set).

    A standing phase's are its task's; an organized phase's are the challenge's own (its test set, not the task's).
    """
    if phase.challenge.kind == Challenge.Kind.STANDING:
        names, args = ("submissions:inputs", "submissions:example"), [phase.task_slug]
    else:
        names, args = ("challenges:inputs", "submissions:phase-example"), [phase.challenge.slug, phase.slug]
    offered = inputs_offered(phase, is_organizer=False)
    return {
        key: _absolute(request, reverse(name, args=args)) if offered else None
        for key, name in zip(("inputs", "example"), names, strict=True)
    }


def challenge_dict(challenge: Challenge, request, teams) -> dict:
    return {
        "slug": challenge.slug,
        "title": challenge.title,
        "kind": challenge.kind,
        "family": challenge.family or None,
        "description": challenge.description,
        "phases": [phase_dict(p, request, teams) for p in challenge.phases.all()],
        "links": {"self": _absolute(request, reverse("api:challenge", args=[challenge.slug]))},
    }


def submission_dict(submission: Submission, request) -> dict:
    """The status payload of the live page plus the submission's metadata."""
    body = status_payload(submission)
    body.update(
        {
            "task": submission.phase.task_slug,
            "challenge": submission.phase.challenge.slug,
            "phase": submission.phase.slug,
            "team": submission.team.slug,
            "team_name": submission.team.name,
            **field_values(submission),
            "declarations": submission.declarations or {},
            "file_name": submission.file_name,
            "file_size": submission.file_size,
            "sha256": submission.sha256,
            "url": _absolute(request, body["url"]),
            "links": {
                "self": _absolute(request, reverse("api:submission", args=[submission.pk])),
                # The uploaded file: the team, staff and the challenge's organizers only (403 or 404 to others).
                "file": _absolute(request, reverse("api:submission-file", args=[submission.pk])),
            },
        }
    )
    return body


def submission_summary(submission: Submission, request) -> dict:
    """A row of "my submissions": no per-row query (the primary value is denormalised on the row)."""
    return {
        "id": str(submission.pk),
        "status": submission.status,
        "task": submission.phase.task_slug,
        "challenge": submission.phase.challenge.slug,
        "phase": submission.phase.slug,
        "team": submission.team.slug,
        "method_name": submission.method_name,
        "visibility": "public" if submission.is_public else "private",
        "primary_metric": submission.phase.task.primary,
        "primary_value": submission.primary_value,
        "error": submission.error_message or None,
        "created_at": submission.created_at.isoformat(),
        "finished_at": submission.finished_at.isoformat() if submission.finished_at else None,
        "url": _absolute(request, submission.get_absolute_url()),
        "links": {"self": _absolute(request, reverse("api:submission", args=[submission.pk]))},
    }
