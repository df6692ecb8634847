"""The demo's organized challenge, "MUDI held-out pairs 2027", in every state a challenge goes through.

``load_benchmarks --demo`` calls ``ensure_demo_challenge`` so that ``make run``
shows an organized challenge next to the standing boards:

- ``pilot``: finished a month ago, a 30/70 public/private split, final selections made
  (one team chose, the others fall back to Kaggle's rule) and its private board revealed;
- ``development``: open now, scored on the public part of the demo truth only (every row
  is public, so its board is live);
- ``test``: the whole demo truth with the same 30/70 split, opening when development ends
  and ending in the future; its private scores stay hidden until its reveal.

The labels are synthetic MUDI-style pairs (``leaderboard.kinds.mudi.synthetic_pairs``), marked as such on
every page, and the four participating teams are demo accounts that cannot log in. The demo
account (``demo``), once it exists, co-organizes the challenge, so the manage pages can be tried.
Idempotent: a second run changes nothing.
"""

from __future__ import annotations

import datetime as dt
import io
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.utils import timezone

import scoring
from leaderboard.accounts.models import Team, User
from leaderboard.accounts.services import create_team, create_user
from leaderboard.boards.recompute import recompute_phase
from leaderboard.boards.reveal import reveal_phase
from leaderboard.challenges.models import Challenge, Phase, Registration
from leaderboard.challenges.services import import_truth
from leaderboard.kinds import mudi
from leaderboard.ops.demo import DEMO_USERNAME
from leaderboard.submissions import intake
from leaderboard.submissions.models import Submission
from scoring.splits import unit_fraction

SLUG = "mudi-held-out-2027"
TITLE = "MUDI held-out pairs 2027"
PUBLIC_FRACTION = 0.3
SPLIT = scoring.SplitSpec.hashed(PUBLIC_FRACTION, 2027)
ORGANIZER = "demo-organizer"
# (team name, member username, share of pairs given a wrong class): the teams' skill levels.
TEAMS = (("Aurora Lab", "demo-aurora", 0.18), ("Borealis", "demo-borealis", 0.25),
         ("Cygnus Group", "demo-cygnus", 0.32), ("Draco", "demo-draco", 0.40))  # fmt: skip
CLASSES = ("Synergism", "Antagonism", "New Adverse")

OVERVIEW = """Predict the pharmacodynamic interaction type of **held-out MUDI drug pairs**.

This is the demo's organized challenge: the labels are *synthetic* MUDI-style pairs, generated for
the demo, so the numbers mean nothing about any method. It shows every state a challenge goes
through: a finished pilot with its private board revealed, an open development phase and an
upcoming test phase whose private scores stay hidden until its reveal."""
RULES = """- One team per person; teams of at most four.
- Five submissions a day per team, and at most two running at once.
- In the test phase, 30% of the pairs are scored live (the public board); the other 70% decide the
  final ranking and are revealed when the phase ends. Select up to two final submissions."""
DATA = """Download the test inputs (the drug pairs to predict) and an example file for each phase
below. The file format is MUDI's: `Drug1,Interaction,Drug2`, one row per pair you predict."""
TERMS = "I will not try to obtain the hidden labels, and I will describe my method if I place in the top three."


@dataclass
class DemoChallengeReport:
    created: bool = False
    scored: list[str] = field(default_factory=list)
    revealed: bool = False


def _user(username: str, *, email: str) -> User:
    user = User.objects.filter(username=username).first()
    if user is None:
        # No password: it cannot log in. No result emails: it has no mailbox, and `make run` stays quiet.
        user = create_user(username, email, None, email_verified=True, email_results=False)
    return user


def _truth_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the whole demo truth, its public part under SPLIT), both in MUDI's native layout."""
    frame = mudi.synthetic_pairs(np.random.default_rng(2027))
    bare = frame[["Drug1", "Drug2"]].apply(lambda col: col.str.removeprefix("Compound::"))
    public = [
        unit_fraction(tuple(sorted((a, b))), SPLIT.seed) < PUBLIC_FRACTION
        for a, b in zip(bare["Drug1"], bare["Drug2"], strict=True)
    ]
    return frame, frame[np.array(public)].reset_index(drop=True)


def _prediction(truth: pd.DataFrame, error_rate: float, seed: int) -> bytes:
    """Every pair of ``truth``, a share ``error_rate`` of them given another class (a demo team's 'model')."""
    rng = np.random.default_rng(seed)
    labels = truth["Interaction"].to_numpy(dtype=object).copy()
    wrong = rng.random(len(labels)) < error_rate
    shift = rng.integers(1, len(CLASSES), size=len(labels))
    index = np.array([CLASSES.index(label) for label in labels])
    labels[wrong] = np.array(CLASSES, dtype=object)[(index[wrong] + shift[wrong]) % len(CLASSES)]
    out = io.StringIO()
    truth.assign(Interaction=labels).to_csv(out, index=False)
    return out.getvalue().encode()


def _phase(challenge: Challenge, slug: str, **fields) -> Phase:
    defaults = {"task_slug": mudi.TASK_SLUG, **fields}
    phase, _ = Phase.objects.get_or_create(challenge=challenge, slug=slug, defaults=defaults)
    return phase


def _import(phase: Phase, frame: pd.DataFrame, label: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{phase.slug}-truth.csv"
        frame.to_csv(path, index=False)
        import_truth(phase, path, synthetic=True, label=label)


def _submit(phase: Phase, team: Team, user: User, content: bytes, method: str, created_at: dt.datetime) -> Submission:
    """A demo team's submission, stored through the site's service (no quota: seeding, not a user's action)."""
    submission = intake.create_submission(
        phase=phase,
        team=team,
        user=user,
        upload=SimpleUploadedFile(f"{method.lower().replace(' ', '-')}.csv", content),
        metadata=intake.Metadata(method_name=method, description=f"{method}: a demo entry (synthetic skill)."),
        charge_quota=False,
        enqueue=False,
    )
    Submission.objects.filter(pk=submission.pk).update(created_at=created_at)
    return submission


def ensure_demo_challenge(run: Callable[[uuid.UUID], object], now: dt.datetime | None = None) -> DemoChallengeReport:
    """Create the demo challenge, its phases, truths, teams and scored entries; reveal the pilot. Idempotent.

    ``run(submission_id)`` scores one submission through the real task (load_benchmarks passes the
    worker's task function run in-process).
    """
    report = DemoChallengeReport()
    now = (now or timezone.now()).replace(minute=0, second=0, microsecond=0)
    challenge = Challenge.objects.filter(slug=SLUG).first()
    if challenge is None:
        report.created = True
        challenge = _create(now, run, report)
    demo = User.objects.filter(username=DEMO_USERNAME).first()
    if demo is not None:  # the demo account co-organizes (and may host), so make run shows the manage pages
        challenge.organizers.add(demo)
        demo.user_permissions.add(Permission.objects.get(codename="host_challenges"))
    pilot = challenge.phases.get(slug="pilot")
    if pilot.revealed_at is None:
        # The reveal reads each entry's public rank from the public board: build it here, in this
        # command, rather than wait for the worker's on-commit update (the demo may run with none).
        recompute_phase(pilot)
        report.revealed = reveal_phase(pilot).revealed
    return report


def _create(now: dt.datetime, run: Callable[[uuid.UUID], object], report: DemoChallengeReport) -> Challenge:
    day = dt.timedelta(days=1)
    whole, public_part = _truth_frames()
    with transaction.atomic():
        challenge = Challenge.objects.create(
            slug=SLUG,
            title=TITLE,
            kind=Challenge.Kind.ORGANIZED,
            overview=OVERVIEW,
            rules=RULES,
            data_description=DATA,
            terms=TERMS,
            registration_mode=Challenge.Registration.OPEN,
            max_team_size=4,
            contact_email="organizers@example.org",
            is_published=True,
        )
        challenge.organizers.add(_user(ORGANIZER, email="organizers@example.org"))
        common = {"daily_limit": 5, "total_limit": 100, "concurrent_limit": 2}
        pilot = _phase(challenge, "pilot", title="Pilot (finished)", order=0, starts_at=now - 60 * day,
                       ends_at=now - 30 * day, split=SPLIT.to_dict(), final_selection_allowed=True,
                       final_selection_count=2, **common)  # fmt: skip
        development = _phase(challenge, "development", title="Development", order=1, starts_at=now - 7 * day,
                             ends_at=now + 21 * day, **common)  # fmt: skip
        _phase(challenge, "test", title="Test", order=2, starts_at=now + 21 * day, ends_at=now + 35 * day,
               split=SPLIT.to_dict(), final_selection_allowed=True, final_selection_count=2, ladder_threshold=0.01,
               **common)  # fmt: skip
    for phase in challenge.phases.all():
        part = public_part if phase.slug == "development" else whole
        _import(phase, part, "synthetic demo data (random MUDI-style pairs, generated for the demo challenge)")
    for i, (name, username, error_rate) in enumerate(TEAMS):
        member = _user(username, email=f"{username}@example.org")
        team = Team.objects.filter(name=name).first() or create_team(member, name)
        Registration.objects.get_or_create(
            challenge=challenge, team=team, defaults={"user": member, "accepted_terms_at": now - 50 * day}
        )
        for k, (phase, truth, when) in enumerate(
            ((pilot, whole, now - 45 * day), (pilot, whole, now - 35 * day), (development, public_part, now - 2 * day))
        ):
            rate = max(0.05, error_rate - 0.04 * k)  # each team improves a little from one entry to the next
            method = f"{name.split()[0]} v{k + 1}"
            submission = _submit(phase, team, member, _prediction(truth, rate, 100 * i + k), method, when)
            run(submission.pk)
            report.scored.append(method)
        if i == 0:  # Aurora chose its first pilot entry as final; the others leave it to Kaggle's rule
            first = Submission.objects.filter(phase=pilot, team=team).order_by("created_at")[:1]
            Submission.objects.filter(pk__in=first.values("pk")).update(selected_final=True)
    return challenge
