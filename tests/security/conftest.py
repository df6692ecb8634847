"""The world the security suite probes: one of everything, owned by someone, seen by six roles.

Roles (the permission matrix):
- anonymous: no session;
- participant: alice, owner of "Alice Lab" (with bob), registered for the organized challenge,
  with a private submission on it, an API token and an invitation from charlie's team;
- other_team: charlie, in his own team "Charlie Crew";
- other_organizer: otto, organizer of another challenge ("otto-cup");
- organizer: oscar, organizer of the challenge under test ("secure-cup");
- staff: olga.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import PASSWORD


def pytest_collection_modifyitems(config, items):
    """Every test under tests/security/ carries the ``security`` marker (``pytest -m security`` runs the suite)."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.security)


ROLES = ("anonymous", "participant", "other_team", "other_organizer", "organizer", "staff")


@dataclass
class World:
    users: dict  # role -> User (no "anonymous")
    challenge: object  # the published organized challenge oscar runs
    unpublished: object  # an unpublished one oscar runs too (a private object of his)
    other_challenge: object  # otto's
    phase: object  # the challenge's open phase (MUDI, with truth)
    standing: object  # the standing MUDI phase
    private_submission: object  # alice's, on the challenge's phase
    public_submission: object  # alice's, scored, on the standing MUDI board
    charlie_submission: object  # charlie's private one on the standing board
    token_id: int  # alice's API token
    raw_tokens: dict = field(default_factory=dict)  # role -> raw bearer token
    invitation_to_alice: object = None  # from Charlie Crew, pending
    invitation_from_lab: object = None  # from Alice Lab to dora, pending
    bob: object = None


@pytest.fixture
def world(db, alice, bob, alice_lab, charlie, olga, sent):
    from leaderboard.accounts.models import Invitation
    from leaderboard.accounts.services import create_team, create_user
    from leaderboard.api.tokens import create_token
    from leaderboard.challenges.models import Challenge, Phase, Registration
    from leaderboard.challenges.services import import_truth
    from tests.submissions.helpers import make_submission, mudi_truth_csv, score_now, standing_phase_with_truth

    standing = standing_phase_with_truth("mudi", mudi_truth_csv())
    oscar = create_user("oscar", "oscar@example.org", PASSWORD, email_verified=True)
    otto = create_user("otto", "otto@example.org", PASSWORD, email_verified=True)
    dora = create_user("dora", "dora@example.org", PASSWORD, email_verified=True)

    # Both organizers may host (create challenges); the participant and the outsider may not.
    from django.contrib.auth.models import Permission

    host = Permission.objects.get(codename="host_challenges")
    for organizer in (oscar, otto):
        organizer.user_permissions.add(host)

    challenge = Challenge.objects.create(
        slug="secure-cup", title="Secure Cup", kind="organized", is_published=True, overview="Welcome."
    )
    challenge.organizers.add(oscar)
    unpublished = Challenge.objects.create(slug="draft-cup", title="Draft Cup", kind="organized")
    unpublished.organizers.add(oscar)
    Phase.objects.create(challenge=unpublished, slug="dev", title="Development", task_slug="mudi")
    other = Challenge.objects.create(slug="otto-cup", title="Otto Cup", kind="organized", is_published=True)
    other.organizers.add(otto)
    Phase.objects.create(challenge=other, slug="dev", title="Development", task_slug="mudi")

    phase = Phase.objects.create(challenge=challenge, slug="dev", title="Development", task_slug="mudi")
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "truth.csv"
        path.write_bytes(mudi_truth_csv())
        import_truth(phase, path, synthetic=True, label="security suite truth")
    phase.refresh_from_db()
    Registration.objects.create(challenge=challenge, team=alice_lab, user=alice, status="approved")

    private = make_submission(phase, alice_lab, alice, is_public=False, method_name="SecretNet")
    public = make_submission(standing, alice_lab, alice, method_name="OpenNet")
    score_now(public)
    charlie_private = make_submission(standing, charlie.personal_team, charlie, is_public=False, method_name="Hidden")

    crew = create_team(charlie, "Charlie Crew")
    to_alice = Invitation.objects.create(team=crew, invited_user=alice, invited_by=charlie)
    from_lab = Invitation.objects.create(team=alice_lab, invited_user=dora, invited_by=alice)

    users = {
        "participant": alice,
        "other_team": charlie,
        "other_organizer": otto,
        "organizer": oscar,
        "staff": olga,
    }
    token, _ = create_token(alice, "matrix", "submit")
    # The widest scope, so the API's answers are about who the user is, not what the token allows.
    raw = {role: create_token(user, "matrix-raw", "organize")[1] for role, user in users.items()}
    from leaderboard.drugs.models import Drug

    Drug.objects.create(drugbank_id="DB00001", name="Drug One", structure_svg="<svg></svg>")
    return World(
        users=users,
        challenge=challenge,
        unpublished=unpublished,
        other_challenge=other,
        phase=phase,
        standing=standing,
        private_submission=private,
        public_submission=public,
        charlie_submission=charlie_private,
        token_id=token.pk,
        raw_tokens=raw,
        invitation_to_alice=to_alice,
        invitation_from_lab=from_lab,
        bob=bob,
    )


@pytest.fixture
def sent(monkeypatch):
    """Record enqueued submission ids instead of publishing to the broker."""
    from leaderboard.submissions import queueing

    ids: list[str] = []
    monkeypatch.setattr(queueing, "enqueue", lambda submission_id: ids.append(str(submission_id)) or True)
    return ids
