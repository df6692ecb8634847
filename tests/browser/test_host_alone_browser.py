"""A host starts alone, in Chromium: the role the documented way, two tasks at once, bulk download, a truth
fix and an early reveal.

Hana has an account and nothing else. The 403 page of /challenges/new/ names the staff member to ask;
Stella grants the role on the staff page. Hana creates a challenge with two overlapping phases of two
tasks, uploads both truths and publishes it; two teams submit to the MUDI phase (a real worker scores
them). Hana downloads every file as one .zip from the moderation page, replaces the MUDI truth (the
worker re-scores against version 2, which participants see as "truth version 2"), and reveals the
MUDI phase early: the challenge is then still open, with the other task's phase running.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.registration import register
from leaderboard.submissions.models import Submission
from leaderboard.submissions.runs import score_submission
from tests.browser.test_organize_browser import log_in, upload_truth, utc
from tests.conftest import PASSWORD, wait_for
from tests.organize.test_class_groups import TRUTH as USPTO_TRUTH
from tests.submissions.helpers import make_submission, mudi_prediction_csv, mudi_truth_csv

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.storage]


@pytest.fixture
def cast(transactional_db):
    from leaderboard.accounts.services import create_user

    hana = create_user("hana", "hana@example.org", PASSWORD, email_verified=True)
    stella = create_user("stella", "stella@example.org", PASSWORD, is_staff=True, email_verified=True)
    return hana, stella


def add_phase(page, title: str, slug: str, task: str, starts: str, ends: str) -> None:
    page.get_by_role("link", name="Phases", exact=True).click()
    page.get_by_role("link", name="Add a phase").click()
    page.fill("input[name=title]", title)
    page.fill("input[name=slug]", slug)
    page.select_option("select[name=task_slug]", task)
    page.fill("input[name=starts_at]", starts)
    page.fill("input[name=ends_at]", ends)
    page.get_by_role("button", name="Create the phase").click()
    page.wait_for_url(f"**/manage/phases/{slug}/")


def test_a_host_starts_alone_runs_two_tasks_downloads_fixes_a_truth_and_reveals_early(
    browser, live_server, cast, alice, charlie, worker_factory, tmp_path
):
    worker_factory()

    def new_page():
        context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
        pg = context.new_page()
        pg.set_default_timeout(20_000)
        return pg

    # Without the role: the refusal says how to get it and whom to ask.
    hana = new_page()
    log_in(hana, "hana")
    response = hana.goto("/challenges/new/")
    assert response is not None and response.status == 403
    refusal = hana.locator("main").inner_text()
    assert "python manage.py grant_host" in refusal and "stella" in refusal and "/staff/hosts/" in refusal

    # The staff member grants it on the staff page.
    stella = new_page()
    log_in(stella, "stella")
    stella.goto("/staff/hosts/")
    stella.fill("#grant-form input[name=username]", "hana")
    stella.get_by_role("button", name="Grant").click()
    stella.wait_for_url("**/staff/hosts/")
    assert "hana" in stella.locator("#hosts").inner_text()

    # Two tasks at once: overlapping phases of MUDI and USPTO-50K, a truth each, published.
    hana.goto("/challenges/new/")
    hana.fill("input[name=title]", "Two tracks 2027")
    hana.fill("input[name=slug]", "two-tracks")
    hana.get_by_role("button", name="Create the challenge").click()
    hana.wait_for_url("**/challenges/two-tracks/manage/")
    (tmp_path / "pairs.csv").write_bytes(mudi_truth_csv())
    (tmp_path / "reactions.csv").write_bytes(USPTO_TRUTH)
    add_phase(hana, "Pairs", "pairs", "mudi", utc(-1), utc(10))
    upload_truth(hana, tmp_path / "pairs.csv")
    add_phase(hana, "Reactions", "reactions", "imdrug-uspto50k-random", utc(-1), utc(20))
    upload_truth(hana, tmp_path / "reactions.csv")
    hana.get_by_role("link", name="Overview").click()
    hana.get_by_label("Published").check()
    hana.get_by_role("button", name="Save", exact=True).click()
    hana.wait_for_url("**/challenges/two-tracks/manage/")
    challenge = Challenge.objects.get(slug="two-tracks")
    pairs, reactions = Phase.objects.get(challenge=challenge, slug="pairs"), challenge.phases.get(slug="reactions")
    assert challenge.is_published and pairs.is_open and reactions.is_open and pairs.has_truth and reactions.has_truth
    for slug in ("pairs", "reactions"):
        assert hana.goto(f"/challenges/two-tracks/{slug}/board/").status == 200

    # Two teams submit to the MUDI phase, scored by the worker.
    entries = []
    for user, wrong in ((alice, 2), (charlie, 3)):
        register(challenge, user.personal_team, user, accept_terms=True)
        submission = make_submission(
            pairs, user.personal_team, user, mudi_prediction_csv(wrong), method_name=user.username
        )
        score_submission.apply(args=[str(submission.pk)])
        entries.append(submission)
    wait_for(lambda: Submission.objects.filter(phase=pairs, status="scored").count() == 2, timeout=90,
             message="both submissions scored")  # fmt: skip

    # Every file in bulk, from the moderation page.
    hana.goto("/challenges/two-tracks/manage/submissions/")
    with hana.expect_download() as download:
        hana.get_by_role("link", name="Download every file (.zip)").click()
    archive = zipfile.ZipFile(io.BytesIO(open(download.value.path(), "rb").read()))
    names = archive.namelist()
    assert names[0] == "scores.csv"
    for s in entries:
        assert f"files/pairs/{s.team.slug}/{s.pk}-predictions.csv" in names

    # A truth fix: the worker re-scores both against version 2; participants see the version, not a hash.
    fixed = mudi_truth_csv().replace(b"Synergism,Compound::DB00002", b"Antagonism,Compound::DB00002")
    (tmp_path / "fixed.csv").write_bytes(fixed)
    hana.goto("/challenges/two-tracks/manage/phases/pairs/")
    upload_truth(hana, tmp_path / "fixed.csv")
    assert "being re-scored" in hana.locator(".messages").inner_text()
    pairs.refresh_from_db()
    wait_for(
        lambda: (
            Submission.objects.filter(phase=pairs, status="scored", truth_version__sha256=pairs.truth_sha256).count()
            == 2
        ),
        timeout=120,
        message="both submissions re-scored against the fixed truth",
    )
    participant = new_page()
    log_in(participant, "alice")
    participant.goto(f"/submissions/{entries[0].pk}/")
    provenance = participant.locator(".provenance").inner_text()
    assert "truth version 2" in provenance and pairs.truth_sha256[:12] not in participant.content()

    # An early reveal closes the MUDI phase at once; the other task's phase keeps the challenge open.
    hana.goto("/challenges/two-tracks/manage/phases/pairs/")
    hana.locator("#reveal-now-pairs").click()
    hana.wait_for_load_state()
    pairs.refresh_from_db()
    assert pairs.revealed_at is not None and not pairs.is_open
    participant.goto("/challenges/two-tracks/")
    assert participant.locator(".challenge-meta .badge").first.inner_text() == "open now"
    assert participant.locator("#phase-pairs .badge").first.inner_text() == "closed"
    assert participant.locator("#phase-reactions .badge").first.inner_text() == "open"
