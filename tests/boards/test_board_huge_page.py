"""A huge or odd ?page= on a board never errors: it is clamped to the pages there are."""

from __future__ import annotations

import pytest

from tests.boards.conftest import mudi_metrics, phase_for, scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.mark.parametrize("page", ["9" * 30, "9" * 5000, "99999999999999999999", "-5", "1e9", "x"])
def test_a_huge_page_number_shows_a_page_of_the_board(client, standing, alice_lab, page):
    scored(phase_for("mudi"), alice_lab, "GraphOnly", mudi_metrics(0.7, 0.6))
    response = client.get(f"/tasks/mudi/?page={page}")
    assert response.status_code == 200
    assert response.context["page"] == 1
    assert b"GraphOnly" in response.content
