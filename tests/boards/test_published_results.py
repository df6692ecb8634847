"""Published results beside the boards: load_literature, unranked rows, the control, the exports."""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command

from leaderboard.literature.models import PublishedResult
from tests.boards.conftest import mudi_metrics, phase_for, scored
from tests.boards.test_board_page import methods, ranks

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

MUDI_TABLE = "literature/mudi_table6.csv"


@pytest.fixture
def table(shared_data) -> Path:
    return shared_data / MUDI_TABLE


@pytest.fixture
def mudi_with_literature(standing, alice_lab, charlie, table):
    phase = phase_for("mudi")
    # The published aware macro F1s run from about 0.21 (Description) to 0.45; ours bracket them.
    scored(phase, alice_lab, "Strong", mudi_metrics(0.90, 0.90))
    scored(phase, charlie.personal_team, "Weak", mudi_metrics(0.10, 0.10), minutes=1)
    call_command("load_literature", str(table))
    return phase


def published_rows(response) -> list[str]:
    return re.findall(
        r'<tr class="published[^"]*">\s*<td[^>]*></td>\s*<td[^>]*>([^<]*)</td>', response.content.decode()
    )


def test_every_imported_number_equals_its_csv_cell(db, table):
    call_command("load_literature", str(table))
    with open(table, newline="", encoding="utf-8") as handle:
        lines = list(csv.DictReader(handle))
    stored = {(r.method, r.setting, r.metric): r for r in PublishedResult.objects.all()}
    assert len(stored) == len(lines) == PublishedResult.objects.count()
    for line in lines:
        row = stored[(line["method"], line["setting"], line["metric"])]
        assert row.value == float(line["value"])
        assert row.unit == line["unit"] and row.source == line["source"] and row.notes == line["notes"]
        assert row.key  # every MUDI metric of the table is one we compute
        assert row.as_value().fraction == float(Decimal(line["value"]) / 100)  # as printed, no float noise


def test_reimporting_a_file_replaces_its_rows(db, table):
    call_command("load_literature", str(table))
    call_command("load_literature", str(table.parent))  # a folder: every CSV in it
    assert PublishedResult.objects.count() == 180


def test_published_rows_sit_where_they_would_rank_and_never_get_a_rank(client, mudi_with_literature):
    response = client.get("/tasks/mudi/")
    html = response.content.decode()
    assert methods(response) == ["Strong", "Weak"]  # our rows, ranked 1 and 2
    assert ranks(response) == ["1", "2"]
    assert published_rows(response) == ["—"] * 6
    assert html.count("reported in Ngo et al. 2025 MUDI, Table 6") == 6
    assert 'href="https://arxiv.org/abs/2506.01478"' in html
    assert "printed in percent, shown here as fractions" in html
    strong, weak = html.index(">Strong<"), html.index(">Weak<")
    assert strong < html.index("reported in Ngo") < weak


def test_published_rows_follow_the_view_they_are_shown_on(client, mudi_with_literature):
    html = client.get("/tasks/mudi/?direction=agnostic").content.decode()
    graph = html[html.index('<td class="method">Graph') :]
    # Graph's direction-agnostic macro F1 as printed (percent), shown as a fraction with four decimals.
    printed = PublishedResult.objects.get(method="Graph", setting="agnostic", metric="Macro-averaged F1").value
    assert f"{printed / 100:.4f}" in graph[: graph.index("</tr>")]


def test_the_published_control_is_on_by_default_and_kept_in_the_query_string(client, mudi_with_literature):
    hidden = client.get("/tasks/mudi/?published=0")
    assert published_rows(hidden) == []
    html = hidden.content.decode()
    assert '<option value="0" selected>hidden</option>' in html
    assert 'href="/tasks/mudi/leaderboard.csv?published=0"' in html
    assert "published=0" in re.search(r'<th class="num[^"]*"[^>]*><a href="([^"]+)"', html).group(1)
    assert len(published_rows(client.get("/tasks/mudi/"))) == 6


def test_a_column_sort_shows_no_published_rows(client, mudi_with_literature):
    assert published_rows(client.get("/tasks/mudi/?sort=aware/micro/f1")) == []


def test_the_exports_carry_the_published_rows_with_a_source_and_no_rank(client, mudi_with_literature):
    rows = list(csv.DictReader(io.StringIO(client.get("/tasks/mudi/leaderboard.csv").getvalue().decode())))
    assert [row["source"] for row in rows] == ["scored here"] + ["reported in Ngo et al. 2025 MUDI, Table 6"] * 6 + [
        "scored here"
    ]
    for row in rows[1:7]:
        assert row["rank"] == "" and row["submission_id"] == ""
        printed = PublishedResult.objects.get(method=row["method"], setting="aware", metric="Macro-averaged F1")
        assert float(row["aware/macro/f1"]) == float(Decimal(str(printed.value)) / 100)
    document = json.loads(client.get("/tasks/mudi/leaderboard.json").getvalue())
    assert [r["rank"] for r in document["rows"]] == [1, None, None, None, None, None, None, 2]
    assert "source" in document["columns"]
    plain = list(csv.DictReader(io.StringIO(client.get("/tasks/mudi/leaderboard.csv?published=0").getvalue().decode())))
    assert [row["source"] for row in plain] == ["scored here", "scored here"]


def test_the_shared_mudi_table_satisfies_the_harmonic_mean_relation(client, mudi_with_literature):
    assert "inconsistent:" not in client.get("/tasks/mudi/").content.decode()


def test_a_row_that_breaks_the_harmonic_mean_is_flagged_not_hidden(client, standing, alice_lab, table, tmp_path):
    scored(phase_for("mudi"), alice_lab, "Strong", mudi_metrics(0.90, 0.90))
    text = table.read_text(encoding="utf-8").splitlines()
    broken = []
    for line in text:
        if line.startswith("mudi,Graph,aware,Macro-averaged F1,"):
            parts = line.split(",")
            parts[4] = "99.00"
            line = ",".join(parts)
        broken.append(line)
    path = tmp_path / "broken.csv"
    path.write_text("\n".join(broken) + "\n", encoding="utf-8")
    call_command("load_literature", str(path))
    html = client.get("/tasks/mudi/").content.decode()
    assert html.count("inconsistent: aware macro F1 0.9900 is not the harmonic mean") == 1
    assert len(published_rows(client.get("/tasks/mudi/"))) == 6


def test_the_demo_loads_the_published_results(db, settings, shared_data):
    settings.SHARED_DATA_DIR = shared_data.parent
    call_command("load_benchmarks", "--demo", "--no-baselines", "--task", "imdrug-hiv-random")
    assert PublishedResult.objects.filter(task_slug="mudi").count() == 180


def test_an_organized_challenge_on_the_same_task_shows_no_published_rows(db, standing, table):
    # A paper's numbers come from the benchmark's public test set; a challenge scores its own hidden rows.
    from leaderboard.challenges.models import Challenge, Phase

    challenge = Challenge.objects.create(slug="mudi-2027", title="MUDI 2027", kind="organized", is_published=True)
    organized = Phase.objects.create(challenge=challenge, slug="test", title="Test", task_slug="mudi")
    call_command("load_literature", str(table))
    organized.refresh_from_db()
    assert not organized.has_published_results
    assert phase_for("mudi").has_published_results


def test_published_values_are_exported_as_printed_without_float_noise(client, mudi_with_literature):
    rows = list(csv.DictReader(io.StringIO(client.get("/tasks/mudi/leaderboard.csv").getvalue().decode())))
    published = [row for row in rows if row["source"].startswith("reported in")]
    assert published
    for row in published:
        printed = PublishedResult.objects.get(method=row["method"], setting="aware", metric="Macro-averaged F1")
        assert row["aware/macro/f1"] == str(Decimal(str(printed.value)) / 100)  # 46.02 -> "0.4602"
        for value in row.values():
            assert not re.search(r"\d\.\d*0000000\d", value), value


def test_a_published_row_is_one_line_its_notes_in_titles(client, mudi_with_literature):
    html = client.get("/tasks/mudi/").content.decode()
    row = re.search(r'<tr class="published[^"]*">(.*?)</tr>', html, re.S).group(1)
    method_cell = re.search(r'<td class="method">(.*?)</td>', row, re.S).group(1)
    assert 'class="badge badge-published" href="' in method_cell
    assert "printed in percent, shown here as fractions" in method_cell  # in the badge's title
    assert ">paper</a>" not in method_cell
