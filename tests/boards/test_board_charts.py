"""Plotly figures: built server-side, embedded as JSON data blocks, each with a table."""

from __future__ import annotations

import json

import pytest

from leaderboard.submissions.charts import submission_charts
from tests.boards.conftest import (
    classification_metrics,
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


def chart_ids(html: str) -> list[str]:
    import re

    return re.findall(r'data-chart="chart-data-([a-z0-9-]+)"', html)


def test_a_mudi_board_has_class_bars_a_direction_scatter_and_the_progression(client, standing, alice_lab, charlie):
    phase = phase_for("mudi")
    scored(phase, alice_lab, "A", mudi_metrics(0.5, 0.6))
    scored(phase, charlie.personal_team, "B", mudi_metrics(0.6, 0.55), minutes=5)
    html = client.get("/tasks/mudi/").content.decode()
    assert chart_ids(html) == ["class-f1", "direction", "progression"]
    assert '<script type="application/json" id="chart-data-direction">' in html
    assert "<summary>Direction-aware vs direction-agnostic macro F1: the numbers as a table</summary>" in html
    # Lazy charts: charts.js fetches plotly.js itself when the first chart nears the window.
    assert (
        '<script src="/static/js/charts.js" id="charts-script" data-plotly="/static/vendor/plotly/plotly.min.js" '
        "defer></script>" in html
    )


def test_a_multi_seed_board_has_a_per_seed_chart(client, standing, alice_lab):
    scored(phase_for("chemicalx-twosides"), alice_lab, "A", pair_metrics(0.8, spread=0.02))
    assert chart_ids(client.get("/tasks/chemicalx-twosides/").content.decode()) == ["seeds", "progression"]


def test_large_class_sets_get_a_heatmap_instead_of_columns(client, standing, alice_lab):
    import scoring

    classes = scoring.get_task("imdrug-drugbank-random").classes
    scored(phase_for("imdrug-drugbank-random"), alice_lab, "A", classification_metrics(0.6, classes=classes))
    html = client.get("/tasks/imdrug-drugbank-random/").content.decode()
    assert "type 86 F1" not in html  # no column per class
    figure = json.loads(html.split('id="chart-data-class-f1">')[1].split("</script>")[0])
    assert figure["data"][0]["type"] == "heatmap"
    assert len(figure["data"][0]["y"]) == 86  # a row per class, the methods across


def test_a_method_name_cannot_close_the_data_block(client, standing, alice_lab):
    scored(phase_for("mudi"), alice_lab, "</script><script>alert(1)</script>", mudi_metrics(0.5))
    html = client.get("/tasks/mudi/").content.decode()
    assert "<script>alert(1)" not in html
    block = html.split('id="chart-data-direction">')[1].split("</script>")[0]
    assert json.loads(block)["data"][0]["text"] == ["</script><script>alert(1)</script> (Alice Lab)"]


def test_a_mudi_submission_gets_confusion_matrices_and_per_class_bars(standing, alice_lab):
    phase = with_truth("mudi", mudi_truth_csv())
    sub = scored(phase, alice_lab, "A", file=mudi_prediction_csv(wrong=3))
    charts = submission_charts(sub)
    assert [c["id"] for c in charts] == [
        "confusion-aware",
        "per-class-aware",
        "confusion-agnostic",
        "per-class-agnostic",
    ]
    confusion = json.loads(charts[0]["figure"])
    assert confusion["data"][0]["type"] == "heatmap"
    assert charts[0]["table"]["columns"][0] == "gold \\ predicted"
    assert sum(int(v) for row in charts[0]["table"]["rows"] for v in row[1:]) > 0


def test_a_classification_report_gives_confusion_per_class_roc_pr_and_seed_charts(standing, alice_lab):
    report = {
        "seeds": [{"seed": s, "n": 4, "balanced_accuracy": 0.5 + s / 10} for s in range(3)],
        "per_class": [{"class": "inactive", "precision": 0.5, "recall": 0.6, "f1": 0.55, "support": 6}],
        "confusion_matrix": {
            "true_labels": ["inactive", "active"],
            "predicted_labels": ["inactive", "active"],
            "matrix": [[3, 1], [1, 1]],
        },  # fmt: skip
        "roc": [{"seed": 0, "class": "active", "fpr": [0, 0.5, 1], "tpr": [0, 0.7, 1]}],
        "pr": [{"seed": 0, "class": "active", "recall": [0, 0.5, 1], "precision": [1, 0.6, 0.5]}],
    }
    sub = scored(phase_for("imdrug-hiv-random"), alice_lab, "A", classification_metrics(0.6))
    sub.report = report
    assert [c["id"] for c in submission_charts(sub)] == ["confusion", "per-class", "roc", "pr", "seed-values"]


def test_a_chemicalx_report_gives_per_context_auroc(standing, alice_lab):
    sub = scored(phase_for("chemicalx-twosides"), alice_lab, "A", pair_metrics(0.8))
    sub.report = {
        "seeds": [{"seed": s, "n": 10, "auroc": 0.8} for s in range(10)],
        "roc": [{"seed": 0, "fpr": [0, 1], "tpr": [0, 1]}],
        "pr": [{"seed": 0, "recall": [0, 1], "precision": [1, 0.5]}],
        "per_context": [{"context": "A549", "auroc": 0.7, "n_splits": 10, "n_rows": 100, "n_positive": 40}],
        "per_context_truncated": False,
    }
    charts = {c["id"]: c for c in submission_charts(sub)}
    assert set(charts) == {"roc", "pr", "per-context", "seed-values"}
    assert charts["per-context"]["table"]["rows"] == [["A549", "0.7000", "10", "100", "40"]]


def test_a_submission_without_a_report_has_no_charts(standing, alice_lab):
    sub = scored(phase_for("mudi"), alice_lab, "A", mudi_metrics(0.5))
    sub.report = None
    assert submission_charts(sub) == []


def test_the_charts_follow_a_filter_that_leaves_one_row(client, standing, alice_lab, charlie):
    phase = phase_for("mudi")
    scored(phase, alice_lab, "TextOnly", mudi_metrics(0.5, 0.6), declarations={"modalities": ["text"]})
    scored(phase, charlie.personal_team, "GraphOnly", mudi_metrics(0.6, 0.55), minutes=5,
           declarations={"modalities": ["graph"]})  # fmt: skip
    everything = client.get("/tasks/mudi/").content.decode()
    assert "TextOnly (Alice Lab)" in everything.split('id="chart-data-class-f1"')[1].split("</script>")[0]
    html = client.get("/tasks/mudi/?modalities=graph").content.decode()
    class_f1 = html.split('id="chart-data-class-f1"')[1].split("</script>")[0]
    assert "GraphOnly" in class_f1 and "TextOnly" not in class_f1
    assert "Per-class F1 of the top 1 methods" in html
    assert "Charts show the rows of the table above, in its order (filters applied)" in html


def test_the_charts_follow_the_tables_sort(client, standing, alice_lab, charlie):
    phase = phase_for("mudi")
    scored(phase, alice_lab, "Aware", mudi_metrics(0.7, 0.1))
    scored(phase, charlie.personal_team, "Agnostic", mudi_metrics(0.2, 0.9), minutes=5)
    html = client.get("/tasks/mudi/?sort=-aware/macro/f1").content.decode()
    table = html.split('id="chart-data-class-f1"')[1].split("</script>")[0]
    assert table.index("Agnostic") < table.index("Aware")  # worst first, as the table


def _figure_of(chart: dict) -> dict:
    return json.loads(chart["figure"])


def test_a_large_confusion_matrix_plots_the_most_frequent_classes_and_says_so(standing, alice_lab):
    from leaderboard.submissions.charts import MAX_CLASSES_PLOTTED

    labels = [f"interaction type {i} with a long name" for i in range(86)]
    matrix = [[(i + 1) * 10 if i == j else 1 for j in range(86)] for i in range(86)]
    per_class = [{"class": name, "precision": 0.5, "recall": 0.5, "f1": 0.5, "support": (i + 1) * 10 + 85}
                 for i, name in enumerate(labels)]  # fmt: skip
    report = {
        "confusion_matrix": {"matrix": matrix, "true_labels": labels, "predicted_labels": labels},
        "per_class": per_class,
    }
    sub = scored(phase_for("imdrug-hiv-random"), alice_lab, "Big", classification_metrics(0.5))
    sub.report = report
    charts = {c["id"]: c for c in submission_charts(sub)}
    confusion = _figure_of(charts["confusion"])
    assert len(confusion["data"][0]["y"]) == MAX_CLASSES_PLOTTED
    assert confusion["layout"]["height"] < 700
    assert "The 20 most frequent of 86 gold classes" in charts["confusion"]["note"]
    assert len(charts["confusion"]["table"]["rows"]) == 86  # the table keeps every class
    bars = _figure_of(charts["per-class"])
    assert len(bars["data"][0]["x"]) == MAX_CLASSES_PLOTTED and bars["layout"]["xaxis"]["tickangle"] == -45
    assert all(len(name) <= 18 for name in bars["layout"]["xaxis"]["ticktext"])  # cut on the axis only


def test_the_per_seed_chart_names_metrics_and_gives_each_its_own_axis(standing, alice_lab):
    seeds = [{"seed": s, "n": 10, "balanced_accuracy": 0.5 + s / 100, "auroc": 0.017} for s in range(3)]
    sub = scored(phase_for("imdrug-hiv-random"), alice_lab, "Seeds", classification_metrics(0.5))
    sub.report = {"seeds": seeds}
    chart = {c["id"]: c for c in submission_charts(sub)}["seed-values"]
    figure = _figure_of(chart)
    titles = [a["text"] for a in figure["layout"]["annotations"]]
    assert "balanced_accuracy" not in titles and "Balanced accuracy" in " ".join(titles)
    assert {t["yaxis"] for t in figure["data"]} == {"y", "y2"}


def test_the_state_of_the_art_chart_has_day_ticks_for_records_seconds_apart():
    from leaderboard.boards.charts import DAY_MS, progression_chart

    steps = [
        {"date": "2026-01-01T10:00:00+00:00", "value": 0.5, "method": "A", "team": "t"},
        {"date": "2026-01-01T10:00:03+00:00", "value": 0.6, "method": "B", "team": "t"},
    ]
    axis = _figure_of(progression_chart("AUROC", steps))["layout"]["xaxis"]
    assert axis["dtick"] == DAY_MS and axis["tickformat"] == "%Y-%m-%d"
    assert axis["range"][0] < "2026-01-01" and axis["range"][1] > "2026-01-02"
