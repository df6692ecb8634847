"""/tasks/<slug>/table.tex, .md and .csv: paper-ready tables whose numbers read back as the board's.

The LaTeX is parsed by pylatexenc (a pure-Python LaTeX parser, strict mode) into
its table environment, booktabs rules and cells; the Markdown by splitting its
pipe table; the CSV by the csv module. Every number read back must equal the
board page's text for that value.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re

import pytest
from django.core.management import call_command
from django.utils import timezone
from pylatexenc.latex2text import LatexNodes2Text
from pylatexenc.latexwalker import LatexEnvironmentNode, LatexMacroNode, LatexSpecialsNode, LatexWalker

from leaderboard.formatting import metric_text
from tests.boards.conftest import mudi_metrics, pair_metrics, phase_for, scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

START = dt.datetime(2026, 6, 1, 12, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    moment = {"now": START}
    monkeypatch.setattr(timezone, "now", lambda: moment["now"])
    return moment


@pytest.fixture
def twosides(standing, alice_lab, charlie, clock):
    """Three ChemicalX entries: Best 0.8 ± 0.05, Close 0.78 ± 0.05 (its splits go the other way, so the paired
    test over splits cannot tell it from Best), Far 0.6 ± 0.01 (told apart)."""
    phase = phase_for("chemicalx-twosides")
    clock["now"] = START + dt.timedelta(hours=1)
    scored(phase, alice_lab, "Best", pair_metrics(0.8, 0.05, aupr=0.7))
    clock["now"] = START + dt.timedelta(hours=2)
    close = pair_metrics(0.78, 0.05, aupr=0.75)
    for seed in range(10):  # the other phase of the alternation: paired differences of 0.02 +- 0.1
        close[f"seed/{seed}/auroc"] = 0.78 + (-0.05 if seed % 2 else 0.05)
    scored(phase, charlie.personal_team, "Close", close, minutes=1)
    scored(phase, charlie.personal_team, "Far & away_1", pair_metrics(0.6, 0.01, aupr=0.7), minutes=2)
    clock["now"] = START + dt.timedelta(hours=3)
    return phase


def latex_rows(text: str) -> tuple[list[list[str]], LatexEnvironmentNode]:
    """The cells of the tabular inside the table float, as plain text, and the tabular node."""
    nodes, _, _ = LatexWalker(text, tolerant_parsing=False).get_latex_nodes()
    table = next(n for n in nodes if isinstance(n, LatexEnvironmentNode))
    assert table.environmentname == "table"
    tabular = next(n for n in table.nodelist if isinstance(n, LatexEnvironmentNode))
    assert tabular.environmentname == "tabular"
    macros = [n.macroname for n in tabular.nodelist if isinstance(n, LatexMacroNode)]
    assert macros.count("toprule") == macros.count("midrule") == macros.count("bottomrule") == 1
    rows, row, cell = [], [], []
    to_text = LatexNodes2Text()
    for node in tabular.nodelist:
        if isinstance(node, LatexMacroNode) and node.macroname in ("toprule", "midrule", "bottomrule"):
            continue
        if isinstance(node, LatexSpecialsNode) and node.specials_chars == "&":
            row.append(to_text.nodelist_to_text(cell).strip())
            cell = []
        elif isinstance(node, LatexMacroNode) and node.macroname == "\\":
            row.append(to_text.nodelist_to_text(cell).strip())
            rows.append(row)
            row, cell = [], []
        else:
            cell.append(node)
    return rows, table


def markdown_rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("|")]

    def unescape(cell: str) -> str:
        return cell.strip().replace("\\|", "|").replace("\\_", "_")

    cells = [[unescape(c) for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
    return [cells[0], *cells[2:]]  # no alignment row


def numbers(cell: str) -> list[str]:
    return re.findall(r"\d+\.\d+", cell)


def test_the_latex_table_parses_and_its_numbers_are_the_boards(client, twosides):
    text = client.get("/tasks/chemicalx-twosides/table.tex").content.decode()
    rows, table = latex_rows(text)
    header, body = rows[0], rows[1:]
    assert header[:4] == ["Rank", "Method", "Team / source", "AUROC ± stderr"]
    assert [r[1] for r in body] == ["Best", "Close", "Far & away_1"]
    assert [r[0] for r in body] == ["1", "2", "3"]
    assert numbers(body[0][3]) == [metric_text(0.8), metric_text(0.05)]
    assert numbers(body[1][3]) == [metric_text(0.78), metric_text(0.05)]
    assert numbers(body[2][4]) == [metric_text(0.7)]
    # The leader is marked, as the board marks it; Close is not told apart from it, Far is.
    assert "†" in body[0][3] and "†" in body[1][3] and "†" not in body[2][3]
    assert r"\textbf{0.8000 $\pm$ 0.0500}" in text  # the best AUROC, with its spread
    assert r"\textbf{0.7500}" in text  # the best AUPR is Close's
    caption = next(n for n in table.nodelist if isinstance(n, LatexMacroNode) and n.macroname == "caption")
    assert caption is not None
    assert r"\url{http://127.0.0.1:8000/tasks/chemicalx-twosides/?as_of=2026-06-01T14:00:00Z}" in text


def test_the_markdown_and_csv_tables_read_back_as_the_boards_numbers(client, twosides):
    md = client.get("/tasks/chemicalx-twosides/table.md").content.decode()
    rows = markdown_rows(md)
    assert rows[0][3] == "AUROC ± stderr"
    assert [r[1] for r in rows[1:]] == ["Best", "Close", "Far & away_1"]
    assert rows[1][3] == "**0.8000 ± 0.0500** †" and rows[2][3] == "0.7800 ± 0.0500 †"
    response = client.get("/tasks/chemicalx-twosides/table.csv")
    permalink = "http://127.0.0.1:8000/tasks/chemicalx-twosides/?as_of=2026-06-01T14:00:00Z"
    assert response["Link"] == f'<{permalink}>; rel="canonical"'
    lines = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["rank"], r["method"], r["AUROC"], r["AUROC stderr"], r["AUPR"]) for r in lines] == [
        ("1", "Best", "0.8000", "0.0500", "0.7000"),
        ("2", "Close", "0.7800", "0.0500", "0.7500"),
        ("3", "Far & away_1", "0.6000", "0.0100", "0.7000"),
    ]
    assert [r["indistinguishable_from_leader"] for r in lines] == ["true", "true", "false"]
    assert lines[0]["best_in_column"] == "AUROC;F1" and lines[1]["best_in_column"] == "AUPR;F1"


def test_the_caption_states_metric_direction_test_and_permalink_with_digest(client, twosides):
    md = client.get("/tasks/chemicalx-twosides/table.md?top=2").content.decode()
    caption = md.strip().splitlines()[-1]
    assert "the top 2 of 3 entries ranked by AUROC (higher is better), mean ± standard error over 10 seeds." in caption
    assert "Pairs are compared by a paired t-test over the 10 per-seed values" in caption
    assert "Bonferroni for the 45 pairs of the top-10 matrix" in caption
    assert "† marks entries not told apart from the leader" in caption
    html = client.get("/tasks/chemicalx-twosides/").content.decode()
    digest = re.search(r'id="view-digest">sha256:([0-9a-f]{64})<', html)[1]
    assert f"(rows sha256:{digest})" in caption
    assert len(markdown_rows(md)) == 3


def test_a_pinned_table_has_the_rows_then(client, twosides, clock):
    text = client.get("/tasks/chemicalx-twosides/table.csv?as_of=2026-06-01T13:30:00Z").content.decode()
    assert [r["method"] for r in csv.DictReader(io.StringIO(text))] == ["Best"]
    md = client.get("/tasks/chemicalx-twosides/table.md?as_of=2026-06-01T13:30:00Z").content.decode()
    assert "<http://127.0.0.1:8000/tasks/chemicalx-twosides/?as_of=2026-06-01T13:30:00Z>" in md


@pytest.mark.parametrize(("query", "message"), [("top=0", "out of range"), ("top=x", "not a whole number"),
                                                ("as_of=soon", "not an ISO 8601")])  # fmt: skip
def test_bad_parameters_are_refused_with_the_reason(client, twosides, query, message):
    response = client.get(f"/tasks/chemicalx-twosides/table.tex?{query}")
    assert response.status_code == 400
    assert message in response.content.decode()


def test_published_results_sit_in_the_table_with_their_source(client, standing, alice_lab, charlie, shared_data):
    phase = phase_for("mudi")
    scored(phase, alice_lab, "Strong", mudi_metrics(0.90, 0.90))
    scored(phase, charlie.personal_team, "Weak", mudi_metrics(0.10, 0.10), minutes=1)
    call_command("load_literature", str(shared_data / "literature/mudi_table6.csv"))
    text = client.get("/tasks/mudi/table.tex?top=5").content.decode()
    rows, _ = latex_rows(text)
    body = rows[1:]
    assert body[0][1] == "Strong" and body[-1][1] == "Weak"
    published = body[1:-1]
    assert published and all(r[0] == "–" and r[2].startswith("reported in Ngo et al") for r in published)
    values = [float(numbers(r[3])[0]) for r in published]
    assert values == sorted(values, reverse=True)
    html = client.get("/tasks/mudi/").content.decode()
    for row in published:  # the page shows the same text for each published value
        assert f">{numbers(row[3])[0]}<" in html
    assert client.get("/tasks/mudi/table.md?published=0").content.decode().count("reported in") == 0
