"""Organized challenges and phases: hosting permission, visibility, validation, truth versions."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.utils import timezone

import scoring
from leaderboard.challenges.models import HOST_PERMISSION, Challenge, Phase, TruthVersion
from leaderboard.challenges.services import current_truth_version, import_truth

TRUTH = "seed,id,label,usage\n0,m1,0,public\n0,m2,1,private\n1,m1,1,private\n1,m3,0,public\n"


@pytest.fixture
def challenge(db, alice):
    challenge = Challenge.objects.create(slug="mudi-2027", title="MUDI held-out pairs 2027", kind="organized")
    challenge.organizers.add(alice)
    return challenge


@pytest.fixture
def phase(challenge):
    return Phase.objects.create(
        challenge=challenge, slug="test", title="Test", task_slug="imdrug-hiv-random", split={"usage": True}
    )


def test_a_staff_user_can_grant_the_hosting_permission(alice):
    assert not alice.has_perm(HOST_PERMISSION)
    alice.user_permissions.add(Permission.objects.get(codename="host_challenges"))
    alice = type(alice).objects.get(pk=alice.pk)  # permissions are cached per instance
    assert alice.has_perm(HOST_PERMISSION)


def test_an_unpublished_challenge_is_visible_to_its_organizers_and_staff_only(challenge, alice, charlie, olga):
    from django.contrib.auth.models import AnonymousUser

    assert list(Challenge.objects.organized().visible_to(alice)) == [challenge]
    assert list(Challenge.objects.organized().visible_to(olga)) == [challenge]
    assert not Challenge.objects.organized().visible_to(charlie).exists()
    assert not Challenge.objects.organized().visible_to(AnonymousUser()).exists()
    assert challenge.is_organizer(alice) and challenge.is_organizer(olga) and not challenge.is_organizer(charlie)
    challenge.is_published = True
    challenge.save(update_fields=["is_published"])
    assert list(Challenge.objects.organized().visible_to(charlie)) == [challenge]


def test_standing_benchmarks_are_published(db):
    call_command("load_benchmarks")
    assert not Challenge.objects.filter(kind="standing", is_published=False).exists()


def test_a_domains_registration_needs_a_domain(challenge):
    challenge.registration_mode = Challenge.Registration.DOMAINS
    challenge.allowed_domains = [" @Uni-Example.EDU ", ""]
    challenge.full_clean()
    assert challenge.allowed_domains == ["uni-example.edu"]
    challenge.allowed_domains = []
    with pytest.raises(ValidationError, match="at least one e-mail domain"):
        challenge.full_clean()


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"task_slug": "nope"}, "task_slug", "Unknown task"),
        ({"split": {"fraction": 1.2, "seed": 1}}, "split", "between 0 and 1"),
        ({"ends_at": timezone.now() - dt.timedelta(days=1)}, "ends_at", "ends after it starts"),
        ({"ladder_threshold": -0.1}, "ladder_threshold", "non-negative"),
        ({"final_selection_allowed": True, "final_selection_count": 0}, "final_selection_count", "at least one"),
    ],
)
def test_a_phase_says_what_is_wrong_with_its_settings(phase, changes, field, message):
    for name, value in changes.items():
        setattr(phase, name, value)
    with pytest.raises(ValidationError) as error:
        phase.full_clean()
    assert field in error.value.message_dict
    assert message in " ".join(error.value.message_dict[field])


def test_phase_defaults_match_the_issue(phase):
    assert (phase.final_selection_allowed, phase.final_selection_count) == (False, 2)
    assert phase.public_board == Phase.PublicBoard.LIVE and phase.ladder_threshold is None
    assert phase.split_spec == scoring.SplitSpec.usage()
    assert Phase(split=None).split_spec is None


def test_phases_run_in_their_order(challenge):
    Phase.objects.create(challenge=challenge, slug="a-test", title="Test", task_slug="mudi", order=2)
    Phase.objects.create(challenge=challenge, slug="z-dev", title="Development", task_slug="mudi", order=1)
    assert [p.slug for p in challenge.phases.all()] == ["z-dev", "a-test"]


def test_a_split_phase_validates_the_usage_column_and_stores_nothing_when_it_is_wrong(phase, tmp_path, alice):
    bad = tmp_path / "bad.csv"
    bad.write_text(TRUTH.replace("1,m3,0,public", "1,m3,0,secret"))
    with pytest.raises(scoring.ScoringError, match='Line 5, column "usage": "secret" is not a usage'):
        import_truth(phase, bad, uploaded_by=alice)
    phase.refresh_from_db()
    assert not phase.has_truth and not TruthVersion.objects.exists()


@pytest.mark.storage
def test_replacing_a_truth_keeps_the_old_version_and_its_file(phase, tmp_path, alice, olga):
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    first.write_text(TRUTH)
    second.write_text(TRUTH.replace("0,m2,1,private", "0,m2,0,private"))
    import_truth(phase, first, uploaded_by=alice)
    old = current_truth_version(phase.pk)
    import_truth(phase, second, uploaded_by=olga)
    new = current_truth_version(phase.pk)
    assert (old.uploaded_by, new.uploaded_by) == (alice, olga)
    assert new.sha256 == phase.truth_sha256 != old.sha256
    assert [v.pk for v in phase.truth_versions.all()] == [new.pk, old.pk]
    assert old.file.read().decode() == TRUTH  # still stored
    assert (old.n_rows, new.n_rows) == (4, 4)


@pytest.mark.storage
def test_a_stored_score_names_the_truth_version_it_used(db, alice):
    from tests.submissions.helpers import make_submission, mudi_truth_csv, score_now, standing_phase_with_truth

    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    submission = make_submission(phase, alice.personal_team, alice)
    score_now(submission)
    assert submission.truth_version == current_truth_version(phase.pk)
    assert submission.truth_version.sha256 == phase.truth_sha256
