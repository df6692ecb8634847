"""The email a submitter gets when scoring ends (if ``user.email_results``, on by default).

Sent by ``email_result`` on the background queue, so a slow mail server never holds a scoring process.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.db import models

from leaderboard.links import absolute_reverse
from leaderboard.submissions.models import Submission

log = logging.getLogger(__name__)


def where(phase) -> tuple[str, str]:
    """(short, long) names of what a submission went to: a task, or a challenge's phase and its task."""
    task = phase.task
    if phase.challenge.kind == phase.challenge.Kind.ORGANIZED:
        short = f"{phase.challenge.title} · {phase.title}"
        return short, f'the phase "{phase.title}" of the challenge "{phase.challenge.title}" ({task.slug})'
    return task.dataset_name, f"{task.dataset_name} ({task.slug})"


def result_email(submission: Submission) -> tuple[str, str]:
    """Subject and plain-text body for a finished submission (public scores only, as every page)."""
    task = submission.phase.task
    short, long = where(submission.phase)
    url = absolute_reverse("submissions:detail", submission.pk)
    if submission.status == Submission.Status.SCORED:
        metric = task.metric(task.primary)
        value = "not computed" if submission.primary_value is None else f"{submission.primary_value:.4f}"
        subject = f"{submission.method_name} on {short}: {metric.name} {value}"
        lines = [
            f'Your submission "{submission.method_name}" to {long} has been scored.',
            "",
            f"{metric.name}{' (public test rows)' if submission.phase.split else ''}: {value}",
        ]
    else:
        subject = f"{submission.method_name} on {short}: scoring failed"
        lines = [
            f'Your submission "{submission.method_name}" to {long} could not be scored.',
            f"Reason ({submission.get_error_kind_display().lower()}):",
            "",
            submission.error_message,
        ]
    lines += [
        "",
        f"All metrics: {url}",
        "",
        "You get these emails because result emails are on in your profile "
        f"({absolute_reverse('accounts:profile')}); switch them off there.",
    ]
    return subject, "\n".join(lines)


def send_result_email(submission: Submission) -> bool:
    """Email the submitter if they want it; never raises (a mail outage must not fail scoring)."""
    user = submission.user
    if not user.email_results or not user.email or submission.is_baseline:
        return False
    subject, body = result_email(submission)
    try:
        send_mail(f"[DDI Leaderboard] {subject}", body, settings.DEFAULT_FROM_EMAIL, [user.email])
    except Exception:
        log.exception("could not email %s about submission %s", user.email, submission.pk)
        return False
    return True


def truth_fix_email(phase, count: int) -> tuple[str, str]:
    """Subject and body of the one message a participant gets when a phase's truth is replaced."""
    short, long = where(phase)
    version = phase.truth_provenance["version"] if phase.truth_provenance else None
    mine = absolute_reverse("submissions:my", phase.challenge.slug, phase.slug)
    subject = f"{short}: the organizers fixed the test labels; your submissions are being re-scored"
    lines = [
        f"The organizers replaced the test labels of {long}" + (f" (now truth version {version})." if version else "."),
        "",
        f"Your {count} submission{'s' if count != 1 else ''} to this phase {'are' if count != 1 else 'is'} "
        "being scored again against the new labels, and the boards follow. No action is needed, and no "
        "further e-mail is sent for these re-scores: the new numbers are on your submissions page.",
        "",
        f"Your submissions: {mine}",
        "",
        "You get these emails because result emails are on in your profile "
        f"({absolute_reverse('accounts:profile')}); switch them off there.",
    ]
    return subject, "\n".join(lines)


def send_truth_fix_emails(phase) -> int:
    """One message per participant of the phase who wants result e-mails (never per submission); never raises."""
    from django.db.models import Count

    from leaderboard.accounts.models import User

    users = (
        User.objects.filter(submissions__phase=phase, submissions__is_baseline=False, email_results=True)
        .exclude(email="")
        .annotate(n=Count("submissions", filter=models.Q(submissions__phase=phase)))
        .order_by("pk")
    )
    sent = 0
    for user in users:
        subject, body = truth_fix_email(phase, user.n)
        try:
            send_mail(f"[DDI Leaderboard] {subject}", body, settings.DEFAULT_FROM_EMAIL, [user.email])
        except Exception:
            log.exception("could not email %s about the truth fix of %s", user.email, phase)
            continue
        sent += 1
    return sent


@shared_task(name="submissions.email_result", ignore_result=True)
def email_result(submission_id: str) -> bool:
    """The background job behind ``email_result_later``: email the submitter about a finished submission."""
    submission = Submission.objects.select_related("user", "phase").filter(pk=submission_id).first()
    return submission is not None and send_result_email(submission)


def email_result_later(submission_id) -> None:
    """Send ``email_result`` to the background queue; a broker outage loses the e-mail, never the score."""
    try:
        email_result.delay(str(submission_id))
    except Exception:
        log.exception("could not enqueue the result e-mail of submission %s", submission_id)
