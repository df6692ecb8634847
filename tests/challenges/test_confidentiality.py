"""The confidentiality contract (docs/challenges.md): nothing secret reaches a participant or a visitor.

For a phase split by a ``usage`` column and one split by hash with a seed, submissions are
scored for real, then every route of the URL conf (pages, CSV and JSON exports, chart payloads,
the API) is crawled as an anonymous visitor, a participant, a member of another team and the
organizer of another challenge, and every body and every e-mail is searched for:

- the split seed (as a whole number);
- any 12-hex-character window of any truth file's sha256 (participants see a truth version number);
- any private or all-rows value, in every way the site writes a number;
- the private keys: a response that names a private pair must name every pair of the phase (the
  test inputs and the example file), so no listing tells the private part from the public one;

and the test inputs are written in one canonical order whatever the truth file's order.
"""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client

from leaderboard.api.tokens import create_token
from scoring.splits import unit_fraction
from tests.challenges.crawl import body, every_url, leaks, needles, viewers
from tests.challenges.split_phase import make_split_phase, submit_scored
from tests.submissions.helpers import MUDI_TRUTH_ROWS

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

SEED = 48611
HASH_PUBLIC = [i for i, (a, _, b) in enumerate(MUDI_TRUTH_ROWS) if unit_fraction(sorted([a, b]), SEED) < 0.5]
USAGE_PUBLIC = [i for i in range(len(MUDI_TRUTH_ROWS)) if i % 2 == 0]


def usage_truth_listing_public_rows_first() -> bytes:
    """The organizer's file lists its public rows first: the row order must not tell."""
    order = USAGE_PUBLIC + [i for i in range(len(MUDI_TRUTH_ROWS)) if i not in USAGE_PUBLIC]
    lines = ["Drug1,Interaction,Drug2,Usage"]
    for i in order:
        a, label, b = MUDI_TRUTH_ROWS[i]
        lines.append(f"Compound::{a},{label},Compound::{b},{'public' if i in USAGE_PUBLIC else 'private'}")
    return ("\n".join(lines) + "\n").encode()


def hash_truth() -> bytes:
    lines = ["Drug1,Interaction,Drug2"] + [f"Compound::{a},{label},Compound::{b}" for a, label, b in MUDI_TRUTH_ROWS]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(params=["usage", "hash"])
def scene(request, olga, alice, alice_lab, bob, charlie):
    """A split phase with Alice Lab's public and private submissions and Charlie's; its public and private rows."""
    if request.param == "usage":
        phase = make_split_phase(olga, truth=usage_truth_listing_public_rows_first())
        public = USAGE_PUBLIC
    else:
        phase = make_split_phase(olga, truth=hash_truth(), split={"fraction": 0.5, "seed": SEED})
        public = HASH_PUBLIC
    private = [i for i in range(len(MUDI_TRUTH_ROWS)) if i not in public]
    assert len(public) >= 2 and len(private) >= 5
    # Wrong rows chosen so that every private score has a distinctive value (no short fraction).
    lab, secret, solo = (
        ({public[0], private[1], private[2]}, {private[0]}, {public[1], private[3], private[4]})
        if request.param == "usage"
        else ({public[0], private[0], private[3]}, {private[0], private[1]}, {public[1], private[0], private[2]})
    )
    plan = {
        "lab-public": (alice_lab, alice, lab, "LabNet", True),
        "lab-private": (alice_lab, bob, secret, "LabSecret", False),
        "charlie": (charlie.personal_team, charlie, solo, "Solo", True),
    }
    return phase, plan, public, private


@pytest.fixture
def dora(db):
    """The organizer of another challenge: a host, not staff."""
    from django.contrib.auth.models import Permission

    from leaderboard.accounts.services import create_user
    from leaderboard.challenges.models import Challenge

    dora = create_user("dora", "dora@example.org", "correct-horse-battery-staple", email_verified=True)
    dora.user_permissions.add(Permission.objects.get(codename="host_challenges"))
    other = Challenge.objects.create(slug="other-2027", title="Another challenge", kind="organized", is_published=True)
    other.organizers.add(dora)
    return dora


def hex_windows(phase) -> set[str]:
    """Every 12-character window of every truth file's sha256 the phase has had."""
    shas = {phase.truth_sha256, *phase.truth_versions.values_list("sha256", flat=True)}
    return {sha[i : i + 12].lower() for sha in shas for i in range(len(sha) - 11)}


def pair_spellings(i: int) -> set[str]:
    """The ways a page or file names pair ``i``: with or without the prefix, either orientation."""
    a, _, b = MUDI_TRUTH_ROWS[i]
    out = set()
    for x, y in ((a, b), (b, a)):
        out |= {f"{x},{y}", f"Compound::{x},Compound::{y}", f"{x}\t{y}", f"Compound::{x}\tCompound::{y}"}
    return out


def names_pair(text: str, i: int) -> bool:
    return any(spelling in text for spelling in pair_spellings(i))


def secrets_in(text: str, *, windows: set[str], found: dict[str, str], public, private) -> list[str]:
    problems = []
    seed = re.search(rf"(?<![\w.]){SEED}(?!\w)", text)
    if seed:
        problems.append(f"the split seed in ...{text[max(0, seed.start() - 60) : seed.end() + 20]!r}...")
    lower = text.lower()
    problems += [f"truth sha256 window {w!r}" for w in sorted(windows) if w in lower][:1]
    problems += leaks(text, found)
    named_private = [i for i in private if names_pair(text, i)]
    if named_private and not all(names_pair(text, i) for i in public):
        problems.append(f"names private pairs {named_private} without every public pair")
    return problems


def test_no_secret_reaches_a_participant_or_a_visitor_before_the_reveal(
    scene, alice, charlie, dora, django_capture_on_commit_callbacks, result_emails_sent_at_once
):
    phase, plan, public, private = scene
    submissions = {}
    for key, (team, user, wrong, method, is_public) in plan.items():
        # The commit callbacks run as in production: the board update and the result e-mail.
        with django_capture_on_commit_callbacks(execute=True):
            submissions[key] = submit_scored(phase, team, user, wrong, method=method, is_public=is_public)
    found = needles(submissions)
    assert found, "no distinctive private value to search for"
    windows = hex_windows(phase)
    assert len(windows) >= 53

    other_organizer = Client()
    other_organizer.force_login(dora)
    crawlers = [
        *viewers(alice, charlie),
        (
            "another challenge's organizer",
            other_organizer,
            {"HTTP_AUTHORIZATION": f"Bearer {create_token(dora, 'leak', 'organize')[1]}"},
        ),
    ]
    problems = []
    requested = 0
    for who, client, api in crawlers:
        for url in every_url(phase, submissions, None):
            response = client.get(url, **(api if url.startswith("/api/") else {}))
            requested += 1
            assert response.status_code < 500, f"{who} GET {url}: {response.status_code}"
            text = body(response)
            found_here = secrets_in(text, windows=windows, found=found, public=public, private=private)
            problems += [f"{who} GET {url}: {problem}" for problem in found_here]
    assert mail.outbox, "the result e-mails were sent, and are searched"
    for message in mail.outbox:
        text = message.subject + "\n" + message.body
        found_here = secrets_in(text, windows=windows, found=found, public=public, private=private)
        problems += [f"e-mail {message.subject!r}: {problem}" for problem in found_here]
    assert requested > 400
    assert not problems, "\n".join(problems[:30])


def test_the_test_inputs_come_in_one_canonical_order_whatever_the_truth_files_order(olga, client):
    phase = make_split_phase(olga, truth=usage_truth_listing_public_rows_first())
    lines = body(client.get(f"/challenges/{phase.challenge.slug}/{phase.slug}/inputs.csv")).splitlines()
    assert lines[0] == "Drug1,Drug2"
    assert len(lines) == 1 + len(MUDI_TRUTH_ROWS)
    assert lines[1:] == sorted(lines[1:])
    example = body(client.get(f"/challenges/{phase.challenge.slug}/{phase.slug}/example.csv")).splitlines()
    keys = [",".join(line.split(",")[i] for i in (0, 2)) for line in example[1:]]
    assert keys == sorted(keys)
