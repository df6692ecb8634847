"""A NUL character in a query or form value is a 400 with a sentence, never a 500 (PostgreSQL refuses it)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_a_board_filter_with_a_nul_character_is_refused_with_a_page(client):
    response = client.get("/tasks/mudi/", {"sort": "macro\x00"})
    assert response.status_code == 400
    assert b"NUL character" in response.content


def test_an_api_filter_with_a_nul_character_is_a_problem_document(client):
    response = client.get("/api/v1/tasks", {"q": "x\x00"})
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/problem+json")
    assert "NUL character" in response.json()["detail"]


def test_a_form_value_with_a_nul_character_is_refused(client, alice):
    client.force_login(alice)
    response = client.post("/teams/new/", {"name": "Lab\x00"})
    assert response.status_code == 400
    assert b"form contains a NUL character" in response.content


def test_ordinary_requests_pass(client):
    assert client.get("/tasks/mudi/", {"sort": "date"}).status_code in (200, 404)
