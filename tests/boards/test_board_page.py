"""/tasks/<slug>/: the leaderboard page, its controls, who sees which rows, and its query count."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.boards.conftest import (
    PASSWORD,
    classification_metrics,
    mudi_metrics,
    pair_metrics,
    phase_for,
    scored,
)

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


def methods(response) -> list[str]:
    """Method names of the table rows, top to bottom."""
    html = response.content.decode()
    if 'id="leaderboard"' not in html:
        return []
    table = html[html.index('id="leaderboard"') : html.index("</table>", html.index('id="leaderboard"'))]
    return re.findall(r'<td class="method"><a href="/submissions/[^"]+/">([^<]+)</a>', table)


def ranks(response) -> list[str]:
    html = response.content.decode()
    return re.findall(r'<td class="num rank">([^<]+)</td>', html)


@pytest.fixture
def mudi_board(standing, alice_lab, charlie, olga):
    phase = phase_for("mudi")
    scored(phase, alice_lab, "GraphOnly", mudi_metrics(0.70, 0.60), declarations={"modalities": ["graph"]})
    scored(
        phase, charlie.personal_team, "TextGraph", mudi_metrics(0.60, 0.90), minutes=1,
        declarations={"modalities": ["text", "graph"]}, paper_url="https://example.org/p", code_url="https://example.org/c",
    )  # fmt: skip
    scored(phase, olga.personal_team, "Baseline", mudi_metrics(0.50, 0.50), minutes=2, is_baseline=True,
           declarations={"modalities": ["text"]})  # fmt: skip
    scored(phase, alice_lab, "Secret", mudi_metrics(0.95, 0.95), minutes=3, is_public=False)
    return phase


def test_anonymous_users_can_read_a_leaderboard(client, mudi_board):
    response = client.get("/tasks/mudi/")
    assert response.status_code == 200
    assert methods(response) == ["GraphOnly", "TextGraph", "Baseline"]
    assert ranks(response) == ["1", "2", "3"]


def test_the_page_links_to_submit_and_to_each_submission(client, mudi_board):
    from leaderboard.submissions.models import Submission

    response = client.get("/tasks/mudi/")
    assert b'href="/tasks/mudi/submit/"' in response.content
    sub = Submission.objects.get(method_name="TextGraph")
    assert f'href="/submissions/{sub.pk}/"'.encode() in response.content


def test_a_row_shows_team_date_metrics_badges_and_links(client, mudi_board):
    response = client.get("/tasks/mudi/")
    html = response.content.decode()
    assert "charlie" in html and "2026-01-01" in html
    assert "0.7000" in html
    assert '<span class="badge badge-baseline">baseline</span>' in html
    assert '<span class="badge">text</span>' in html
    assert 'href="https://example.org/p"' in html and 'href="https://example.org/c"' in html
    # MUDI's three per-class F1 columns.
    for name in ("Synergism F1", "Antagonism F1", "New Effect F1"):
        assert name in html


def test_the_page_says_which_significance_test_marks_rows(client, mudi_board, standing):
    assert "paired bootstrap over test rows" in client.get("/tasks/mudi/").content.decode()
    scored(phase_for("chemicalx-twosides"), mudi_board.submissions.first().team, "X", pair_metrics(0.8))
    assert "a paired t-test over the 10 per-seed values" in client.get("/tasks/chemicalx-twosides/").content.decode()


def test_primary_metric_is_shown_as_mean_plus_minus_spread(client, standing, alice_lab):
    scored(phase_for("chemicalx-twosides"), alice_lab, "DeepSynergy", pair_metrics(0.8123, spread=0.0123))
    html = client.get("/tasks/chemicalx-twosides/").content.decode()
    assert "0.8123" in html and "± 0.0123" in html


def test_the_direction_control_changes_the_ranking(client, mudi_board):
    assert methods(client.get("/tasks/mudi/?direction=agnostic")) == ["TextGraph", "GraphOnly", "Baseline"]
    assert methods(client.get("/tasks/mudi/?direction=aware")) == ["GraphOnly", "TextGraph", "Baseline"]


def test_an_unknown_direction_falls_back_to_the_default_view(client, mudi_board):
    assert methods(client.get("/tasks/mudi/?direction=sideways")) == ["GraphOnly", "TextGraph", "Baseline"]


def test_sorting_by_a_column_reorders_the_rows_and_shows_that_columns_rank(client, mudi_board):
    response = client.get("/tasks/mudi/?sort=agnostic/macro/f1")
    assert methods(response) == ["TextGraph", "GraphOnly", "Baseline"]
    assert ranks(response) == ["1", "2", "3"]
    assert "Sorted by Macro F1 (direction-agnostic)" in response.content.decode()


def test_sorting_in_reverse_puts_the_worst_first(client, mudi_board):
    assert methods(client.get("/tasks/mudi/?sort=-rank")) == ["Baseline", "TextGraph", "GraphOnly"]
    assert methods(client.get("/tasks/mudi/?sort=-agnostic/macro/f1")) == ["Baseline", "GraphOnly", "TextGraph"]


def test_sorting_by_team_method_and_date(client, mudi_board):
    assert methods(client.get("/tasks/mudi/?sort=team")) == ["GraphOnly", "TextGraph", "Baseline"]
    assert methods(client.get("/tasks/mudi/?sort=method")) == ["Baseline", "GraphOnly", "TextGraph"]
    assert methods(client.get("/tasks/mudi/?sort=date")) == ["Baseline", "TextGraph", "GraphOnly"]
    assert methods(client.get("/tasks/mudi/?sort=-date")) == ["GraphOnly", "TextGraph", "Baseline"]


def test_an_unknown_sort_column_is_ignored(client, mudi_board):
    assert methods(client.get("/tasks/mudi/?sort=password")) == ["GraphOnly", "TextGraph", "Baseline"]


def test_column_headers_link_to_sorted_views_keeping_the_other_controls(client, mudi_board):
    html = client.get("/tasks/mudi/?direction=agnostic&modalities=graph").content.decode()
    assert 'href="?direction=agnostic&amp;sort=agnostic%2Fmicro%2Ff1&amp;modalities=graph"' in html


def test_filtering_by_a_declared_modality(client, mudi_board):
    assert methods(client.get("/tasks/mudi/?modalities=graph")) == ["GraphOnly", "TextGraph"]


def test_filtering_to_graph_only_methods(client, mudi_board):
    assert methods(client.get("/tasks/mudi/?modalities=graph&modalities_only=1")) == ["GraphOnly"]


def test_filters_keep_the_global_rank(client, mudi_board):
    assert ranks(client.get("/tasks/mudi/?modalities=text")) == ["2", "3"]


def test_filtering_baselines_and_external_data(client, mudi_board):
    assert methods(client.get("/tasks/mudi/?baseline=no")) == ["GraphOnly", "TextGraph"]
    response = client.get("/tasks/mudi/?external=yes")
    assert methods(response) == []
    assert "No row matches these filters." in response.content.decode()


def test_filtering_methods_without_context_features(client, standing, alice_lab, charlie):
    phase = phase_for("chemicalx-drugbankddi")
    scored(phase, alice_lab, "Cheater", pair_metrics(0.99), declarations={"uses_context_features": True})
    scored(phase, charlie.personal_team, "Honest", pair_metrics(0.80), declarations={"uses_context_features": False})
    assert methods(client.get("/tasks/chemicalx-drugbankddi/?uses_context_features=no")) == ["Honest"]
    assert methods(client.get("/tasks/chemicalx-drugbankddi/?uses_context_features=yes")) == ["Cheater"]
    assert "uses context features" in client.get("/tasks/chemicalx-drugbankddi/").content.decode().lower()


def test_private_rows_are_never_shown_to_anonymous_users(client, mudi_board):
    assert "Secret" not in client.get("/tasks/mudi/?private=1").content.decode()


def test_private_rows_are_never_shown_to_outsiders(client, mudi_board, charlie):
    client.login(username="charlie", password=PASSWORD)
    assert "Secret" not in client.get("/tasks/mudi/?private=1").content.decode()


def test_private_rows_are_hidden_from_their_team_until_asked_for(client, mudi_board, bob):
    client.login(username="bob", password=PASSWORD)
    assert "Secret" not in client.get("/tasks/mudi/").content.decode()


def test_team_members_can_show_their_private_rows_at_the_rank_they_would_have(client, mudi_board, bob):
    client.login(username="bob", password=PASSWORD)
    response = client.get("/tasks/mudi/?private=1")
    assert methods(response) == ["Secret", "GraphOnly", "TextGraph", "Baseline"]
    assert ranks(response) == ["1", "1", "2", "3"]
    assert "badge-private" in response.content.decode()


def test_the_private_control_is_only_offered_to_logged_in_users(client, mudi_board, alice):
    assert b'name="private"' not in client.get("/tasks/mudi/").content
    client.login(username="alice", password=PASSWORD)
    assert b'name="private"' in client.get("/tasks/mudi/").content


def test_staff_see_no_private_rows_of_other_teams(client, mudi_board, olga):
    client.login(username="olga", password=PASSWORD)
    assert "Secret" not in client.get("/tasks/mudi/?private=1").content.decode()


def test_the_controls_form_works_without_javascript(client, mudi_board):
    html = client.get("/tasks/mudi/").content.decode()
    assert '<form class="board-controls card" method="get" action="/tasks/mudi/"' in html
    assert '<button type="submit" class="btn btn-small">Apply</button>' in html


def test_the_export_links_carry_the_current_view(client, mudi_board):
    html = client.get("/tasks/mudi/?direction=agnostic&sort=method").content.decode()
    assert 'href="/tasks/mudi/leaderboard.csv?direction=agnostic&amp;sort=method"' in html
    assert 'href="/tasks/mudi/leaderboard.json?direction=agnostic&amp;sort=method"' in html


def test_rows_are_paginated(client, standing, alice_lab, settings, monkeypatch):
    from leaderboard.boards import query

    monkeypatch.setattr(query, "PAGE_SIZE", 2)
    phase = phase_for("chemicalx-twosides")
    for i in range(5):
        scored(phase, alice_lab, f"M{i}", pair_metrics(0.9 - i / 100), minutes=i, rebuild=i == 4)
    assert methods(client.get("/tasks/chemicalx-twosides/")) == ["M0", "M1"]
    response = client.get("/tasks/chemicalx-twosides/?page=3")
    assert methods(response) == ["M4"]
    assert "page 3 of 3" in response.content.decode()
    assert methods(client.get("/tasks/chemicalx-twosides/?page=x")) == ["M0", "M1"]


def test_a_task_without_submissions_shows_an_empty_board(client, standing):
    response = client.get("/tasks/chemicalx-twosides/")
    assert response.status_code == 200
    assert "No scored public submissions yet" in response.content.decode()


def test_an_unknown_task_is_not_found(client, standing):
    assert client.get("/tasks/no-such-task/").status_code == 404


def test_a_task_without_a_phase_is_not_found(client, db):
    assert client.get("/tasks/mudi/").status_code == 404


def test_imdrug_boards_link_their_other_splits(client, standing, alice_lab):
    scored(phase_for("imdrug-hiv-random"), alice_lab, "GCN", classification_metrics(0.8))
    html = client.get("/tasks/imdrug-hiv-random/").content.decode()
    assert 'href="/tasks/imdrug-hiv-standard/"' in html
    assert 'href="/datasets/imdrug/hiv/"' in html
    assert "inactive F1" in html and "active F1" in html


def _count_queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.parametrize(
    "url",
    [
        "/tasks/mudi/",
        "/tasks/mudi/?direction=agnostic&sort=-agnostic/micro/f1&modalities=graph",
        "/tasks/mudi/?private=1",
    ],
)
def test_the_query_count_does_not_grow_with_the_number_of_rows(client, standing, alice, alice_lab, settings, url):
    """Same number of queries for 3 and for 30 rows (cache off, so every query is counted)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    client.login(username="alice", password=PASSWORD)
    phase = phase_for("mudi")

    def add(n: int, start: int) -> None:
        for i in range(start, start + n):
            scored(phase, alice_lab, f"M{i}", mudi_metrics(0.5 + i / 100), minutes=i, rebuild=False,
                   declarations={"modalities": ["graph"]}, is_public=i % 3 != 0)  # fmt: skip
        from leaderboard.boards.recompute import recompute_phase

        recompute_phase(phase)

    add(3, 0)
    small = _count_queries(client, url)
    add(27, 3)
    large = _count_queries(client, url)
    assert small == large
    assert large <= 8


def test_the_page_is_served_from_the_cache_until_a_new_score(
    client, standing, alice_lab, django_assert_max_num_queries
):
    phase = phase_for("chemicalx-twosides")
    scored(phase, alice_lab, "First", pair_metrics(0.7))
    client.get("/tasks/chemicalx-twosides/")
    with django_assert_max_num_queries(2):  # the board row lookup (and the session); rows and charts are cached
        assert methods(client.get("/tasks/chemicalx-twosides/")) == ["First"]
    scored(phase, alice_lab, "Second", pair_metrics(0.8), minutes=1)
    assert methods(client.get("/tasks/chemicalx-twosides/")) == ["Second", "First"]


def test_the_sorted_header_says_its_order_to_screen_readers(client, mudi_board):
    html = client.get("/tasks/mudi/").content.decode()
    assert re.search(r'<th class="num sticky rank-col sorted" aria-sort="ascending">', html)
    assert html.count("aria-sort=") == 1
    html = client.get("/tasks/mudi/?sort=agnostic/macro/f1").content.decode()
    assert html.count("aria-sort=") == 1
    assert '<th class="num sorted" aria-sort="descending"><a href="?sort=-agnostic%2Fmacro%2Ff1"' in html
    html = client.get("/tasks/mudi/?sort=-date").content.decode()
    assert re.search(r'<th class="reversed" aria-sort="ascending"><a href="[^"]*" title="newest first">Date', html)


def test_the_column_chooser_hides_groups_and_the_links_keep_the_choice(client, mudi_board):
    html = client.get("/tasks/mudi/?cols=metrics").content.decode()
    assert "Synergism F1" not in html.split('id="leaderboard"')[1]
    assert "<th>Declarations</th>" not in html
    assert 'href="?sort=method&amp;cols=metrics"' in html
    assert '<input type="checkbox" name="cols" value="metrics" checked>' in html
    assert '<input type="checkbox" name="cols" value="classes">' in html
    # The primary metric always shows, next to the method.
    row = html.split('<td class="method">')[1]
    assert row.index("</td>") < row.index('<td class="num primary">')
