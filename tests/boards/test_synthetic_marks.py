"""Issue 23, point 5: tasks whose test labels are synthetic demo data are marked on / and /benchmarks/."""

from __future__ import annotations

import pytest

from tests.boards.conftest import mudi_truth_csv, with_truth

pytestmark = pytest.mark.django_db


@pytest.mark.storage
@pytest.mark.parametrize("url", ["/", "/benchmarks/"])
def test_a_task_with_synthetic_labels_is_marked_with_how_to_load_real_ones(client, standing, url):
    with_truth("mudi", mudi_truth_csv())  # imported as synthetic
    html = client.get(url).content.decode()
    assert html.count("badge badge-synthetic") == 2  # the task's mark and the note's key
    assert 'id="synthetic-note"' in html
    assert "manage.py import_truth" in html
    assert 'href="/docs/scoring/#synthetic-truths"' in html


@pytest.mark.parametrize("url", ["/", "/benchmarks/"])
def test_no_mark_without_synthetic_labels(client, standing, url):
    html = client.get(url).content.decode()
    assert "badge-synthetic" not in html
