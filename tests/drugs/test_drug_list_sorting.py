"""Issue 23, point 5: the drug list sorts by MUDI test pairs (and by name, the default, or id)."""

from __future__ import annotations

import re

import pytest

from leaderboard.drugs.models import Drug

pytestmark = pytest.mark.django_db


@pytest.fixture
def drugs(db):
    for drugbank_id, name, pairs in (("DB00001", "Alpha", 3), ("DB00002", "Beta", 40), ("DB00003", "Gamma", 12)):
        Drug.objects.create(drugbank_id=drugbank_id, name=name, test_pairs_total=pairs)


def names(response) -> list[str]:
    return re.findall(r'<tr><td><a href="/drugs/[^"]+/">([^<]+)</a>', response.content.decode())


def test_the_list_is_by_name_by_default(client, drugs):
    assert names(client.get("/drugs/")) == ["Alpha", "Beta", "Gamma"]


def test_most_test_pairs_first_then_fewest_first(client, drugs):
    response = client.get("/drugs/?sort=-pairs")
    assert names(response) == ["Beta", "Gamma", "Alpha"]
    assert 'aria-sort="descending"' in response.content.decode()
    assert 'href="?sort=pairs"' in response.content.decode()  # the header's next click reverses it
    assert names(client.get("/drugs/?sort=pairs")) == ["Alpha", "Gamma", "Beta"]


def test_a_search_keeps_the_sort_and_an_unknown_sort_falls_back_to_name(client, drugs):
    html = client.get("/drugs/?q=a&sort=-pairs").content.decode()
    assert 'name="sort" value="-pairs"' in html
    assert names(client.get("/drugs/?sort=nonsense")) == ["Alpha", "Beta", "Gamma"]
