"""The organizer's Reveal now and Postpone buttons: organizers only (404 for others), then back with a message."""

from __future__ import annotations

import pytest

from leaderboard.challenges.models import Phase
from tests.challenges.split_phase import make_split_phase
from tests.conftest import PASSWORD

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

REVEAL = "/challenges/mudi-2027/manage/phases/test/reveal"
POSTPONE = "/challenges/mudi-2027/manage/phases/test/postpone"


@pytest.fixture
def phase(olga):
    return make_split_phase(olga)


def test_an_organizer_reveals_a_phase_now(client, phase, olga):
    client.login(username="olga", password=PASSWORD)
    response = client.post(REVEAL, {"next": "/challenges/mudi-2027/"}, follow=True)
    assert response.redirect_chain[-1][0] == "/challenges/mudi-2027/"
    assert Phase.objects.get(pk=phase.pk).revealed_at is not None
    response = client.post(REVEAL, follow=True)
    assert "already revealed" in response.content.decode()


def test_an_organizer_postpones_the_reveal(client, phase, olga):
    client.login(username="olga", password=PASSWORD)
    until = phase.ends_at.replace(microsecond=0) + __import__("datetime").timedelta(days=2)
    client.post(POSTPONE, {"until": until.strftime("%Y-%m-%dT%H:%M"), "reason": "late labels"})
    assert Phase.objects.get(pk=phase.pk).reveal_at == until.replace(second=0)


def test_a_postponement_without_a_time_says_how_to_write_one(client, phase, olga):
    client.login(username="olga", password=PASSWORD)
    response = client.post(POSTPONE, {"until": "next week"}, follow=True)
    assert "Give the new reveal time as a date and time" in response.content.decode()
    assert Phase.objects.get(pk=phase.pk).reveal_at is None


@pytest.mark.parametrize("url", [REVEAL, POSTPONE])
def test_participants_and_outsiders_get_a_404(client, phase, alice, url):
    client.login(username="alice", password=PASSWORD)
    assert client.post(url).status_code == 404
    assert Phase.objects.get(pk=phase.pk).revealed_at is None


@pytest.mark.parametrize("url", [REVEAL, POSTPONE])
def test_anonymous_visitors_are_sent_to_log_in(client, phase, url):
    response = client.post(url)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_buttons_take_post_only(client, phase, olga):
    client.login(username="olga", password=PASSWORD)
    assert client.get(REVEAL).status_code == 405


def test_the_controls_include_renders_for_an_open_and_a_revealed_phase(rf, phase, olga):
    from django.template.loader import render_to_string

    from leaderboard.boards.reveal import reveal_phase

    request = rf.get("/challenges/mudi-2027/manage/phases/test/")
    html = render_to_string("organize/_reveal_controls.html", {"phase": phase, "request": request})
    assert REVEAL in html and POSTPONE in html
    reveal_phase(phase)
    phase.refresh_from_db()
    html = render_to_string("organize/_reveal_controls.html", {"phase": phase, "request": request})
    assert "Revealed on" in html and "/challenges/mudi-2027/test/board/private/" in html
