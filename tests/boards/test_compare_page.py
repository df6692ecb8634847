"""/compare/?ids=...: two to four submissions side by side with the board's pairwise rule."""

from __future__ import annotations

import pytest

from leaderboard.submissions.models import ReplicateSet
from scoring.replicates import pair_test
from tests.boards.conftest import (
    PASSWORD,
    mudi_metrics,
    mudi_prediction_csv,
    mudi_truth_csv,
    pair_metrics,
    phase_for,
    scored,
    with_truth,
)

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage


@pytest.fixture
def subs(standing, alice_lab, charlie, olga):
    phase = with_truth("mudi", mudi_truth_csv())
    return {
        "a": scored(phase, alice_lab, "Perfect", file=mudi_prediction_csv()),
        "b": scored(phase, charlie.personal_team, "Noisy", file=mudi_prediction_csv(wrong=6), minutes=1),
        "c": scored(phase, olga.personal_team, "Mixed", file=mudi_prediction_csv(wrong=2, swap=3), minutes=2),
        "secret": scored(phase, alice_lab, "Secret", file=mudi_prediction_csv(wrong=1), minutes=3, is_public=False),
    }


def url(*subs) -> str:
    return "/compare/?ids=" + ",".join(str(s.pk) for s in subs)


def test_it_shows_every_metric_side_by_side(client, subs):
    response = client.get(url(subs["a"], subs["b"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Perfect" in html and "Noisy" in html
    for name in ("Macro F1", "Micro precision (direction-agnostic)", "Synergism TP (direction-aware)"):
        assert name in html
    assert '<td class="num best">1.0000</td>' in html


def stored_test(a, b, metric="aware/macro/f1"):
    return pair_test(*(ReplicateSet.objects.get(submission=s, metric=metric).replicates() for s in (a, b)))


def test_the_first_view_shows_the_test_from_stored_replicates(client, subs):
    html = client.get(url(subs["a"], subs["b"])).content.decode()
    test = stored_test(subs["a"], subs["b"])
    assert f'<span class="p-value">p = {test.p_value:.4f}</span>' in html or "p ≤ 0.001" in html
    assert '<span class="n-tested">1000</span> resamples' in html
    assert f'<span class="difference-interval">[{test.low:.4f}, {test.high:.4f}]</span>' in html


def test_four_submissions_are_tested_pairwise_by_the_boards_rule(client, subs, bob):
    client.login(username="bob", password=PASSWORD)
    response = client.get(url(subs["a"], subs["b"], subs["c"], subs["secret"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('class="p-value"') == 6
    assert html.count('class="difference-interval"') == 6
    assert "Bonferroni for the 45 pairs of the top-10 matrix" in html
    verdict = "significant" if stored_test(subs["a"], subs["b"]).significant else "not significant"
    assert f'class="verdict">{verdict}<' in html


def test_a_multi_seed_task_uses_the_paired_t_test_over_seeds_in_the_page(client, standing, alice_lab, charlie):
    from scipy import stats  # reference only

    phase = phase_for("chemicalx-twosides")
    a = scored(phase, alice_lab, "A", pair_metrics(0.8, 0.01))
    b_metrics = pair_metrics(0.7, 0.02)
    b_metrics["seed/3/auroc"] += 0.005
    b = scored(phase, charlie.personal_team, "B", b_metrics, minutes=1)

    html = client.get(url(a, b)).content.decode()

    per_a = [pair_metrics(0.8, 0.01)[f"seed/{s}/auroc"] for s in range(10)]
    per_b = [b_metrics[f"seed/{s}/auroc"] for s in range(10)]
    expected = stats.ttest_rel(per_a, per_b).pvalue
    assert f'<span class="p-value">p = {expected:.4f}</span>' in html or "p ≤ 0.001" in html
    assert '<span class="n-tested">10</span> seeds' in html
    assert "a paired t-test over the 10 per-seed values" in html


def test_the_direction_control_tests_the_agnostic_metric(client, subs):
    response = client.get(url(subs["a"], subs["c"]) + "&direction=agnostic")
    assert response.status_code == 200
    test = stored_test(subs["a"], subs["c"], "agnostic/macro/f1")
    assert f'<span class="difference-interval">[{test.low:.4f}, {test.high:.4f}]</span>' in response.content.decode()


def test_it_shows_per_class_charts(client, subs):
    html = client.get(url(subs["a"], subs["b"])).content.decode()
    assert 'data-chart="chart-data-class-f1"' in html
    assert "vendor/plotly/plotly.min.js" in html


@pytest.mark.parametrize("who", [None, "charlie", "olga"])
def test_a_private_submission_of_another_team_is_not_found(client, subs, who):
    if who:
        client.login(username=who, password=PASSWORD)
    response = client.get(url(subs["a"], subs["secret"]))
    # Staff may open any submission page, so they may compare it too (same access rule).
    assert response.status_code == (200 if who == "olga" else 404)


def test_team_members_can_compare_their_private_submission(client, subs, bob):
    client.login(username="bob", password=PASSWORD)
    assert client.get(url(subs["a"], subs["secret"])).status_code == 200


@pytest.mark.parametrize("query", ["", "?ids=", "?ids=not-a-uuid,also-not"])
def test_it_needs_two_to_four_valid_ids(client, subs, query):
    assert client.get("/compare/" + query).status_code == 400


def test_one_id_or_five_are_refused(client, subs, alice_lab):
    assert client.get(url(subs["a"])).status_code == 400
    extra = scored(phase_for("mudi"), alice_lab, "Extra", mudi_metrics(0.1), minutes=9)
    ids = [subs["a"], subs["b"], subs["c"], extra, subs["a"]]
    assert client.get(url(*ids)).status_code == 200  # duplicates collapse to four
    another = scored(phase_for("mudi"), alice_lab, "Another", mudi_metrics(0.2), minutes=10)
    assert client.get(url(subs["a"], subs["b"], subs["c"], extra, another)).status_code == 400


def test_submissions_of_different_tasks_cannot_be_compared(client, subs, alice_lab):
    other = scored(phase_for("chemicalx-twosides"), alice_lab, "Pairs", pair_metrics(0.8))
    response = client.get(url(subs["a"], other))
    assert response.status_code == 400
    assert b"only submissions of one task can be compared" in response.content


def test_submissions_without_stored_replicates_are_reported_not_tested(client, standing, alice_lab, charlie):
    phase = phase_for("mudi")
    a = scored(phase, alice_lab, "A", mudi_metrics(0.8))
    b = scored(phase, charlie.personal_team, "B", mudi_metrics(0.7))
    response = client.get(url(a, b))
    assert response.status_code == 200
    assert b"not tested: no stored bootstrap replicates" in response.content
