"""/challenges/<slug>/manage/phases/new/ and .../phases/<phase>/: every phase setting, validated by field."""

from __future__ import annotations

import datetime as dt

import pytest
from pytest_django.asserts import assertContains

from leaderboard.challenges.models import AuditEntry, Phase
from tests.boards.conftest import mudi_metrics, scored
from tests.organize.conftest import NOW


def utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")


def phase_data(**overrides) -> dict:
    data = {
        "title": "Test",
        "slug": "test",
        "task_slug": "mudi",
        "starts_at": "2030-01-10 12:00",
        "ends_at": "2030-02-10 12:00",
        "reveal_at": "",
        "daily_limit": "3",
        "total_limit": "50",
        "concurrent_limit": "2",
        "board_mode": "latest",
        "public_board": "hidden",
        "final_selection_allowed": "on",
        "final_selection_count": "2",
        "ladder_threshold": "0.01",
        "split_mode": "fraction",
        "split_fraction": "0.3",
        "split_seed": "7",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def test_the_organizer_creates_a_phase_with_every_setting(client, olga, challenge):
    client.force_login(olga)
    response = client.post("/challenges/mudi-2027/manage/phases/new/", phase_data())
    assert response.status_code == 302 and response["Location"] == "/challenges/mudi-2027/manage/phases/test/"
    phase = Phase.objects.get(challenge=challenge, slug="test")
    assert phase.starts_at == dt.datetime(2030, 1, 10, 12, 0, tzinfo=dt.UTC)
    assert phase.ends_at == dt.datetime(2030, 2, 10, 12, 0, tzinfo=dt.UTC)
    assert (phase.daily_limit, phase.total_limit, phase.concurrent_limit) == (3, 50, 2)
    assert (phase.board_mode, phase.public_board, phase.ladder_threshold) == ("latest", "hidden", 0.01)
    assert phase.final_selection_allowed and phase.final_selection_count == 2
    assert phase.split == {"fraction": 0.3, "seed": 7}
    assert phase.order == 1  # after the development phase, by its dates
    assert AuditEntry.objects.filter(challenge=challenge, action="phase.create", target="phase test").exists()


def test_dates_are_entered_and_shown_in_utc(client, olga, challenge):
    client.force_login(olga)
    page = client.get("/challenges/mudi-2027/manage/phases/development/")
    assertContains(page, "Starts (UTC)")
    # From the phase itself: this module's NOW is a second copy of the conftest's (pytest imports
    # the conftest under its own name), computed a moment later, sometimes in the next minute.
    assertContains(page, f'value="{utc(Phase.objects.get(slug="development").starts_at)}"')


def test_the_usage_column_split_and_no_split(client, olga, challenge):
    client.force_login(olga)
    client.post("/challenges/mudi-2027/manage/phases/new/", phase_data(split_mode="usage"))
    assert Phase.objects.get(slug="test").split == {"usage": True}
    client.post("/challenges/mudi-2027/manage/phases/new/", phase_data(
        slug="final", starts_at="2030-03-01 00:00", ends_at="2030-04-01 00:00", split_mode="none"
    ))  # fmt: skip
    assert Phase.objects.get(slug="final").split is None


def test_overlapping_phases_are_refused_naming_the_other_phase(client, olga, challenge):
    client.force_login(olga)
    response = client.post(
        "/challenges/mudi-2027/manage/phases/new/", phase_data(starts_at=utc(NOW), ends_at=utc(NOW + dt.timedelta(30)))
    )
    assertContains(response, "Starts (UTC): These dates overlap the phase &quot;Development&quot;", status_code=400)
    assertContains(response, "which scores the same task", status_code=400)
    assert not Phase.objects.filter(slug="test").exists()


def test_phases_of_different_tasks_run_at_once_each_with_its_board(client, olga, challenge):
    client.force_login(olga)
    data = phase_data(task_slug="chemicalx-drugcomb", starts_at=utc(NOW), ends_at=utc(NOW + dt.timedelta(30)))
    response = client.post("/challenges/mudi-2027/manage/phases/new/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert {p.slug: p.is_open for p in challenge.phases.all()} == {"development": True, "test": True}
    assert client.get("/challenges/mudi-2027/test/board/").status_code == 200
    assert client.get("/challenges/mudi-2027/development/board/").status_code == 200


def test_a_phase_ends_after_it_starts(client, olga, challenge):
    client.force_login(olga)
    response = client.post(
        "/challenges/mudi-2027/manage/phases/new/", phase_data(starts_at="2030-02-01 00:00", ends_at="2030-01-01 00:00")
    )
    assertContains(response, "Ends (UTC): The phase must end after it starts.", status_code=400)


def test_an_unknown_task_cannot_be_chosen(client, olga, challenge):
    client.force_login(olga)
    response = client.post("/challenges/mudi-2027/manage/phases/new/", phase_data(task_slug="no-such-task"))
    assertContains(response, "Task: Select a valid choice.", status_code=400)


def test_other_errors_name_their_field(client, olga, challenge):
    client.force_login(olga)
    response = client.post("/challenges/mudi-2027/manage/phases/new/", phase_data(
        slug="development", starts_at="tomorrow", split_fraction="", daily_limit="-1",
    ))  # fmt: skip
    assert response.status_code == 400
    for message in ("Address (slug): This challenge already has a phase &quot;development&quot;.",
                    "Starts (UTC): Enter a valid date/time.", "Public fraction: Give the public fraction",
                    "Submissions per team per day: Ensure this value is greater than or equal to 0."):  # fmt: skip
        assertContains(response, message, status_code=400)


def test_the_organizer_edits_a_phase(client, olga, phase):
    client.force_login(olga)
    data = phase_data(slug="development", title="Dev", starts_at=utc(phase.starts_at), ends_at=utc(phase.ends_at),
                      split_mode="none", reveal_at=utc(phase.ends_at + dt.timedelta(days=1)))  # fmt: skip
    response = client.post("/challenges/mudi-2027/manage/phases/development/", data)
    assert response.status_code == 302
    phase.refresh_from_db()
    assert phase.title == "Dev" and phase.daily_limit == 3
    assert phase.reveal_at == phase.ends_at + dt.timedelta(days=1)
    entry = AuditEntry.objects.get(action="phase.edit")
    assert "title" in entry.details["fields"] and "starts_at" not in entry.details["fields"]
    assert entry.details["changes"]["title"] == {"before": "Development", "after": "Dev"}
    assert entry.details["changes"]["reveal_at"]["before"] is None
    assert entry.details["changes"]["reveal_at"]["after"] == (phase.ends_at + dt.timedelta(days=1)).isoformat()


@pytest.mark.storage
def test_a_new_split_on_a_phase_with_truth_rescores_its_submissions(
    client, olga, alice, phase_with_truth, rescores, django_capture_on_commit_callbacks
):
    scored(phase_with_truth, alice.personal_team, "GraphDDI", mudi_metrics(0.5))
    client.force_login(olga)
    data = phase_data(slug="development", title="Development", starts_at=utc(phase_with_truth.starts_at),
                      ends_at=utc(phase_with_truth.ends_at))  # fmt: skip
    with_usage = client.post("/challenges/mudi-2027/manage/phases/development/", {**data, "split_mode": "usage"})
    assertContains(with_usage, "The current truth file does not fit this split", status_code=400)
    phase_with_truth.refresh_from_db()
    assert phase_with_truth.split is None and rescores == []
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/challenges/mudi-2027/manage/phases/development/", data, follow=True)
    assertContains(response, "Every submission of the phase is being re-scored with the new split.")
    phase_with_truth.refresh_from_db()
    assert phase_with_truth.split == {"fraction": 0.3, "seed": 7}
    assert rescores == [(phase_with_truth.pk, phase_with_truth.truth_sha256)]


def test_an_unknown_phase_is_404(client, olga, challenge):
    client.force_login(olga)
    assert client.get("/challenges/mudi-2027/manage/phases/nope/").status_code == 404


def test_the_phases_page_lists_them_in_order(client, olga, challenge):
    client.force_login(olga)
    client.post("/challenges/mudi-2027/manage/phases/new/", phase_data())
    page = client.get("/challenges/mudi-2027/manage/phases/").content.decode()
    assert page.index("Development") < page.index(">Test<")


def test_the_phase_page_carries_the_reveal_controls(client, olga, phase):
    client.force_login(olga)
    page = client.get("/challenges/mudi-2027/manage/phases/development/")
    assertContains(page, 'action="/challenges/mudi-2027/manage/phases/development/reveal"')
