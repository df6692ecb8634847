"""/challenges/<slug>/manage/submissions/: every submission of a challenge, for its organizers only."""

from __future__ import annotations

import pytest

from tests.moderation.conftest import PRIVATE_VALUE, login, make_submission

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

URL = "/challenges/mudi-2027/manage/submissions/"


@pytest.fixture
def entries(phase, dev_phase, alice, alice_lab, charlie):
    return {
        "graph": make_submission(phase, alice_lab, "GraphDDI", public=0.7123, private=PRIVATE_VALUE, all_rows=0.5555),
        "broken": make_submission(phase, charlie.personal_team, "BrokenNet", status="failed"),
        "waiting": make_submission(phase, alice.personal_team, "QueuedNet", status="queued"),
        "early": make_submission(dev_phase, charlie.personal_team, "EarlyBird", private=None, all_rows=None),
    }


def test_an_organizer_sees_every_submission_with_public_private_and_all_row_scores(client, oscar, entries):
    login(client, oscar)
    response = client.get(URL)
    assert response.status_code == 200
    for method in ("GraphDDI", "BrokenNet", "QueuedNet", "EarlyBird"):
        assert method in response.content.decode()
    assert "0.7123" in response.content.decode()
    assert f"{PRIVATE_VALUE:.4f}" in response.content.decode()
    assert "0.5555" in response.content.decode()


def test_it_counts_submissions_by_status(client, oscar, entries):
    login(client, oscar)
    response = client.get(URL)
    assert response.context["total"] == 4
    counts = {value: n for value, _, n in response.context["status_counts"]}
    assert counts == {"queued": 1, "running": 0, "scored": 2, "failed": 1}


def test_the_counts_follow_the_phase_filter(client, oscar, entries):
    login(client, oscar)
    response = client.get(URL, {"phase": "dev"})
    assert response.context["total"] == 1
    assert [e["submission"].method_name for e in response.context["entries"]] == ["EarlyBird"]


@pytest.mark.parametrize(
    ("params", "methods"),
    [
        ({"status": "scored"}, {"GraphDDI", "EarlyBird"}),
        ({"failed": "on"}, {"BrokenNet"}),
        ({"team": "alice lab"}, {"GraphDDI"}),
        ({"team": "charlie"}, {"BrokenNet", "EarlyBird"}),
        ({"phase": "test", "status": "queued"}, {"QueuedNet"}),
    ],
)
def test_it_filters_by_phase_status_team_and_failed_only(client, oscar, entries, params, methods):
    login(client, oscar)
    response = client.get(URL, params)
    assert {e["submission"].method_name for e in response.context["entries"]} == methods


def test_an_unknown_filter_value_is_reported_and_filters_nothing(client, oscar, entries):
    login(client, oscar)
    response = client.get(URL, {"phase": "nope"})
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert len(response.context["entries"]) == 4


def test_no_match_says_so(client, oscar, entries):
    login(client, oscar)
    response = client.get(URL, {"team": "nobody-at-all"})
    assert "No submission matches these filters." in response.content.decode()


def test_it_is_paginated_and_keeps_the_filters_in_the_page_links(client, oscar, phase, alice_lab):
    for i in range(53):
        make_submission(phase, alice_lab, f"Method {i}")
    login(client, oscar)
    first = client.get(URL, {"status": "scored"})
    assert len(first.context["entries"]) == 50
    assert "status=scored&amp;page=2" in first.content.decode()
    second = client.get(URL, {"status": "scored", "page": 2})
    assert len(second.context["entries"]) == 3


def test_staff_may_see_it(client, olga, entries):
    login(client, olga)
    assert client.get(URL).status_code == 200


@pytest.mark.parametrize("who", ["alice", "charlie", "otto"])
def test_participants_outsiders_and_other_organizers_get_a_404(client, request, entries, who):
    login(client, request.getfixturevalue(who))
    response = client.get(URL)
    assert response.status_code == 404
    assert f"{PRIVATE_VALUE:.4f}" not in response.content.decode()


def test_anonymous_visitors_are_sent_to_log_in(client, entries):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_the_manage_navigation_links_the_moderation_pages(client, oscar, entries):
    login(client, oscar)
    html = client.get(URL).content.decode()
    for path in ("/challenges/mudi-2027/manage/participants/", "/challenges/mudi-2027/manage/announcements/",
                 "/challenges/mudi-2027/manage/export.csv"):  # fmt: skip
        assert f'href="{path}"' in html


def test_a_standing_benchmark_has_no_moderation_page(client, olga, db):
    from leaderboard.challenges.services import sync_standing_challenges

    sync_standing_challenges()
    login(client, olga)
    assert client.get("/challenges/mudi/manage/submissions/").status_code == 404


def test_the_number_of_queries_does_not_grow_with_the_page(client, oscar, phase, alice_lab, charlie):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    login(client, oscar)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(URL).status_code == 200
        return len(captured)

    make_submission(phase, alice_lab, "First")
    few = queries()
    for i in range(20):
        make_submission(phase, charlie.personal_team if i % 2 else alice_lab, f"Method {i}")
    assert queries() == few
