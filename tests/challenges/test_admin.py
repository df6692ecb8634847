"""The admin shows a challenge's settings and a phase's truth versions, read-only."""

from __future__ import annotations

import pytest
from pytest_django.asserts import assertContains

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.services import import_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def test_a_phase_admin_page_lists_its_truth_versions(admin_client, tmp_path):
    challenge = Challenge.objects.create(slug="c-2027", title="C", kind="organized")
    phase = Phase.objects.create(challenge=challenge, slug="test", title="Test", task_slug="imdrug-hiv-random")
    path = tmp_path / "truth.csv"
    path.write_text("seed,id,label\n0,m1,0\n0,m2,1\n")
    result = import_truth(phase, path)
    response = admin_client.get(f"/admin/challenges/phase/{phase.pk}/change/")
    assertContains(response, result.sha256)
    assertContains(admin_client.get(f"/admin/challenges/challenge/{challenge.pk}/change/"), "Registration mode")
