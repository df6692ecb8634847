"""Moderation of an organized challenge: the services the manage pages, the API and the CLI share.

Each action is one function under one transaction that changes the rows, writes
its audit entry (``challenges.audit.record``) and, where a board is affected,
sends ``board_changed`` on commit, so the boards update in a worker exactly as
they do after a visibility change. Refusals are ``ModerationError`` with a
sentence the page or the API shows as is; nothing changes when one is raised.

The Celery tasks (re-running a whole phase, the announcement and decision
e-mails) sit beside the services they wrap and take ids.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.http import Http404
from django.utils import timezone

from leaderboard.challenges import audit
from leaderboard.challenges.models import Announcement, AuditEntry, Challenge, Phase, Registration
from leaderboard.links import absolute_reverse
from leaderboard.organize.access import get_managed_challenge
from leaderboard.submissions import edits
from leaderboard.submissions.models import Submission
from leaderboard.submissions.signals import board_changed

if TYPE_CHECKING:
    from leaderboard.accounts.models import User

log = logging.getLogger(__name__)

# The moderation actions on one submission; the manage page and the API take these names.
SUBMISSION_ACTIONS = ("hide", "unhide", "baseline", "unbaseline", "verify", "unverify", "rerun")
# Which submissions of a phase a bulk re-run sends back to the queue.
RERUN_WHICH = ("failed", "all")
# Decisions on a team's registration.
DECISIONS = ("approve", "reject", "disqualify", "reinstate")
# Actions that affect the team badly: each needs a reason the team sees.
NEEDS_REASON = {"hide", "reject", "disqualify"}
MAX_REASON = 2000


class ModerationError(ValueError):
    """An action refused, with the sentence to show (nothing was changed).

    ``field`` names the input that was missing or wrong (the API answers 422 then);
    without it the action does not fit the object's current state (409).
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def _reason(action: str, reason: str | None) -> str:
    reason = (reason or "").strip()
    if action in NEEDS_REASON and not reason:
        raise ModerationError(f"Give a reason to {action}: the team sees it.", field="reason")
    if len(reason) > MAX_REASON:
        raise ModerationError(f"Keep the reason under {MAX_REASON} characters (it has {len(reason)}).", field="reason")
    return reason


def _board_changed(submission: Submission) -> None:
    """Tell the boards after commit (a worker rebuilds that submission's rows); only scored ones are on a board."""
    if submission.status == Submission.Status.SCORED:
        transaction.on_commit(
            partial(board_changed.send, sender=Submission, phase=submission.phase, submission=submission)
        )


def short_id(submission: Submission) -> str:
    return str(submission.pk)[:8]


def _target(submission: Submission) -> str:
    return f"submission {short_id(submission)} ({submission.method_name}, team {submission.team.name})"


# --- access ---------------------------------------------------------------------------------


def get_managed_submission(user, submission_id) -> tuple[Submission, Challenge]:
    """A submission of an organized challenge ``user`` organizes (or staff), with that challenge; 404 otherwise.

    Goes through ``get_managed_challenge``, the one organizer check, so a participant, an
    outsider or the organizer of another challenge learns nothing (404, not 403).
    """
    try:
        submission = Submission.objects.select_related("phase__challenge", "team", "user").get(pk=submission_id)
    except (Submission.DoesNotExist, ValueError, TypeError):
        raise Http404("No such submission.") from None
    challenge = get_managed_challenge(user, submission.phase.challenge.slug)
    return submission, challenge


# --- one submission ---------------------------------------------------------------------------


@dataclass
class Outcome:
    """What an action did, as one sentence for the page's message and the API's answer."""

    message: str
    queued: int = 0


def moderate_submission(
    submission: Submission,
    action: str,
    by: User,
    *,
    reason: str = "",
    note: str = "",
    url: str = "",
) -> Outcome:
    """Apply one of ``SUBMISSION_ACTIONS`` to a submission, audited; boards follow on commit."""
    if action not in SUBMISSION_ACTIONS:
        raise ModerationError(f"Unknown action {action!r}; use one of {', '.join(SUBMISSION_ACTIONS)}.", field="action")
    reason = _reason(action, reason)
    challenge = submission.phase.challenge
    with transaction.atomic():
        # Lock the row so two organizers acting at once leave one consistent state and two audit entries.
        current = Submission.objects.select_for_update().get(pk=submission.pk)
        for name in ("is_hidden", "hidden_reason", "is_baseline", "is_verified", "status"):
            setattr(submission, name, getattr(current, name))
        # The submission's id in the entry, so its moderation page can list its history.
        details: dict = {"submission": str(submission.pk)}
        if action == "hide":
            if submission.is_hidden:
                raise ModerationError("This submission is already hidden.")
            submission.is_hidden, submission.hidden_reason = True, reason
            submission.save(update_fields=["is_hidden", "hidden_reason"])
            message = "Hidden: the submission is on no board, and its team sees your reason on its page."
        elif action == "unhide":
            if not submission.is_hidden:
                raise ModerationError("This submission is not hidden.")
            submission.is_hidden, submission.hidden_reason = False, ""
            submission.save(update_fields=["is_hidden", "hidden_reason"])
            message = "Shown again: the submission is back on the boards."
        elif action in ("baseline", "unbaseline"):
            wanted = action == "baseline"
            if submission.is_baseline == wanted:
                raise ModerationError(f"This submission is {'already' if wanted else 'not'} marked as a baseline.")
            submission.is_baseline = wanted
            submission.save(update_fields=["is_baseline"])
            message = "Marked as a baseline." if wanted else "No longer marked as a baseline."
        elif action == "verify":
            note, url = (note or "").strip()[:300], (url or "").strip()
            if not note and not url:
                raise ModerationError(
                    "Say how the result was verified: a note (e.g. 'reproduced from the linked code at commit "
                    "1a2b3c4') or a link to the reproduction.",
                    field="note",
                )
            if url and not url.startswith(("https://", "http://")):
                raise ModerationError("The reproduction link must be an http(s) URL.", field="url")
            submission.is_verified = True
            submission.verification_note, submission.verification_url = note, url
            submission.verified_at = timezone.now()
            submission.save(update_fields=["is_verified", "verification_note", "verification_url", "verified_at"])
            details.update(note=note, url=url)
            message = "Verified: the badge shows on the boards."
        elif action == "unverify":
            if not submission.is_verified:
                raise ModerationError("This submission is not verified.")
            submission.is_verified = False
            submission.verification_note = submission.verification_url = ""
            submission.verified_at = None
            submission.save(update_fields=["is_verified", "verification_note", "verification_url", "verified_at"])
            message = "The verified badge was removed."
        else:  # rerun
            if submission.status in (Submission.Status.QUEUED, Submission.Status.RUNNING):
                raise ModerationError("This submission is already waiting to be scored; nothing to re-run.")
            edits.requeue(submission)
            message = "Queued again: the results were cleared and a worker will score the file."
        if action != "rerun":
            _board_changed(submission)
        audit.record(challenge, by, f"submission.{action}", target=_target(submission), reason=reason, details=details)
    return Outcome(message, queued=1 if action == "rerun" else 0)


def submission_history(submission: Submission):
    """The audit entries of the moderation actions on one submission, newest first."""
    return (
        AuditEntry.objects.filter(challenge_id=submission.phase.challenge_id, details__submission=str(submission.pk))
        .select_related("actor")
        .order_by("-created_at")
    )


# --- re-running a phase ---------------------------------------------------------------------


def _rerunnable(phase: Phase, which: str):
    rows = Submission.objects.filter(phase=phase).exclude(
        status__in=[Submission.Status.QUEUED, Submission.Status.RUNNING]
    )
    return rows.failed() if which == "failed" else rows


def rerun_phase(phase: Phase, which: str, by: User, *, reason: str = "") -> Outcome:
    """Re-run the failed, or all, finished submissions of a phase: audited now, re-queued by a worker.

    The request only counts and records; ``rerun_phase_task`` sends each submission back to
    the queue (a phase may have thousands, which is a worker's job).
    """
    if which not in RERUN_WHICH:
        raise ModerationError(f"Re-run 'failed' or 'all' submissions, not {which!r}.", field="which")
    reason = _reason("rerun", reason)
    with transaction.atomic():
        count = _rerunnable(phase, which).count()
        if not count:
            kind = "failed submissions" if which == "failed" else "finished submissions"
            raise ModerationError(f"Phase '{phase.title}' has no {kind} to re-run.")
        audit.record(
            phase.challenge, by, "phase.rerun", target=f"phase {phase.slug}", reason=reason,
            details={"which": which, "count": count},
        )  # fmt: skip
        transaction.on_commit(partial(rerun_phase_task.delay, phase.pk, which))
    what = "failed submission" if which == "failed" else "submission"
    return Outcome(f"Re-running {count} {what}{'s' if count != 1 else ''} of '{phase.title}'.", queued=count)


@shared_task(name="organize.rerun_phase", acks_late=True, ignore_result=True)
def rerun_phase_task(phase_id: int, which: str) -> int:
    """Send a phase's failed (or all) finished submissions back to the queue; a second delivery finds
    them queued and skips them. Returns how many were queued."""
    phase = Phase.objects.filter(pk=phase_id).first()
    if phase is None:
        return 0
    queued = 0
    for submission in _rerunnable(phase, which).select_related("phase").iterator(chunk_size=500):
        edits.requeue(submission)
        queued += 1
    log.info("re-run of phase %s (%s): %d submission(s) queued", phase, which, queued)
    return queued


# --- teams: registrations and disqualification ------------------------------------------------

# Which decision applies to which status, and the status it leads to.
TRANSITIONS = {
    "approve": ({Registration.Status.PENDING, Registration.Status.REJECTED}, Registration.Status.APPROVED),
    "reject": ({Registration.Status.PENDING}, Registration.Status.REJECTED),
    "disqualify": ({Registration.Status.APPROVED}, Registration.Status.DISQUALIFIED),
    "reinstate": ({Registration.Status.DISQUALIFIED}, Registration.Status.APPROVED),
}


def decide(registration: Registration, decision: str, by: User, *, reason: str = "") -> Outcome:
    """Approve, reject, disqualify or reinstate a team, audited and e-mailed to its members.

    Disqualifying takes the team's submissions off every board of the challenge (a full
    rebuild of each phase's boards, in a worker) and, through its status, stops it
    submitting; reinstating puts them back.
    """
    if decision not in DECISIONS:
        raise ModerationError(f"Unknown decision {decision!r}; use one of {', '.join(DECISIONS)}.", field="decision")
    reason = _reason(decision, reason)
    allowed_from, to = TRANSITIONS[decision]
    with transaction.atomic():
        current = Registration.objects.select_for_update().select_related("team", "challenge").get(pk=registration.pk)
        if current.status not in allowed_from:
            raise ModerationError(
                f"Team {current.team.name} is {current.get_status_display().lower()}; it cannot be {_past(decision)}."
            )
        before = current.status
        current.status, current.reason = to, reason
        current.decided_by, current.decided_at = by, timezone.now()
        current.save(update_fields=["status", "reason", "decided_by", "decided_at"])
        audit.record(
            current.challenge, by, f"team.{decision}", target=f"team {current.team.name}", reason=reason,
            details={"from": before, "to": to},
        )  # fmt: skip
        if Registration.Status.DISQUALIFIED in (before, to):
            for phase in current.challenge.phases.all():
                transaction.on_commit(partial(board_changed.send, sender=Submission, phase=phase))
        transaction.on_commit(partial(email_decision_task.delay, current.pk, decision))
    for name in ("status", "reason", "decided_by", "decided_at"):
        setattr(registration, name, getattr(current, name))
    return Outcome(f"Team {current.team.name} {_past(decision)}; its members are e-mailed.")


def _past(decision: str) -> str:
    return {"approve": "approved", "reject": "rejected", "disqualify": "disqualified", "reinstate": "reinstated"}[
        decision
    ]


def registration_for(challenge: Challenge, team_slug: str) -> Registration:
    """The team's registration for the challenge (404 if it has none)."""
    found = Registration.objects.select_related("team").filter(challenge=challenge, team__slug=team_slug).first()
    if found is None:
        raise Http404("That team is not registered for this challenge.")
    return found


def decision_email(registration: Registration, decision: str) -> tuple[str, str]:
    """Subject and plain-text body of a decision on a team's registration."""
    challenge = registration.challenge
    url = absolute_reverse("challenges:detail", challenge.slug)
    what = {
        "approve": "was approved: your team may now submit",
        "reject": "was rejected",
        "disqualify": "was disqualified: its submissions are no longer on the boards and it cannot submit",
        "reinstate": "was reinstated: its submissions are back on the boards",
    }[decision]
    lines = [f'The registration of team "{registration.team.name}" for {challenge.title} {what}.']
    if registration.reason:
        lines += ["", "The organizers' reason:", "", registration.reason]
    lines += ["", f"The challenge: {url}"]
    if challenge.contact_email:
        lines += [f"Questions: {challenge.contact_email}"]
    return f"[DDI Leaderboard] {challenge.title}: team {registration.team.name} {_past(decision)}", "\n".join(lines)


@shared_task(name="organize.email_decision", ignore_result=True)
def email_decision_task(registration_id: int, decision: str) -> int:
    """E-mail a decision to every member of the team; returns how many messages were sent."""
    registration = Registration.objects.select_related("team", "challenge").filter(pk=registration_id).first()
    if registration is None:
        return 0
    subject, body = decision_email(registration, decision)
    addresses = sorted({u.email for u in registration.team.members.all() if u.email})
    return _send_each(subject, body, addresses)


def _send_each(subject: str, body: str, addresses: list[str]) -> int:
    """One message per address (no recipient sees another's), over one connection; failures are logged."""
    if not addresses:
        return 0
    messages = [EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [a]) for a in addresses]
    try:
        return get_connection().send_messages(messages) or 0
    except Exception:
        log.exception("could not send %d e-mail(s): %s", len(messages), subject)
        return 0


# --- announcements ------------------------------------------------------------------------------


def announce(challenge: Challenge, by: User, *, title: str, body: str, email: bool = True) -> Announcement:
    """Post an announcement (shown on the challenge page at once), audited; e-mailed by a worker."""
    title, body = (title or "").strip(), (body or "").strip()
    if not title:
        raise ModerationError("Give the announcement a title.", field="title")
    if len(title) > 200:
        raise ModerationError(f"Keep the title under 200 characters (it has {len(title)}).", field="title")
    with transaction.atomic():
        announcement = Announcement.objects.create(challenge=challenge, title=title, body=body, created_by=by)
        audit.record(
            challenge, by, "announcement.create", target=f"announcement {title[:80]}", details={"email": email}
        )
        if email:
            transaction.on_commit(partial(email_announcement_task.delay, announcement.pk))
    return announcement


def announcement_recipients(challenge: Challenge) -> list[str]:
    """The registering member of every approved or pending team that wants announcements."""
    rows = Registration.objects.filter(
        challenge=challenge,
        wants_announcements=True,
        status__in=[Registration.Status.APPROVED, Registration.Status.PENDING],
    ).select_related("user")
    return sorted({r.user.email for r in rows if r.user.email and r.user.is_active})


def announcement_email(announcement: Announcement) -> tuple[str, str]:
    challenge = announcement.challenge
    url = absolute_reverse("challenges:detail", challenge.slug)
    lines = [announcement.body or announcement.title, "", f"-- The organizers of {challenge.title}", url, ""]
    lines.append(
        "You get this because your team registered for the challenge and asked for its announcements; "
        "change that on your registration."
    )
    return f"[{challenge.title}] {announcement.title}", "\n".join(lines)


@shared_task(name="organize.email_announcement", acks_late=True, ignore_result=True)
def email_announcement_task(announcement_id: int) -> int:
    """Send an announcement once: the conditional update of ``emailed_at`` makes a second delivery a no-op."""
    claimed = Announcement.objects.filter(pk=announcement_id, emailed_at__isnull=True).update(emailed_at=timezone.now())
    if not claimed:
        return 0
    announcement = Announcement.objects.select_related("challenge").get(pk=announcement_id)
    subject, body = announcement_email(announcement)
    return _send_each(subject, body, announcement_recipients(announcement.challenge))
