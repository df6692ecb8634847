"""Final selection: up to N scored submissions per team, until the deadline, with a sentence for every refusal."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from leaderboard.challenges.models import Phase
from leaderboard.submissions.finals import FinalRefused, set_final
from leaderboard.submissions.models import Submission
from tests.challenges.split_phase import PRIVATE_ROWS, make_split_phase, submit_scored
from tests.conftest import PASSWORD

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

MY = "/challenges/mudi-2027/test/my/"


@pytest.fixture
def phase(olga):
    return make_split_phase(olga)


@pytest.fixture
def three(phase, alice, alice_lab):
    return [submit_scored(phase, alice_lab, alice, {i}, method=f"M{i}", minutes=30 - i) for i in range(3)]


def test_a_member_selects_and_unselects_a_final_submission(three, bob):
    set_final(three[0], True, bob)
    assert Submission.objects.get(pk=three[0].pk).selected_final
    set_final(three[0], False, bob)
    assert not Submission.objects.get(pk=three[0].pk).selected_final


def test_a_team_selects_at_most_n(three, alice):
    set_final(three[0], True, alice)
    set_final(three[1], True, alice)
    with pytest.raises(FinalRefused, match="already selected 2 final submissions .*unselect one first"):
        set_final(three[2], True, alice)
    assert not Submission.objects.get(pk=three[2].pk).selected_final


def test_selecting_twice_is_not_counted_twice(three, alice):
    set_final(three[0], True, alice)
    set_final(three[0], True, alice)
    set_final(three[1], True, alice)


def test_another_team_cannot_select_it(three, charlie):
    with pytest.raises(FinalRefused, match="Only members of team Alice Lab"):
        set_final(three[0], True, charlie)


def test_a_phase_that_does_not_allow_it_says_what_is_used_instead(three, alice, phase):
    Phase.objects.filter(pk=phase.pk).update(final_selection_allowed=False)
    three[0].phase.refresh_from_db()
    with pytest.raises(FinalRefused, match="does not let teams choose .* the 2 best by public score"):
        set_final(three[0], True, alice)


def test_the_deadline_is_the_end_of_the_phase(three, alice, phase):
    Phase.objects.filter(pk=phase.pk).update(ends_at=timezone.now() - dt.timedelta(minutes=1))
    three[0].phase.refresh_from_db()
    with pytest.raises(FinalRefused, match="could be chosen until the phase ended on"):
        set_final(three[0], True, alice)


def test_only_scored_submissions_can_be_final(phase, alice, alice_lab, three):
    Submission.objects.filter(pk=three[0].pk).update(status=Submission.Status.FAILED)
    three[0].refresh_from_db()
    with pytest.raises(FinalRefused, match="Only scored submissions can be final; this one is failed"):
        set_final(three[0], True, alice)


def test_a_hidden_submission_cannot_be_final(three, alice):
    Submission.objects.filter(pk=three[0].pk).update(is_hidden=True)
    three[0].refresh_from_db()
    with pytest.raises(FinalRefused, match="hidden by the organizers"):
        set_final(three[0], True, alice)


def test_the_submission_page_has_the_toggle_and_says_kaggles_rule(client, three):
    client.login(username="alice", password=PASSWORD)
    url = f"/submissions/{three[0].pk}/"
    page = client.get(url).content.decode()
    assert "Select as final" in page
    assert "If you select none, your 2 best by public score are used." in page
    response = client.post(f"/submissions/{three[0].pk}/final", {"selected": "1"}, follow=True)
    assert response.redirect_chain[-1][0] == url
    assert "is now one of your team" in response.content.decode()
    assert "Unselect as final" in response.content.decode()


def test_a_refusal_is_shown_on_the_page(client, three):
    client.login(username="alice", password=PASSWORD)
    for s in three[:2]:
        client.post(f"/submissions/{s.pk}/final", {"selected": "1"})
    response = client.post(f"/submissions/{three[2].pk}/final", {"selected": "1"}, follow=True)
    assert "unselect one first" in response.content.decode()


def test_an_outsider_cannot_toggle_and_sees_no_toggle(client, three, charlie):
    client.login(username="charlie", password=PASSWORD)
    assert "Select as final" not in client.get(f"/submissions/{three[0].pk}/").content.decode()
    assert client.post(f"/submissions/{three[0].pk}/final", {"selected": "1"}).status_code == 403
    assert not Submission.objects.get(pk=three[0].pk).selected_final


def test_my_submissions_lists_the_teams_submissions_with_the_rule(client, three, phase, charlie):
    other = submit_scored(phase, charlie.personal_team, charlie, {PRIVATE_ROWS[0]}, method="Charlie's")
    client.login(username="bob", password=PASSWORD)
    page = client.get(MY).content.decode()
    assert "If you select none, your 2 best by public score are used." in page
    for s in three:
        assert str(s.pk) in page
    assert str(other.pk) not in page
    # Private scores are not shown before the reveal.
    assert "(private)" not in page
    assert f"{three[0].private_primary_value:.4f}" not in page


def test_my_submissions_selects_and_comes_back(client, three):
    client.login(username="alice", password=PASSWORD)
    response = client.post(f"/submissions/{three[1].pk}/final", {"selected": "1", "next": MY}, follow=True)
    assert response.redirect_chain[-1][0] == MY
    assert "Selected now: 1 of 2" in response.content.decode()


def test_my_submissions_needs_a_login_and_a_known_phase(client, three):
    assert client.get(MY).status_code == 302
    client.login(username="alice", password=PASSWORD)
    assert client.get("/challenges/mudi-2027/nope/my/").status_code == 404
    assert client.get("/challenges/unknown/test/my/").status_code == 404


def test_after_the_reveal_my_submissions_shows_private_scores_and_finals(client, three, phase):
    from leaderboard.boards.reveal import reveal_phase

    reveal_phase(phase)
    client.login(username="alice", password=PASSWORD)
    page = client.get(MY).content.decode()
    assert "(private)" in page and "final (auto)" in page
    three[0].refresh_from_db()
    assert f"{three[0].private_primary_value:.4f}" in page
