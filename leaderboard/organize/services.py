"""What organizers do to a challenge: create and edit it, its organizers, its phases, its truth, bundles.

The one home of these writes: the manage pages and the API's organizer endpoints
both call them. Each writes its audit entry (``challenges.audit.record``) inside
its own transaction, so an action that rolls back leaves no entry. Re-scoring a
phase after its truth or split changed is a worker's job (``rescore_phase``),
never done in the request.
"""

from __future__ import annotations

import gzip
import logging
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import BinaryIO, cast

from celery import shared_task
from django.contrib.auth import get_user_model
from django.db import transaction

import scoring
from leaderboard.challenges import audit, bundles
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.overlap import public_overlaps
from leaderboard.challenges.services import import_truth, validate_phase_truth
from leaderboard.submissions.edits import requeue
from leaderboard.submissions.emails import send_truth_fix_emails
from leaderboard.submissions.models import Submission
from scoring.validation.imdrug import read_group_mapping, truth_with_group_column

log = logging.getLogger(__name__)

# The challenge fields the create and edit forms write (and the audit entry lists when they change).
CHALLENGE_FIELDS = (
    "title", "slug", "overview", "rules", "data_description", "terms", "registration_mode", "allowed_domains",
    "max_team_size", "contact_email", "is_published",
)  # fmt: skip
PHASE_FIELDS = (
    "title", "slug", "task_slug", "starts_at", "ends_at", "reveal_at", "daily_limit", "total_limit",
    "concurrent_limit", "board_mode", "final_selection_allowed", "final_selection_count", "public_board",
    "ladder_threshold", "split",
)  # fmt: skip
# Submissions re-queued per database round trip by rescore_phase.
RESCORE_BATCH = 200


class OrganizerError(Exception):
    """An organizer action refused with a sentence saying why (nothing was changed)."""


def _changed(before: dict, obj, fields) -> list[str]:
    return [name for name in fields if before.get(name) != getattr(obj, name)]


# How much of a long value (a Markdown page) an audit entry keeps, before and after.
AUDIT_VALUE_CHARS = 200


def _audit_value(value):
    value = _jsonable(value)
    if isinstance(value, str) and len(value) > AUDIT_VALUE_CHARS:
        return value[:AUDIT_VALUE_CHARS] + f"… ({len(value):,} characters)"
    return value


def _changes(before: dict, obj, changed: list[str]) -> dict:
    """``{field: {"before": old, "after": new}}`` for the audit entry of an edit (long text shortened)."""
    return {
        name: {"before": _audit_value(before.get(name)), "after": _audit_value(getattr(obj, name))} for name in changed
    }


def _jsonable(value):
    return value.isoformat() if hasattr(value, "isoformat") else value


# --- challenges -------------------------------------------------------------------------


def create_challenge(values: dict, by) -> Challenge:
    """A new organized challenge from the create form's cleaned values; ``by`` becomes its organizer."""
    with transaction.atomic():
        challenge = Challenge.objects.create(kind=Challenge.Kind.ORGANIZED, **values)
        challenge.organizers.add(by)
        audit.record(challenge, by, "challenge.create", target=f"challenge {challenge.slug}")
    return challenge


def update_challenge(challenge: Challenge, values: dict, by) -> list[str]:
    """Save the edit form's values; returns the names of the fields that changed (audited with them)."""
    before = {name: getattr(Challenge.objects.get(pk=challenge.pk), name) for name in CHALLENGE_FIELDS}
    for name, value in values.items():
        setattr(challenge, name, value)
    changed = _changed(before, challenge, CHALLENGE_FIELDS)
    if not changed:
        return []
    with transaction.atomic():
        challenge.save(update_fields=changed)
        action = "challenge.edit"
        if changed == ["is_published"]:
            action = "challenge.publish" if challenge.is_published else "challenge.unpublish"
        audit.record(
            challenge,
            by,
            action,
            target=f"challenge {challenge.slug}",
            details={"fields": changed, "changes": _changes(before, challenge, changed)},
        )
    return changed


def add_organizer(challenge: Challenge, username: str, by):
    """Make the user ``username`` a co-organizer; OrganizerError for an unknown name or an organizer already."""
    username = username.strip()
    users = get_user_model().objects.filter(is_active=True)
    # The exact name first: two accounts may differ only in case.
    user = users.filter(username=username).first() or users.filter(username__iexact=username).first()
    if user is None:
        raise OrganizerError(f'There is no user "{username}" on this site; check the spelling of the username.')
    if challenge.organizers.filter(pk=user.pk).exists():
        raise OrganizerError(f"{user.username} already organizes this challenge.")
    with transaction.atomic():
        challenge.organizers.add(user)
        audit.record(challenge, by, "organizer.add", target=f"user {user.username}")
    return user


def remove_organizer(challenge: Challenge, user_id: int, by):
    """Remove a co-organizer; the last organizer stays (OrganizerError), so a challenge is never orphaned."""
    with transaction.atomic():
        # Locked, so two organizers removing each other at once cannot leave none.
        list(Challenge.objects.select_for_update().filter(pk=challenge.pk))
        organizers = list(challenge.organizers.all())
        user = next((u for u in organizers if u.pk == user_id), None)
        if user is None:
            raise OrganizerError("That user does not organize this challenge.")
        if len(organizers) == 1:
            raise OrganizerError(f"{user.username} is the last organizer; add another organizer before removing them.")
        challenge.organizers.remove(user)
        audit.record(challenge, by, "organizer.remove", target=f"user {user.username}")
    return user


# --- phases -------------------------------------------------------------------------------


def overlapping_phase(
    challenge: Challenge, starts_at, ends_at, *, task_slug: str, exclude: int | None = None
) -> Phase | None:
    """Another phase of the challenge **on the same task** whose window intersects [starts_at, ends_at).

    Phases of different tasks may run at once (a challenge with two tracks, a board each); two phases
    of one task may not, or a participant could not tell which one a file is for. None: open-ended.
    """
    for other in challenge.phases.filter(task_slug=task_slug).exclude(pk=exclude or 0):
        other_end = other.ends_at
        starts_before_other_ends = other_end is None or starts_at < other_end
        other_starts_before_this_ends = ends_at is None or other.starts_at < ends_at
        if starts_before_other_ends and other_starts_before_this_ends:
            return other
    return None


def _renumber(challenge: Challenge) -> None:
    """Phases run in the order of their start: ``order`` follows the dates."""
    for order, phase in enumerate(challenge.phases.order_by("starts_at", "slug")):
        if phase.order != order:
            Phase.objects.filter(pk=phase.pk).update(order=order)


def save_phase(challenge: Challenge, phase: Phase | None, values: dict, by) -> tuple[Phase, bool]:
    """Create (``phase`` None) or update a phase from the phase form's values.

    Returns the phase and whether its submissions are being re-scored: a changed
    split moves rows between the public and the private part, so every stored
    score of the phase is recomputed by the worker.
    """
    creating = phase is None
    with transaction.atomic():
        before: dict = {}
        if phase is None:
            target = Phase(challenge=challenge)
        else:
            target = phase
            before = {name: getattr(Phase.objects.get(pk=target.pk), name) for name in PHASE_FIELDS}
        for name, value in values.items():
            setattr(target, name, value)
        target.save()
        _renumber(challenge)
        changed = list(values) if creating else _changed(before, target, PHASE_FIELDS)
        rescore = not creating and "split" in changed and target.has_truth and target.submissions.exists()
        if creating or changed:
            audit.record(
                challenge,
                by,
                "phase.create" if creating else "phase.edit",
                target=f"phase {target.slug}",
                details={
                    "fields": changed,
                    "rescored": rescore,
                    **({} if creating else {"changes": _changes(before, target, changed)}),
                },
            )
        if rescore:
            _rescore_on_commit(target)
    return target, rescore


def truth_problem_with_split(phase: Phase) -> str:
    """Why the phase's stored truth cannot be read with its (unsaved, changed) split, or "" if it can."""
    try:
        with phase.truth_file.open("rb") as handle:
            validate_phase_truth(phase, cast(BinaryIO, handle))
    except scoring.ScoringError as error:
        return error.problems[0].message if error.problems else str(error)
    return ""


# --- truth -----------------------------------------------------------------------------------


@dataclass
class TruthReplaced:
    """What ``replace_truth`` did: the stored version's sha256 and rows, and the re-scoring it started."""

    sha256: str
    n_rows: int
    changed: bool
    rescoring: int  # submissions of the phase sent back to the queue (by the worker)
    # Sentences for the organizer: e.g. the truth shares rows with a public test set hosted here.
    warnings: list[str] = field(default_factory=list)


def _suffix(name: str) -> str:
    lowered = name.lower()
    for suffix in (".csv.gz", ".tsv.gz", ".txt.gz", ".gz", ".tsv", ".txt", ".csv"):
        if lowered.endswith(suffix):
            return suffix
    return ".csv"


class GroupMappingInvalid(Exception):
    """The ``class,group`` mapping given with a truth was refused; ``error`` is scoring's, located in the mapping."""

    def __init__(self, error: scoring.ScoringError) -> None:
        super().__init__(str(error))
        self.error = error


def _save_upload(upload, path: Path) -> None:
    with open(path, "wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)


def _with_group_column(phase: Phase, path: Path, groups, tmp: Path) -> Path:
    """The truth at ``path`` written again with a ``group`` column from the mapping upload ``groups``.

    The mapping is checked first (GroupMappingInvalid), then the truth itself as it
    stands (ScoringError, located in the file the organizer gave); the written file
    keeps the truth's delimiter and compression and is what ``import_truth`` stores.
    """
    mapping = tmp / "groups.csv"
    _save_upload(groups, mapping)
    try:
        classes = read_group_mapping(phase.task, mapping)
    except scoring.ScoringError as error:
        raise GroupMappingInvalid(error) from None
    validate_phase_truth(phase, path)
    try:
        text = truth_with_group_column(phase.task, path, classes)
    except scoring.ScoringError as error:  # a class of the truth the mapping leaves out
        raise GroupMappingInvalid(error) from None
    grouped = tmp / f"grouped-{path.name}"
    grouped.write_bytes(gzip.compress(text, mtime=0) if path.name.endswith(".gz") else text)
    return grouped


def _import_uploaded(phase: Phase, path: Path, by, *, action: str, details: dict, label: str) -> TruthReplaced:
    with transaction.atomic():
        result = import_truth(phase, path, label=label[:500], uploaded_by=by)
        rescoring = 0
        if result.changed:
            rescoring = Submission.objects.filter(phase=phase).count()
            audit.record(
                phase.challenge,
                by,
                action,
                target=f"phase {phase.slug}",
                details={"sha256": result.sha256, "rows": result.n_rows, **details, "rescored": rescoring},
            )
            if rescoring:
                _rescore_on_commit(phase)
    return TruthReplaced(sha256=result.sha256, n_rows=result.n_rows, changed=result.changed, rescoring=rescoring)


def replace_truth(phase: Phase, upload, by, groups=None) -> TruthReplaced:
    """Validate an uploaded truth file with ``scoring`` and make it the phase's truth.

    ``upload`` is a Django uploaded file (the page's form and the API send one).
    Raises ``scoring.ScoringError`` for an invalid file, with nothing stored. The
    previous truth stays as an earlier ``TruthVersion``; every submission of the
    phase is then re-scored against the new one by the worker (``rescore_phase``).
    Uploading the current file again changes nothing.

    ``groups``, an optional uploaded ``class,group`` file, gives an ImDrug
    classification task's head/middle/tail groups: the truth is stored with a
    ``group`` column filled from it (replacing one the file had). A mapping scoring
    refuses raises GroupMappingInvalid, with nothing stored.
    """
    name = PurePath(upload.name or "truth.csv").name
    had_truth = phase.has_truth
    details: dict = {"file": name}
    label = f"uploaded by {by.username}: {name}"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"truth{_suffix(name)}"
        _save_upload(upload, path)
        if groups is not None:
            details["groups"] = PurePath(groups.name or "groups.csv").name
            label += f" with groups {details['groups']}"
            path = _with_group_column(phase, path, groups, Path(tmp))
        action = "truth.replace" if had_truth else "truth.upload"
        replaced = _import_uploaded(phase, path, by, action=action, details=details, label=label)
    if replaced.changed:
        phase.refresh_from_db()
        replaced.warnings = public_overlaps(phase)
    return replaced


def apply_class_groups(phase: Phase, groups, by) -> TruthReplaced:
    """Store the phase's current truth again with a ``group`` column from the uploaded ``class,group`` file.

    The same checks and the same new ``TruthVersion`` and re-scoring as ``replace_truth``
    with a mapping; OrganizerError for a phase without a truth yet.
    """
    if not phase.has_truth:
        raise OrganizerError("This phase has no truth file yet; upload the truth with its class groups.")
    name = PurePath(groups.name or "groups.csv").name
    stored = PurePath(phase.truth_file.name or "truth.csv").name
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"truth{_suffix(stored)}"
        with phase.truth_file.open("rb") as handle, open(path, "wb") as out:
            shutil.copyfileobj(handle, out)
        path = _with_group_column(phase, path, groups, Path(tmp))
        return _import_uploaded(
            phase,
            path,
            by,
            action="truth.groups",
            details={"groups": name},
            label=f"class groups {name} applied by {by.username}",
        )


def _rescore_on_commit(phase: Phase) -> None:
    truth = phase.truth_sha256
    transaction.on_commit(lambda: enqueue_rescore(phase.pk, truth))


def enqueue_rescore(phase_id: int, truth_sha256: str) -> None:
    """Hand the phase's re-scoring to the worker."""
    rescore_phase.delay(phase_id, truth_sha256)


@shared_task(name="organize.rescore_phase", ignore_result=True, acks_late=True)
def rescore_phase(phase_id: int, truth_sha256: str, after: str | None = None) -> int:
    """Send the phase's submissions back to the queue, to be scored against its current truth.

    Runs on the worker, RESCORE_BATCH submissions per task: a full batch hands the rest
    to a follow-up task (``after`` the last id it re-queued), so a phase with tens of
    thousands of submissions never makes one long task, and a lost worker loses one batch
    (redelivered: ``acks_late``). A newer truth than ``truth_sha256`` means a later task
    re-scores the phase; this one stops. Returns how many this task re-queued.
    """
    if not Phase.objects.filter(pk=phase_id, truth_sha256=truth_sha256).exists():
        log.info("phase %s has a newer truth than %s; its own re-score runs", phase_id, truth_sha256[:12])
        return 0
    batch = Submission.objects.filter(phase_id=phase_id).order_by("pk")
    if after is not None:
        batch = batch.filter(pk__gt=after)
    rows = list(batch.select_related("phase")[:RESCORE_BATCH])
    if after is None:
        # Once per truth fix, before any re-score ends: one message per participant, not one per submission.
        send_truth_fix_emails(Phase.objects.select_related("challenge").get(pk=phase_id))
    for submission in rows:
        requeue(submission, notify=False)
    if len(rows) == RESCORE_BATCH:
        rescore_phase.delay(phase_id, truth_sha256, str(rows[-1].pk))
    return len(rows)


# --- bundles ---------------------------------------------------------------------------------


def import_challenge_bundle(upload, by) -> Challenge:
    """Create a challenge from an uploaded bundle .zip (``bundles.import_bundle``: all or nothing); audited."""
    with transaction.atomic():
        challenge = bundles.import_bundle(upload, imported_by=by)
        audit.record(
            challenge,
            by,
            "challenge.import",
            target=f"challenge {challenge.slug}",
            details={"file": PurePath(upload.name or "").name, "phases": challenge.phases.count()},
        )
    return challenge


def export_challenge_bundle(challenge: Challenge, by) -> bytes:
    """The challenge as a bundle .zip (``bundles.export_bundle``); downloading the truths in it is audited."""
    data = bundles.export_bundle(challenge)
    audit.record(challenge, by, "challenge.export", target=f"challenge {challenge.slug}")
    return data


def truth_download_audited(phase: Phase, by) -> None:
    """Record that an organizer downloaded the phase's hidden truth (it is the one URL that serves it)."""
    audit.record(
        phase.challenge, by, "truth.download", target=f"phase {phase.slug}", details={"sha256": phase.truth_sha256}
    )
