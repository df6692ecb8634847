"""Chart figures are plain Plotly data: what plotly's graph objects did per request is checked here.

tests/conftest.py runs plotly's validator on every figure any test builds; these
tests pin the rules the plain-data builder follows in its place.
"""

from __future__ import annotations

import json

import plotly.colors
import plotly.graph_objects as go
import pytest

from leaderboard.submissions.charts import Figure, chart, trace
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
