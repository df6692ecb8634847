"""/challenges/<slug>/ as a participant sees it: registration, timeline, quota, finals, downloads, announcements."""

# ruff: noqa: F811 (the fixtures imported from tests.challenges.participants are test arguments)
from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from leaderboard.challenges.models import Announcement
from tests.challenges.participants import mudi_2027, register, sent, submit_to  # noqa: F401

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def phase_card(content: str, slug: str) -> str:
    start = content.index(f'id="phase-{slug}"')
    return content[start : content.index("</li>", content.index('class="actions"', start))]


def test_an_anonymous_visitor_is_asked_to_log_in_to_register(client, mudi_2027):
    response = client.get("/challenges/mudi-2027/")
    assertContains(response, 'href="/accounts/login/?next=/challenges/mudi-2027/"')
    assertNotContains(response, "/submit/")


def test_a_user_without_registration_is_offered_the_register_page(alice_client, mudi_2027):
    response = alice_client.get("/challenges/mudi-2027/")
    assertContains(response, 'href="/challenges/mudi-2027/register/"')
    assertNotContains(response, "/submit/")


def test_the_tabs_link_to_every_section(client, mudi_2027):
    response = client.get("/challenges/mudi-2027/")
    for anchor in ("overview", "phases", "rules", "data", "announcements"):
        assertContains(response, f'href="#{anchor}"')
        assertContains(response, f'id="{anchor}"')


def test_the_timeline_shows_utc_dates_and_how_long_until_each_change(client, mudi_2027):
    test = mudi_2027.phases.get(slug="test")
    test.starts_at = timezone.now() + dt.timedelta(hours=5, minutes=10)
    test.save()
    content = client.get("/challenges/mudi-2027/").content.decode()
    dev = mudi_2027.phases.get(slug="dev")
    assert f'<time datetime="{dev.ends_at.isoformat()}" data-local>{dev.ends_at:%Y-%m-%d %H:%M} UTC</time>' in content
    assert "Ends in 3 days." in phase_card(content, "dev")
    assert "Opens in 5 hours." in phase_card(content, "test")
    assert content.index('id="phase-dev"') < content.index('id="phase-test"')  # phases in their running order
    assert '<script src="/static/js/challenge_timeline.js" defer></script>' in content


def test_a_finished_phase_says_how_long_ago_it_ended(client, mudi_2027):
    mudi_2027.phases.filter(slug="dev").update(
        starts_at=timezone.now() - dt.timedelta(days=30), ends_at=timezone.now() - dt.timedelta(days=2, hours=1)
    )
    assertContains(client.get("/challenges/mudi-2027/"), "Ended 2 days ago.")


def test_an_approved_team_sees_its_quota_and_a_submit_button_on_open_phases(alice_client, alice, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027)
    submit_to(alice_client, alice.personal_team)
    content = alice_client.get("/challenges/mudi-2027/").content.decode()
    dev = phase_card(content, "dev")
    assert "1 submission so far; 4 of 5 left today, 99 of 100 in total" in dev
    assert 'href="/challenges/mudi-2027/dev/submit/"' in dev
    assert "/challenges/mudi-2027/test/submit/" not in content  # not open yet


def test_a_pending_team_sees_no_submit_button(alice_client, alice, mudi_2027):
    register(alice.personal_team, alice, mudi_2027, status="pending")
    response = alice_client.get("/challenges/mudi-2027/")
    assertContains(response, "you can submit once they have")
    assertNotContains(response, "/submit/")


def test_the_final_selections_are_listed_for_the_team(alice_client, alice, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027)
    submit_to(alice_client, alice.personal_team, method_name="Picked")
    submit_to(alice_client, alice.personal_team, method_name="Not picked")
    dev = phase_card(alice_client.get("/challenges/mudi-2027/").content.decode(), "dev")
    assert "Final selections (0 of 2): none yet: your 2 best by public score count." in dev
    picked = alice.personal_team.submissions.get(method_name="Picked")
    picked.selected_final = True
    picked.save(update_fields=["selected_final"])
    dev = phase_card(alice_client.get("/challenges/mudi-2027/").content.decode(), "dev")
    assert "Final selections (1 of 2)" in dev
    assert f'<a href="{picked.get_absolute_url()}">Picked</a>' in dev
    assert "Not picked" not in dev


def test_others_see_neither_the_teams_quota_nor_its_selections(client, alice, charlie, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027)
    client.force_login(charlie)
    assertNotContains(client.get("/challenges/mudi-2027/"), "left today")


def test_each_phase_links_to_its_board(client, mudi_2027):
    content = client.get("/challenges/mudi-2027/").content.decode()
    for slug in ("dev", "test"):
        assert f'href="/challenges/mudi-2027/{slug}/board/">' in phase_card(content, slug)
    assert "/board/private/" not in content


def test_a_revealed_split_phase_links_its_private_board(client, mudi_2027):
    mudi_2027.phases.filter(slug="dev").update(
        split={"fraction": 0.3, "seed": 1}, ends_at=timezone.now() - dt.timedelta(hours=1), revealed_at=timezone.now()
    )
    dev = phase_card(client.get("/challenges/mudi-2027/").content.decode(), "dev")
    assert 'href="/challenges/mudi-2027/dev/board/">Public board</a>' in dev
    assert 'href="/challenges/mudi-2027/dev/board/private/">Private board</a>' in dev


def test_a_team_with_submissions_is_sent_to_its_submissions_page_to_choose_finals(alice_client, alice, mudi_2027, sent):
    register(alice.personal_team, alice, mudi_2027)
    content = alice_client.get("/challenges/mudi-2027/").content.decode()
    assert "/challenges/mudi-2027/dev/my/" not in content  # nothing to choose from yet
    submit_to(alice_client, alice.personal_team)
    dev = phase_card(alice_client.get("/challenges/mudi-2027/").content.decode(), "dev")
    assert '<a href="/challenges/mudi-2027/dev/my/">Choose on your submissions page</a>' in dev


def test_the_data_tab_offers_inputs_and_an_example_file_per_open_phase(client, mudi_2027):
    response = client.get("/challenges/mudi-2027/")
    assertContains(response, 'href="/challenges/mudi-2027/dev/inputs.csv"')
    assertContains(response, 'href="/challenges/mudi-2027/dev/example.csv"')
    assertNotContains(response, "/challenges/mudi-2027/test/example.csv")
    assertContains(response, "offered when the phase opens")
    example = client.get("/challenges/mudi-2027/dev/example.csv")
    assert example.status_code == 200
    assert example["Content-Disposition"] == 'attachment; filename="mudi-2027-dev-example.csv"'
    lines = example.content.decode().splitlines()
    assert lines[0] == "Drug1,Interaction,Drug2" and len(lines) == 13  # the twelve pairs, one constant class
    assert len({line.split(",")[1] for line in lines[1:]}) == 1


def test_the_example_file_follows_the_inputs_rules(client, alice, charlie, mudi_2027):
    assert client.get("/challenges/mudi-2027/test/example.csv").status_code == 404  # no truth, not open
    assert client.get("/challenges/mudi-2027/nope/example.csv").status_code == 404
    mudi_2027.is_published = False
    mudi_2027.save()
    client.force_login(charlie)
    assert client.get("/challenges/mudi-2027/dev/example.csv").status_code == 404


def test_announcements_are_shown_newest_first_and_sanitised(client, mudi_2027, olga):
    now = timezone.now()
    yesterday = now - dt.timedelta(days=1)
    Announcement.objects.create(challenge=mudi_2027, title="Welcome", body="Hello", created_at=yesterday)
    Announcement.objects.create(
        challenge=mudi_2027, title="Truth fixed", body="Re-scored **all**.<script>alert(1)</script>", created_at=now
    )
    response = client.get("/challenges/mudi-2027/")
    content = response.content.decode()
    assert content.index("Truth fixed") < content.index("Welcome")
    assertContains(response, "Re-scored <strong>all</strong>.")
    assertNotContains(response, "<script>alert(1)</script>", html=False)
    assertContains(response, "Announcements (2)")


def test_the_page_says_when_there_are_no_announcements(client, mudi_2027):
    assertContains(client.get("/challenges/mudi-2027/"), "No announcements yet.")


def test_an_organizer_is_told_they_do_not_take_part(client, olga, mudi_2027):
    client.force_login(olga)
    response = client.get("/challenges/mudi-2027/")
    assertContains(response, "You organize this challenge")
    assertNotContains(response, 'href="/challenges/mudi-2027/register/"')
    assertContains(response, 'href="/challenges/mudi-2027/dev/submit/"')  # baselines


def test_the_list_shows_dates_and_the_registration_mode(client, mudi_2027):
    mudi_2027.registration_mode = "approval"
    mudi_2027.max_team_size = 4
    mudi_2027.save()
    dev, test = mudi_2027.phases.all()
    response = client.get("/challenges/")
    assertContains(response, f"{dev.starts_at:%Y-%m-%d} to {test.ends_at:%Y-%m-%d} (UTC)")
    assertContains(response, "Registration: approved by the organizers · teams of at most 4")


def test_the_page_costs_a_bounded_number_of_queries(alice_client, alice, mudi_2027, django_assert_max_num_queries):
    register(alice.personal_team, alice, mudi_2027)
    with django_assert_max_num_queries(20):
        alice_client.get("/challenges/mudi-2027/")
