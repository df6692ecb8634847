"""Chart figures are plain Plotly data: what plotly's graph objects did per request is checked here.

tests/conftest.py runs plotly's validator on every figure any test builds; these
tests pin the rules the plain-data builder follows in its place.
"""

from __future__ import annotations

import json

import plotly.colors
import plotly.graph_objects as go
import pytest

from leaderboard.boards.charts import class_f1_chart, progression_chart
from leaderboard.kinds.mudi import direction_scatter
from leaderboard.kinds.pair import per_context
from leaderboard.submissions.charts import (
    HEATMAP_ROW_PX,
    UNIT_RANGE,
    Figure,
    chart,
    confusion,
    per_class_bars,
    short,
    trace,
)
from tests.boards.conftest import classification_metrics, mudi_metrics, pair_metrics, phase_for, scored


def built(fig: Figure) -> dict:
    return json.loads(chart("c", "A chart", fig, ["a"], [[1]])["figure"])


def test_a_misspelt_property_is_caught_by_the_validation_every_test_runs(db):
    with pytest.raises(ValueError, match="colour"):
        chart("c", "t", Figure(trace("bar", x=[1], y=[2], colour="red")), ["a"], [])


def test_titles_given_as_text_become_objects_as_plotly_js_3_needs():
    fig = Figure(trace("heatmap", z=[[1]], colorbar={"title": "count"}))
    fig.update_layout(xaxis={"title": "predicted"}, yaxis={"title": {"text": "gold"}})
    figure = built(fig)
    assert figure["data"][0]["colorbar"]["title"] == {"text": "count"}
    assert figure["layout"]["xaxis"]["title"] == {"text": "predicted"}
    assert figure["layout"]["yaxis"]["title"] == {"text": "gold"}
    assert figure["layout"]["title"]["text"] == "A chart"


def test_a_named_colour_scale_is_expanded_as_plotly_does_and_none_properties_are_left_out():
    data = built(Figure(trace("heatmap", z=[[1, None]], colorscale="Blues", name=None)))["data"][0]
    assert data["colorscale"] == [list(step) for step in plotly.colors.get_colorscale("Blues")]
    assert "name" not in data
    assert data["z"] == [[1, None]]  # None inside the data stays (a gap)


def test_updates_merge_nested_settings_and_keep_the_sites_layout():
    fig = Figure(trace("bar", x=[1], y=[2]))
    fig.update_layout(xaxis={"tickangle": -45}, height=300)
    fig.update_traces(marker={"color": "#123456"})
    figure = built(fig)
    # Merged, not replaced: the site's axis defaults stay.
    assert figure["layout"]["xaxis"] == {
        "automargin": True,
        "exponentformat": "none",
        "separatethousands": True,
        "tickangle": -45,
    }
    assert figure["layout"]["height"] == 300
    assert figure["layout"]["font"]["family"].startswith("system-ui")
    assert figure["layout"]["template"] == plotly.io.templates["none"].to_plotly_json()
    assert figure["data"][0]["marker"] == {"color": "#123456"}


def test_the_same_figure_as_plotlys_graph_objects_build():
    fig = Figure(trace("scatter", x=[0.1, 0.2], y=[0.3, 0.4], mode="markers", marker={"size": 10}))
    fig.update_layout(xaxis={"title": "aware"}, showlegend=False)
    ours = built(fig)
    theirs = go.Figure(
        go.Scatter(x=[0.1, 0.2], y=[0.3, 0.4], mode="markers", marker={"size": 10}),
        layout={k: v for k, v in Figure([]).layout.items() if k != "template"} | {"template": "none"},
    )
    theirs.update_layout(
        xaxis={"title": "aware"},
        showlegend=False,
        title={"text": "A chart", "x": 0, "xanchor": "left", "y": 0.98, "yanchor": "top"},
    )
    assert ours == json.loads(theirs.to_json())


@pytest.mark.storage
def test_every_board_kind_renders_valid_figures(client, standing, alice_lab, charlie):
    import scoring

    scored(phase_for("mudi"), alice_lab, "A", mudi_metrics(0.5, 0.6))
    scored(phase_for("chemicalx-twosides"), alice_lab, "A", pair_metrics(0.8, spread=0.02))
    classes = scoring.get_task("imdrug-drugbank-random").classes
    scored(phase_for("imdrug-drugbank-random"), alice_lab, "A", classification_metrics(0.6, classes=classes))
    scored(phase_for("imdrug-hiv-random"), charlie.personal_team, "B", classification_metrics(0.7))
    for slug in ("mudi", "chemicalx-twosides", "imdrug-drugbank-random", "imdrug-hiv-random"):
        html = client.get(f"/tasks/{slug}/").content.decode()
        blocks = [b.split("</script>")[0] for b in html.split('<script type="application/json" id="chart-data-')[1:]]
        assert blocks, slug
        for block in blocks:
            go.Figure(json.loads(block.split(">", 1)[1]))


def test_counts_are_written_whole_never_with_an_si_suffix():
    figure = built(Figure(trace("bar", x=["a"], y=[54032])))
    for axis in ("xaxis", "yaxis"):
        assert figure["layout"][axis]["exponentformat"] == "none"  # 54,032, not 54.032k
        assert figure["layout"][axis]["separatethousands"] is True


# --- the layout rules of issue 23: labels, legends, ranges, the many-class heatmap ---------------

LONG = "The risk or severity of adverse effects can be increased when combined with"


def figure_of(chart_dict: dict | None) -> dict:
    assert chart_dict is not None
    return json.loads(chart_dict["figure"])


def test_the_legend_lies_horizontally_above_the_plot_clear_of_the_axis_titles():
    legend = built(Figure(trace("bar", x=["a"], y=[1], name="one")))["layout"]["legend"]
    assert legend["orientation"] == "h"
    assert legend["y"] > 1 and legend["yanchor"] == "bottom"  # above the plot area, not on the x-axis title
    assert legend["x"] == 0 and legend["xanchor"] == "left"


def test_long_class_names_are_cut_on_the_axis_and_whole_in_the_hover():
    per_class = [
        {"class": f"{LONG} drug A", "precision": 0.5, "recall": 0.4, "f1": 0.45, "support": 10},
        {"class": f"{LONG} drug B", "precision": 0.7, "recall": 0.6, "f1": 0.65, "support": 5},
    ]
    figure = figure_of(per_class_bars("per-class", "Per-class", per_class))
    axis = figure["layout"]["xaxis"]
    # Two classes alike in their first 18 characters stay two bars, placed on their full names.
    assert figure["data"][0]["x"] == [f"{LONG} drug A", f"{LONG} drug B"]
    assert axis["tickvals"] == figure["data"][0]["x"]
    assert all(len(text) <= 18 for text in axis["ticktext"])
    assert axis["automargin"] is True
    assert "%{x}" in figure["data"][0]["hovertemplate"]


def test_the_confusion_matrix_is_labelled_by_cut_names_and_hovers_the_full_ones():
    cm = {"true_labels": [LONG, "short"], "predicted_labels": [LONG, "short"], "matrix": [[54032, 1], [2, 3]]}
    figure = figure_of(confusion("confusion", "Confusion", cm))
    heatmap = figure["data"][0]
    assert heatmap["x"] == heatmap["y"] == [LONG, "short"]
    assert heatmap["z"] == [[54032, 1], [2, 3]]  # the data as scored
    for axis in ("xaxis", "yaxis"):
        assert figure["layout"][axis]["ticktext"] == [short(LONG, 18), "short"]
        assert figure["layout"][axis]["automargin"] is True


def test_many_classes_get_a_row_each_best_first_leaving_out_classes_without_a_value():
    classes = [f"{LONG} {i}" for i in range(86)]
    keys = [(name, f"class/{i}/f1") for i, name in enumerate(classes)]
    rows = [
        {"method_name": m, "team_name": "Lab", "metrics": {f"class/{i}/f1": (i % 10) / 10 for i in range(80)}}
        for m in ("A", "B")
    ]
    built_chart = class_f1_chart(keys, rows)
    figure = figure_of(built_chart)
    heatmap, layout = figure["data"][0], figure["layout"]
    assert len(heatmap["y"]) == 80  # the 6 classes nobody has a value for are left out
    means = [row[0] for row in heatmap["z"]]
    assert means == sorted(means, reverse=True)
    assert layout["height"] == 260 + HEATMAP_ROW_PX * 80  # a readable row per class; the page scrolls
    assert layout["yaxis"]["autorange"] == "reversed" and layout["yaxis"]["automargin"] is True
    assert layout["xaxis"]["side"] == "top"
    assert layout["xaxis"]["ticktext"] == ["A (Lab)", "B (Lab)"]
    assert len(built_chart["table"]["columns"]) == 87  # the table keeps every class


def test_metrics_in_0_1_are_drawn_on_0_1_and_counts_from_0():
    per_class = [{"class": "a", "precision": 0.5, "recall": 0.4, "f1": 0.45, "support": 10}]
    assert figure_of(per_class_bars("p", "P", per_class))["layout"]["yaxis"]["range"] == UNIT_RANGE
    few = [("a", "class/a/f1"), ("b", "class/b/f1")]
    rows = [{"method_name": "A", "team_name": "Lab", "metrics": {"class/a/f1": 0.3, "class/b/f1": 0.9}}]
    assert figure_of(class_f1_chart(few, rows))["layout"]["yaxis"]["range"] == UNIT_RANGE
    contexts = [{"context": f"c{i}", "auroc": 0.5, "n_splits": 1, "n_rows": 9, "n_positive": 3} for i in range(99)]
    histogram = figure_of(per_context({"per_context": contexts}))["layout"]
    assert histogram["xaxis"]["range"] == UNIT_RANGE
    assert histogram["yaxis"]["rangemode"] == "tozero"


def test_the_direction_scatter_shares_one_padded_range_with_its_diagonal():
    rows = [
        {"method_name": m, "team_name": "Lab", "metrics": {"aware/macro/f1": a, "agnostic/macro/f1": b}}
        for m, a, b in (("A", 0.42, 0.61), ("B", 0.5, 0.55))
    ]
    layout = figure_of(direction_scatter(None, rows))["layout"]
    assert layout["xaxis"]["range"] == layout["yaxis"]["range"] == [0.35, 0.7]
    diagonal = layout["shapes"][0]
    assert (diagonal["x0"], diagonal["y0"], diagonal["x1"], diagonal["y1"]) == (0.35, 0.35, 0.7, 0.7)


def test_a_lone_record_is_drawn_on_0_1_and_a_metric_beyond_1_from_0():
    lone = [{"date": "2026-01-01T00:00:00", "value": 0.33, "method": "A", "team": "Lab"}]
    assert figure_of(progression_chart("macro F1", lone))["layout"]["yaxis"]["range"] == UNIT_RANGE
    mse = [{"date": "2026-01-01T00:00:00", "value": 3.5, "method": "A", "team": "Lab"}]
    axis = figure_of(progression_chart("MSE", mse))["layout"]["yaxis"]
    assert axis["rangemode"] == "tozero" and "range" not in axis
