"""The audit log of organizer actions: the one writer, ``record``, used by every organizer surface."""

from __future__ import annotations

from typing import Any

from leaderboard.challenges.models import AuditEntry, Challenge


def record(
    challenge: Challenge,
    actor,
    action: str,
    *,
    target: str = "",
    reason: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    """Write one audit entry (call it inside the action's transaction, so a rolled-back action leaves none)."""
    actor = actor if getattr(actor, "is_authenticated", False) else None
    return AuditEntry.objects.create(
        challenge=challenge,
        actor=actor,
        action=action,
        target=str(target)[:300],
        reason=reason or "",
        details=details or {},
    )
