"""Site-wide pages: the home page, the documentation and the health check."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

import scoring
from leaderboard import docpages
from leaderboard.challenges.models import Phase
from leaderboard.ops import health


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The three benchmark families of the scoring registry, each with its tasks."""
    synthetic = Phase.objects.standing().synthetic_task_slugs()
    families = [
        {
            "family": family,
            # Templates cannot call task.metric(key), so the primary metric's name is looked up here.
            "tasks": [
                {"task": task, "primary_name": task.metric(task.primary).name, "synthetic": task.slug in synthetic}
                for task in scoring.TASKS.values()
                if task.family == slug
            ],
        }
        for slug, family in scoring.FAMILIES.items()
    ]
    context = {"families": families, "n_tasks": len(scoring.TASKS), "any_synthetic": bool(synthetic)}
    return render(request, "home.html", context)


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Whether the database, the broker and each file storage take writes, as JSON: 200 when all do, 503 otherwise.

    ``errors`` names each failing part with the error's class; ``storages`` says
    which storage (``default``, ``private``) failed.

    ``worker_last_seen`` is when a worker last ran the beat heartbeat (null if
    never). ``queues`` gives each job queue's newest heartbeat and the scoring
    queue's longest wait; past the bounds of settings the status is ``degraded``
    (``lagging`` says why) with HTTP ``HEALTH_DEGRADED_STATUS``, 200 by default,
    because a web node is healthy even while the workers lag or are redeployed.
    """
    errors = {}
    database_error = health.check_database()
    if database_error:
        errors["database"] = database_error
    broker_error = health.check_broker()
    if broker_error:
        errors["broker"] = broker_error
    storage_errors = health.check_storages()
    storage_error = next(iter(storage_errors.values()), None)
    if storage_error:
        errors["storage"] = storage_error
    last_seen = health.last_worker_heartbeat() if not database_error else None
    queues, lagging = health.queue_report() if not database_error else ({}, [])
    status = "error" if errors else "degraded" if lagging else "ok"
    body: dict[str, object] = {
        "status": status,
        "database": "error" if database_error else "ok",
        "broker": "error" if broker_error else "ok",
        "storage": "error" if storage_error else "ok",
        "storages": {alias: "error" if alias in storage_errors else "ok" for alias in health.WRITABLE_STORAGES},
        "broker_transport": health.broker_transport(),
        "worker_last_seen": last_seen.isoformat() if last_seen else None,
        "queues": queues,
    }
    if errors:
        body["errors"] = errors
    if lagging:
        body["lagging"] = lagging
    code = {"error": 503, "degraded": settings.HEALTH_DEGRADED_STATUS}.get(status, 200)
    return JsonResponse(body, status=code)


@require_safe
def docs_index(request: HttpRequest) -> HttpResponse:
    """The documentation: every docs/*.md page with its first paragraph."""
    return render(request, "docs/index.html", {"pages": docpages.all_pages()})


@require_safe
def docs_page(request: HttpRequest, slug: str) -> HttpResponse:
    """One page of the documentation, rendered from docs/<slug>.md."""
    doc = docpages.page(slug)
    if doc is None:
        raise Http404("There is no documentation page by that name.")
    return render(request, "docs/page.html", {"doc": doc, "pages": docpages.all_pages()})
