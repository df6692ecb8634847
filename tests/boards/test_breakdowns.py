"""Breakdowns on the pages: ImDrug's head/middle/tail columns and chart, ChemicalX's per-context views."""

from __future__ import annotations

import json

import pytest

from tests.boards.conftest import scored, with_truth

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

USPTO = "imdrug-uspto50k-random"
DRUGCOMB = "chemicalx-drugcomb"
# Three seeds of six rows; classes 0-1 are head, 2-3 middle, 4-5 tail.
GROUPS = {0: "head", 1: "head", 2: "middle", 3: "middle", 4: "tail", 5: "tail"}


def uspto_truth(grouped: bool = True) -> bytes:
    lines = ["seed,id,label" + (",group" if grouped else "")]
    for seed in range(3):
        for k in range(6):
            lines.append(f"{seed},m{k},{k}" + (f",{GROUPS[k]}" if grouped else ""))
    return ("\n".join(lines) + "\n").encode()


def uspto_prediction(right: set[int]) -> bytes:
    """Class k is predicted right when k is in ``right``, else as class 0."""
    lines = ["seed,id,prediction"]
    for seed in range(3):
        for k in range(6):
            lines.append(f"{seed},m{k},{k if k in right else 0}")
    return ("\n".join(lines) + "\n").encode()


def drugcomb_truth() -> bytes:
    """Two splits; cell line A549 has both classes, HT29 only positives, MCF7 both."""
    rows = [
        ("A549", 0), ("A549", 1), ("A549", 0), ("A549", 1),
        ("HT29", 1), ("HT29", 1),
        ("MCF7", 0), ("MCF7", 1), ("MCF7", 1),
    ]  # fmt: skip
    lines = ["seed,drug_1,drug_2,context,label"]
    for seed in range(2):
        lines += [f"{seed},D{i},X,{context},{label}" for i, (context, label) in enumerate(rows)]
    return ("\n".join(lines) + "\n").encode()


def drugcomb_prediction(good: set[str]) -> bytes:
    """A perfect ranking on the contexts in ``good``, a reversed one elsewhere."""
    truth = drugcomb_truth().decode().splitlines()[1:]
    lines = ["seed,drug_1,drug_2,context,prediction"]
    for line in truth:
        seed, a, b, context, label = line.split(",")
        p = (0.9 if label == "1" else 0.1) if context in good else (0.1 if label == "1" else 0.9)
        lines.append(f"{seed},{a},{b},{context},{p}")
    return ("\n".join(lines) + "\n").encode()


def chart_data(html: str, chart_id: str) -> dict:
    return json.loads(html.split(f'id="chart-data-{chart_id}">')[1].split("</script>")[0])


def test_a_grouped_imdrug_board_shows_head_middle_and_tail_columns(client, standing, alice_lab, charlie):
    phase = with_truth(USPTO, uspto_truth())
    scored(phase, alice_lab, "HeadOnly", file=uspto_prediction({0, 1}))
    scored(phase, charlie.personal_team, "Everything", file=uspto_prediction(set(range(6))), minutes=1)
    html = client.get(f"/tasks/{USPTO}/").content.decode()
    for header in ("Head bal. acc.", "Middle bal. acc.", "Tail bal. acc."):
        assert header in html
    figure = chart_data(html, "longtail")
    bars = {trace["name"]: trace["y"] for trace in figure["data"]}
    assert bars["HeadOnly (Alice Lab)"] == [1.0, 0.0, 0.0]
    assert bars["Everything (charlie)"] == [1.0, 1.0, 1.0]


def test_an_imdrug_board_scored_without_a_grouping_has_no_group_columns_or_chart(client, standing, alice_lab):
    phase = with_truth(USPTO, uspto_truth(grouped=False))
    scored(phase, alice_lab, "Plain", file=uspto_prediction({0, 1}))
    html = client.get(f"/tasks/{USPTO}/").content.decode()
    assert "Plain" in html
    assert "Head bal. acc." not in html
    assert 'id="chart-data-longtail"' not in html


def test_the_group_columns_sort_the_board(client, standing, alice_lab, charlie):
    phase = with_truth(USPTO, uspto_truth())
    scored(phase, alice_lab, "TailFan", file=uspto_prediction({4, 5}))
    scored(phase, charlie.personal_team, "HeadFan", file=uspto_prediction({0, 1, 2}), minutes=1)
    html = client.get(f"/tasks/{USPTO}/?sort=group/tail/balanced_accuracy").content.decode()
    assert html.index("TailFan") < html.index("HeadFan")


def test_the_csv_export_carries_the_group_values(client, standing, alice_lab):
    phase = with_truth(USPTO, uspto_truth())
    scored(phase, alice_lab, "HeadOnly", file=uspto_prediction({0, 1}))
    body = b"".join(client.get(f"/tasks/{USPTO}/leaderboard.csv").streaming_content).decode()
    header, row = body.splitlines()[:2]
    columns = header.split(",")
    values = dict(zip(columns, row.split(","), strict=False))
    assert float(values["group/head/balanced_accuracy"]) == 1.0
    assert float(values["group/tail/balanced_accuracy"]) == 0.0


def test_the_submission_page_shows_its_head_middle_and_tail_bars(client, standing, alice_lab, alice):
    phase = with_truth(USPTO, uspto_truth())
    sub = scored(phase, alice_lab, "HeadOnly", file=uspto_prediction({0, 1}))
    html = client.get(f"/submissions/{sub.pk}/").content.decode()
    assert "Head, middle and tail classes" in html
    figure = chart_data(html, "longtail")
    assert figure["data"][0]["x"] == ["head", "middle", "tail"]


@pytest.fixture
def drugcomb(standing):
    return with_truth(DRUGCOMB, drugcomb_truth())


def test_a_chemicalx_board_shows_the_per_context_distribution_of_its_entries(client, drugcomb, alice_lab, charlie):
    scored(drugcomb, alice_lab, "GoodOnA549", file=drugcomb_prediction({"A549"}))
    scored(drugcomb, charlie.personal_team, "GoodEverywhere", file=drugcomb_prediction({"A549", "MCF7"}), minutes=1)
    html = client.get(f"/tasks/{DRUGCOMB}/").content.decode()
    figure = chart_data(html, "context-distribution")
    boxes = {trace["name"]: sorted(trace["y"]) for trace in figure["data"]}
    assert boxes["GoodEverywhere (charlie)"] == [1.0, 1.0]
    assert boxes["GoodOnA549 (Alice Lab)"] == [0.0, 1.0]
    assert "Median context AUROC" in html and "Worst context AUROC" in html


def test_the_submission_page_lists_the_worst_and_best_contexts_and_counts_one_class_ones(
    client, drugcomb, alice_lab, alice
):
    sub = scored(drugcomb, alice_lab, "GoodOnA549", file=drugcomb_prediction({"A549"}))
    html = client.get(f"/submissions/{sub.pk}/").content.decode()
    extremes = html.split('id="figure-context-extremes"')[1].split("</figure>")[0]
    assert "MCF7" in extremes and "A549" in extremes
    assert "1 context has one class in every split&#x27;s test rows and no AUROC." in html


def test_the_compare_page_counts_the_contexts_each_method_wins(client, drugcomb, alice_lab, charlie):
    a = scored(drugcomb, alice_lab, "GoodOnA549", file=drugcomb_prediction({"A549"}))
    b = scored(drugcomb, charlie.personal_team, "GoodOnMCF7", file=drugcomb_prediction({"MCF7"}), minutes=1)
    c = scored(drugcomb, charlie.personal_team, "GoodEverywhere", file=drugcomb_prediction({"A549", "MCF7"}), minutes=2)
    html = client.get(f"/compare/?ids={a.pk},{b.pk},{c.pk}").content.decode()
    wins = html.split('id="context-wins"')[1].split("</section>")[0]
    text = " ".join(wins.split())
    assert (
        "<strong>GoodOnA549 (Alice Lab)</strong> wins 1 of 2 contexts, <strong>GoodOnMCF7 (charlie)</strong> wins 1"
        in text
    )
    assert (
        "<strong>GoodOnA549 (Alice Lab)</strong> wins 0 of 2 contexts, "
        "<strong>GoodEverywhere (charlie)</strong> wins 1, 1 tied" in text
    )
    paired = chart_data(html, "context-paired")
    assert [trace["name"] for trace in paired["data"]] == [
        "GoodOnA549 (Alice Lab)", "GoodOnMCF7 (charlie)", "GoodEverywhere (charlie)",
    ]  # fmt: skip


def test_the_compare_page_of_imdrug_entries_has_no_context_section(client, standing, alice_lab, charlie):
    phase = with_truth(USPTO, uspto_truth())
    a = scored(phase, alice_lab, "HeadOnly", file=uspto_prediction({0, 1}))
    b = scored(phase, charlie.personal_team, "Everything", file=uspto_prediction(set(range(6))), minutes=1)
    html = client.get(f"/compare/?ids={a.pk},{b.pk}").content.decode()
    assert 'id="context-wins"' not in html
    assert 'id="chart-data-longtail"' in html
