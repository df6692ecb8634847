"""/api/v1/tasks/<slug>/leaderboard: the CSV export's columns and ranks, view options, pages, ETag/304."""

from __future__ import annotations

import csv
import io

import pytest

from tests.api.helpers import bearer
from tests.boards.conftest import mudi_metrics, phase_for, scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture(autouse=True)
def board(standing, alice_lab, charlie):
    phase = phase_for("mudi")
    scored(phase, alice_lab, "GraphOnly", mudi_metrics(0.7, 0.6), declarations={"modalities": ["graph"]})
    scored(phase, charlie.personal_team, "TextGraph", mudi_metrics(0.6, 0.9), minutes=1,
           declarations={"modalities": ["text", "graph"]})  # fmt: skip
    scored(phase, alice_lab, "Secret", mudi_metrics(0.95), minutes=2, is_public=False)
    return phase


def _csv(client, query: str = "", **headers) -> list[dict]:
    response = client.get(f"/tasks/mudi/leaderboard.csv{query}", **headers)
    return list(csv.DictReader(io.StringIO(response.getvalue().decode())))


def test_it_has_the_csv_exports_columns_and_ranks(client):
    response = client.get("/api/v1/tasks/mudi/leaderboard")
    assert response.status_code == 200
    body = response.json()
    exported = _csv(client)
    assert body["columns"] == list(exported[0])[:-1]  # all but scoring_version, which the body carries once
    assert [r["method"] for r in body["rows"]] == [r["method"] for r in exported] == ["GraphOnly", "TextGraph"]
    assert [str(r["rank"]) for r in body["rows"]] == [r["rank"] for r in exported]
    assert body["rows"][0]["aware/macro/f1"] == 0.7
    assert body["count"] == 2 and body["page"] == 1 and body["next"] is None


def test_it_takes_the_pages_view_options(client):
    body = client.get("/api/v1/tasks/mudi/leaderboard?direction=agnostic").json()
    assert body["view"] == "agnostic"
    assert [r["method"] for r in body["rows"]] == ["TextGraph", "GraphOnly"]
    assert [r["method"] for r in body["rows"]] == [r["method"] for r in _csv(client, "?direction=agnostic")]
    body = client.get("/api/v1/tasks/mudi/leaderboard?modalities=text").json()
    assert [r["method"] for r in body["rows"]] == ["TextGraph"]
    body = client.get("/api/v1/tasks/mudi/leaderboard?sort=-rank").json()
    assert [r["method"] for r in body["rows"]] == ["TextGraph", "GraphOnly"]


def test_private_rows_only_for_the_team_and_only_with_a_token(client, alice, charlie, make_token):
    anonymous = client.get("/api/v1/tasks/mudi/leaderboard?private=1").json()
    assert "Secret" not in [r["method"] for r in anonymous["rows"]]
    outsider = client.get("/api/v1/tasks/mudi/leaderboard?private=1", **bearer(make_token(charlie, "read"))).json()
    assert "Secret" not in [r["method"] for r in outsider["rows"]]
    response = client.get("/api/v1/tasks/mudi/leaderboard?private=1", **bearer(make_token(alice, "read")))
    assert [r["method"] for r in response.json()["rows"]][0] == "Secret"
    assert response["Cache-Control"].startswith("private")


def test_it_is_paginated(client):
    body = client.get("/api/v1/tasks/mudi/leaderboard?page_size=1").json()
    assert body["pages"] == 2 and [r["method"] for r in body["rows"]] == ["GraphOnly"]
    assert body["next"].endswith("page_size=1&page=2")
    second = client.get("/api/v1/tasks/mudi/leaderboard?page_size=1&page=2").json()
    assert [r["method"] for r in second["rows"]] == ["TextGraph"] and second["previous"]


def test_an_unchanged_board_answers_304_and_a_changed_one_200(client, board, charlie):
    first = client.get("/api/v1/tasks/mudi/leaderboard")
    etag = first["ETag"]
    again = client.get("/api/v1/tasks/mudi/leaderboard", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
    assert client.get("/api/v1/tasks/mudi/leaderboard?page=2", HTTP_IF_NONE_MATCH=etag).status_code == 200
    scored(board, charlie.personal_team, "Newer", mudi_metrics(0.8), minutes=3)
    changed = client.get("/api/v1/tasks/mudi/leaderboard", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_a_304_reads_only_the_boards_version(client, django_assert_num_queries):
    etag = client.get("/api/v1/tasks/mudi/leaderboard")["ETag"]
    with django_assert_num_queries(1):  # the board row's version (with its phase as a subquery), nothing else
        assert client.get("/api/v1/tasks/mudi/leaderboard", HTTP_IF_NONE_MATCH=etag).status_code == 304


@pytest.mark.parametrize("query", ["", "?direction=agnostic", "?page_size=1&page=2", "?modalities=text&sort=-rank"])
def test_the_quick_304_carries_the_same_etag_as_the_page(client, query):
    etag = client.get(f"/api/v1/tasks/mudi/leaderboard{query}")["ETag"]
    again = client.get(f"/api/v1/tasks/mudi/leaderboard{query}", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again["ETag"] == etag and again["Cache-Control"] == "public, no-cache"
    other = "?direction=agnostic" if query != "?direction=agnostic" else ""
    assert client.get(f"/api/v1/tasks/mudi/leaderboard{other}", HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_a_stale_etag_of_an_unknown_task_is_still_404(client):
    assert client.get("/api/v1/tasks/nope/leaderboard", HTTP_IF_NONE_MATCH='"abc"').status_code == 404


def test_private_rows_are_never_answered_by_the_quick_304(client, alice, make_token):
    headers = bearer(make_token(alice, "read"))
    etag = client.get("/api/v1/tasks/mudi/leaderboard?private=1", **headers)["ETag"]
    again = client.get("/api/v1/tasks/mudi/leaderboard?private=1", HTTP_IF_NONE_MATCH=etag, **headers)
    assert again.status_code == 304 and again["Cache-Control"].startswith("private")
    # The anonymous view of the same query never matches a private page's tag.
    assert client.get("/api/v1/tasks/mudi/leaderboard?private=1", HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_a_page_takes_a_fixed_number_of_queries(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):  # phase, board, rows (the public count is stored on the board)
        client.get("/api/v1/tasks/mudi/leaderboard")


def test_the_phase_leaderboard_is_the_same_board(client, board):
    url = f"/api/v1/challenges/{board.challenge.slug}/phases/{board.slug}/leaderboard"
    assert client.get(url).json()["rows"] == client.get("/api/v1/tasks/mudi/leaderboard").json()["rows"]


def test_a_task_without_a_board_is_404(client):
    assert client.get("/api/v1/tasks/nope/leaderboard").status_code == 404
