"""/challenges/ and /challenges/<slug>/: published challenges for all, unpublished ones for organizers only."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from leaderboard.challenges.models import Challenge, Phase

NOW = timezone.now()


def organized(slug: str, title: str, *, published: bool = True, start_days: int, end_days: int | None, **fields):
    challenge = Challenge.objects.create(slug=slug, title=title, kind="organized", is_published=published, **fields)
    Phase.objects.create(
        challenge=challenge,
        slug="test",
        title="Test",
        task_slug="mudi",
        starts_at=NOW + dt.timedelta(days=start_days),
        ends_at=None if end_days is None else NOW + dt.timedelta(days=end_days),
    )
    return challenge


@pytest.fixture
def challenges(db, alice):
    hidden = organized("draft-2027", "Draft challenge", published=False, start_days=10, end_days=20)
    hidden.organizers.add(alice)
    return {
        "open": organized("open-2027", "Open challenge", start_days=-1, end_days=3),
        "upcoming": organized("later-2027", "Upcoming challenge", start_days=5, end_days=9),
        "finished": organized("past-2026", "Finished challenge", start_days=-20, end_days=-2),
        "hidden": hidden,
    }


def section(content: str, key: str) -> str:
    start = content.index(f'<section id="{key}">')
    return content[start : content.index("</section>", start)]


def test_the_list_groups_published_challenges_by_state(client, challenges):
    response = client.get("/challenges/")
    content = response.content.decode()
    assert "Open challenge" in section(content, "open")
    assert "Upcoming challenge" in section(content, "upcoming")
    assert "Finished challenge" in section(content, "finished")
    assertNotContains(response, "Draft challenge")
    assertContains(response, 'href="/challenges/open-2027/"')


def test_the_list_does_not_show_standing_benchmarks(client, challenges):
    from django.core.management import call_command

    call_command("load_benchmarks")
    assertNotContains(client.get("/challenges/"), "ImDrug")


def test_an_organizer_sees_their_unpublished_challenge_in_the_list(client, challenges, alice):
    client.force_login(alice)
    assertContains(client.get("/challenges/"), "Draft challenge")


def test_an_outsider_gets_404_for_an_unpublished_challenge(client, challenges, charlie):
    assert client.get("/challenges/draft-2027/").status_code == 404
    client.force_login(charlie)
    assert client.get("/challenges/draft-2027/").status_code == 404
    assertNotContains(client.get("/challenges/"), "Draft challenge")


def test_organizers_and_staff_see_an_unpublished_challenge(client, challenges, alice, olga):
    for user in (alice, olga):
        client.force_login(user)
        response = client.get("/challenges/draft-2027/")
        assertContains(response, "Only the organizers and staff see this page.")


def test_a_standing_family_has_no_challenge_page(client, db):
    from django.core.management import call_command

    call_command("load_benchmarks")
    assert client.get("/challenges/mudi/").status_code == 404


def test_the_page_shows_overview_rules_data_and_the_phase_timeline(client, db):
    challenge = organized(
        "mudi-2027",
        "MUDI held-out pairs 2027",
        start_days=-1,
        end_days=3,
        overview="Predict **unseen** pairs.<script>alert(1)</script>",
        rules="- At most 5 a day",
        data_description="Inputs per phase.",
        terms="Play fair.",
        max_team_size=3,
    )
    phase = challenge.phases.get()
    phase.split = {"fraction": 0.3, "seed": 2027}
    phase.final_selection_allowed = True
    phase.ladder_threshold = 0.01
    phase.save()
    response = client.get("/challenges/mudi-2027/")
    assertContains(response, "<strong>unseen</strong>", html=False)
    assertNotContains(response, "<script>alert(1)</script>", html=False)
    assertContains(response, "<li>At most 5 a day</li>", html=True)
    assertContains(response, "Inputs per phase.")
    assertContains(response, "Play fair.")
    assertContains(response, "Teams of at most 3.")
    assertContains(response, "Ends in 2")  # days, rounded down by timeuntil
    # The split's rule and seed stay with the organizers (the confidentiality contract).
    assertContains(response, "Which rows are private stays with the organizers")
    assertNotContains(response, "seed 2027")
    assertNotContains(response, "by hash")
    assertContains(response, "up to 2 final submissions")
    assertContains(response, "Ladder mode")


def test_phases_are_listed_in_their_order(client, db):
    challenge = organized("ordered", "Ordered", start_days=-1, end_days=3)
    Phase.objects.filter(challenge=challenge).update(order=2, title="Test phase")
    Phase.objects.create(
        challenge=challenge, slug="dev", title="Development phase", task_slug="mudi", order=1, starts_at=NOW
    )
    content = client.get("/challenges/ordered/").content.decode()
    assert content.index("Development phase") < content.index("Test phase")


def test_the_list_costs_a_fixed_number_of_queries(client, challenges, django_assert_max_num_queries):
    for i in range(5):
        organized(f"extra-{i}", f"Extra {i}", start_days=-1, end_days=3)
    with django_assert_max_num_queries(6):
        client.get("/challenges/")


TRUTH_WITH_USAGE = "seed,id,label,usage\n0,m1,0,public\n0,m2,1,private\n1,m1,1,private\n1,m3,0,public\n"


def with_truth(challenge, tmp_path):
    from leaderboard.challenges.services import import_truth

    phase = challenge.phases.get()
    phase.task_slug = "imdrug-hiv-random"
    phase.split = {"usage": True}
    phase.save()
    path = tmp_path / "truth.csv"
    path.write_text(TRUTH_WITH_USAGE)
    import_truth(phase, path)
    return phase


@pytest.mark.storage
def test_an_open_phase_offers_its_test_inputs_without_labels_or_usage(client, challenges, tmp_path):
    with_truth(challenges["open"], tmp_path)
    page = client.get("/challenges/open-2027/")
    assertContains(page, 'href="/challenges/open-2027/test/inputs.csv"')
    response = client.get("/challenges/open-2027/test/inputs.csv")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="open-2027-test-inputs.csv"'
    assert response.content.decode().splitlines() == ["seed,id", "0,m1", "0,m2", "1,m1", "1,m3"]


@pytest.mark.storage
def test_an_upcoming_phase_keeps_its_inputs_for_the_organizers(client, challenges, tmp_path, alice, charlie):
    challenges["upcoming"].organizers.add(alice)
    with_truth(challenges["upcoming"], tmp_path)
    assertNotContains(client.get("/challenges/later-2027/"), "inputs.csv")
    assert client.get("/challenges/later-2027/test/inputs.csv").status_code == 404
    client.force_login(charlie)
    assert client.get("/challenges/later-2027/test/inputs.csv").status_code == 404
    client.force_login(alice)
    assert client.get("/challenges/later-2027/test/inputs.csv").status_code == 200


@pytest.mark.storage
def test_inputs_of_an_unpublished_challenge_are_404_for_outsiders(client, challenges, tmp_path, charlie):
    with_truth(challenges["hidden"], tmp_path)
    client.force_login(charlie)
    assert client.get("/challenges/draft-2027/test/inputs.csv").status_code == 404


def test_a_phase_without_truth_or_an_unknown_phase_has_no_inputs(client, challenges):
    assertNotContains(client.get("/challenges/open-2027/"), "inputs.csv")
    assert client.get("/challenges/open-2027/test/inputs.csv").status_code == 404
    assert client.get("/challenges/open-2027/nope/inputs.csv").status_code == 404
