"""The email a submitter gets when scoring ends (if ``user.email_results``, on by default).

Sent by ``email_result`` on the background queue, so a slow mail server never holds a scoring process.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail

from leaderboard.links import absolute_reverse
from leaderboard.submissions.models import Submission

log = logging.getLogger(__name__)


def result_email(submission: Submission) -> tuple[str, str]:
    """Subject and plain-text body for a finished submission."""
    task = submission.phase.task
    url = absolute_reverse("submissions:detail", submission.pk)
    if submission.status == Submission.Status.SCORED:
        metric = task.metric(task.primary)
        value = "not computed" if submission.primary_value is None else f"{submission.primary_value:.4f}"
        subject = f"{submission.method_name} on {task.dataset_name}: {metric.name} {value}"
        lines = [
            f'Your submission "{submission.method_name}" to {task.dataset_name} ({task.slug}) has been scored.',
            "",
            f"{metric.name}: {value}",
        ]
    else:
        subject = f"{submission.method_name} on {task.dataset_name}: scoring failed"
        lines = [
            f'Your submission "{submission.method_name}" to {task.dataset_name} ({task.slug}) could not be scored.',
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
