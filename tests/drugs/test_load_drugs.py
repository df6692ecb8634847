"""manage.py load_drugs: records, RDKit drawings made once at import, test pairs counted, bad files refused."""

from __future__ import annotations

import http.server
import threading

import pytest
from django.core.management import CommandError, call_command

from leaderboard.drugs import depict
from leaderboard.drugs.models import Drug
from tests.drugs.conftest import REAL_IDS, record, write_drugs
from tests.submissions.helpers import mudi_truth_csv, standing_phase_with_truth


@pytest.fixture
def draw_calls(monkeypatch):
    """The SMILES RDKit is asked to draw, in order (the real drawing still happens)."""
    calls: list[str] = []
    real = depict.Drawer.draw

    def counting(drawer, smiles: str):
        calls.append(smiles)
        return real(drawer, smiles)

    monkeypatch.setattr(depict.Drawer, "draw", counting)
    return calls


def test_three_real_drugs_are_drawn_once_and_a_second_import_draws_nothing(db, three_real_drugs, draw_calls):
    call_command("load_drugs", str(three_real_drugs))
    assert len(draw_calls) == 3
    for drug in Drug.objects.filter(pk__in=REAL_IDS):
        assert drug.structure_svg.lstrip().startswith(("<?xml", "<svg")) and "</svg>" in drug.structure_svg
        assert drug.structure_error == "" and drug.drawn_smiles == drug.smiles
    assert Drug.objects.get(pk="DB00682").name == "Warfarin"
    call_command("load_drugs", str(three_real_drugs))
    assert len(draw_calls) == 3


def test_a_changed_smiles_is_drawn_again(db, tmp_path, draw_calls):
    call_command("load_drugs", str(write_drugs(tmp_path, {"DB00001": record("Ethanol", "CCO")})))
    call_command("load_drugs", str(write_drugs(tmp_path, {"DB00001": record("Ethanol", "OCC")})))
    assert draw_calls == ["CCO", "OCC"]


def test_a_smiles_rdkit_cannot_read_gets_a_reason_and_no_drawing(db, tmp_path, capsys):
    call_command("load_drugs", str(write_drugs(tmp_path, {"DB00001": record("Broken", "C1CC(")})))
    drug = Drug.objects.get()
    assert drug.structure_svg == ""
    assert drug.structure_error == "RDKit could not read this drug's SMILES, so there is no structure drawing."
    assert "1 SMILES RDKit could not read" in capsys.readouterr().out


def test_the_description_is_sanitised_and_split_into_sections(db, tmp_path):
    description = {
        "summary": "Vitamin D<sub>3</sub> <script>alert(1)</script><a href='javascript:x'>link</a>\r\n\r\nSecond.",
        "indication": "Indication: For tests.",
    }
    call_command("load_drugs", str(write_drugs(tmp_path, {"DB00001": record("Calcitriol", description=description)})))
    sections = Drug.objects.get().description
    assert [s["title"] for s in sections] == ["Summary", "Indication"]
    assert sections[0]["html"] == "<p>Vitamin D<sub>3</sub> link</p><p>Second.</p>"
    assert sections[1]["html"] == "<p>For tests.</p>"


@pytest.mark.storage
def test_each_drugs_test_pairs_are_counted_by_class_from_the_loaded_mudi_truth(db, tmp_path):
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    records = {"DB00001": record("One"), "DB00004": record("Four"), "DB00099": record("Absent")}
    call_command("load_drugs", str(write_drugs(tmp_path, records)))
    one, four, absent = (Drug.objects.get(pk=key) for key in records)
    assert one.test_pairs == {"Synergism": 1, "Antagonism": 1, "New Effect": 0, "total": 2}
    assert four.test_pairs == {"Synergism": 1, "Antagonism": 0, "New Effect": 1, "total": 2}
    assert absent.test_pairs == {} and absent.test_pairs_total == 0
    assert one.counted_from == phase.truth_sha256


def test_it_reads_a_url(db, tmp_path):
    write_drugs(tmp_path, {"DB00001": record("Served")})

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        call_command("load_drugs", f"http://127.0.0.1:{server.server_port}/drugs.json")
    finally:
        server.shutdown()
        server.server_close()
    assert Drug.objects.get().name == "Served"


def test_a_file_that_is_not_json_is_refused_with_the_reason(db, tmp_path):
    path = tmp_path / "drugs.json"
    path.write_text("DB00001,Ethanol\n")
    with pytest.raises(CommandError, match="is not JSON"):
        call_command("load_drugs", str(path))


def test_a_bad_record_is_named_and_nothing_is_imported(db, tmp_path):
    records = {"DB00001": record("Fine"), "DB00002": {"smiles": "CCO"}, "aspirin": record("Not an id")}
    with pytest.raises(CommandError) as caught:
        call_command("load_drugs", str(write_drugs(tmp_path, records)))
    message = str(caught.value)
    assert "2 problems, nothing was imported" in message
    assert "DB00002: the record has no name." in message and "'aspirin' is not a DrugBank id" in message
    assert not Drug.objects.exists()


def test_a_missing_file_is_refused_with_its_path(db, tmp_path):
    with pytest.raises(CommandError, match="Could not read .*missing.json"):
        call_command("load_drugs", str(tmp_path / "missing.json"))


@pytest.mark.storage
def test_load_benchmarks_demo_loads_the_drugs_after_the_mudi_truth(db, tmp_path, settings):
    from leaderboard.challenges.models import Phase

    settings.SHARED_DATA_DIR = tmp_path / "no-shared"  # synthetic MUDI: fast
    settings.DRUG_INFO_SOURCE = str(write_drugs(tmp_path, {"DB00001": record("One")}))
    call_command("load_benchmarks", "--demo", "--no-baselines", "--task", "mudi")
    phase = Phase.objects.get(task_slug="mudi")
    assert Drug.objects.get().counted_from == phase.truth_sha256


@pytest.mark.storage
def test_load_benchmarks_demo_for_other_tasks_loads_no_drugs(db, tmp_path, settings):
    settings.DRUG_INFO_SOURCE = str(write_drugs(tmp_path, {"DB00001": record("One")}))
    call_command("load_benchmarks", "--demo", "--no-baselines", "--task", "imdrug-hiv-random")
    assert not Drug.objects.exists()


# Two atoms with 6000-character labels (CXSMILES): RDKit spends about 30 s laying the labels out.
HANGING_SMILES = "CC |$" + "AB" * 3000 + ";" + "AB" * 3000 + "$|"


@pytest.mark.slow
def test_a_smiles_that_keeps_rdkit_drawing_gets_a_placeholder_and_the_import_goes_on(db, tmp_path, capsys):
    records = {
        "DB00002": record("Ethanol", "CCO"),
        "DB00001": record("Crafted", HANGING_SMILES),
        "DB00003": record("Benzene", "c1ccccc1"),
    }

    call_command("load_drugs", str(write_drugs(tmp_path, records)), "--seconds-per-drawing", "2")

    crafted = Drug.objects.get(pk="DB00001")
    assert crafted.structure_svg == ""
    # Stopped at the time limit, or (on a fast, quiet machine) finished but far too large to show.
    assert crafted.structure_error in {
        "Drawing this drug's structure took longer than 2 s, so there is no structure drawing.",
        "This drug's structure drawing came out far too large to show, so there is none.",
    }
    assert "</svg>" in Drug.objects.get(pk="DB00002").structure_svg
    assert "</svg>" in Drug.objects.get(pk="DB00003").structure_svg  # by a fresh child: the stuck one was killed
    assert "no drawing: DB00001" in capsys.readouterr().out
    call_command("load_drugs", str(write_drugs(tmp_path, records)), "--seconds-per-drawing", "2")
    assert Drug.objects.get(pk="DB00001").structure_error == crafted.structure_error  # not tried again


def test_past_the_imports_time_limit_the_structures_left_wait_for_the_next_import(db, tmp_path, capsys):
    records = {"DB00001": record("Ethanol", "CCO"), "DB00002": record("Benzene", "c1ccccc1")}
    path = write_drugs(tmp_path, records)

    call_command("load_drugs", str(path), "--time-limit", "0")

    assert Drug.objects.count() == 2  # everything but the drawings is imported
    assert all(d.structure_svg == "" and "not drawn yet" in d.structure_error for d in Drug.objects.all())
    assert "the time limit ran out: 2 structure(s) left for the next import" in capsys.readouterr().out
    call_command("load_drugs", str(path))
    assert all("</svg>" in d.structure_svg and d.structure_error == "" for d in Drug.objects.all())
