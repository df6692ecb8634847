"""/tasks/<slug>/feed.atom and /badges/<submission>.svg, parsed as XML (Atom and SVG namespaces)."""

from __future__ import annotations

import datetime as dt
import uuid
import xml.etree.ElementTree as ET

import pytest
from django.core.management import call_command
from django.utils import timezone

from leaderboard.literature.models import PublishedResult
from leaderboard.submissions.models import Submission
from tests.boards.conftest import mudi_metrics, phase_for, scored

# Its tests save or read files through the site's storages (CI runs them against a bucket too).
pytestmark = pytest.mark.storage

ATOM = "{http://www.w3.org/2005/Atom}"
SVG = "{http://www.w3.org/2000/svg}"
START = dt.datetime(2026, 6, 1, 12, tzinfo=dt.UTC)


@pytest.fixture
def clock(monkeypatch):
    moment = {"now": START}
    monkeypatch.setattr(timezone, "now", lambda: moment["now"])
    return moment


def atom(response) -> ET.Element:
    assert response["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)
    assert root.tag == f"{ATOM}feed"
    for entry in root.findall(f"{ATOM}entry"):  # what Atom requires of every entry
        for child in ("id", "title", "updated"):
            assert entry.find(f"{ATOM}{child}") is not None, child
        dt.datetime.fromisoformat(entry.find(f"{ATOM}updated").text)
    return root


def test_the_feed_lists_each_new_leader_newest_first(client, standing, alice_lab, charlie):
    phase = phase_for("mudi")
    first = scored(phase, alice_lab, "Alpha", mudi_metrics(0.5))
    scored(phase, charlie.personal_team, "Slower", mudi_metrics(0.4), minutes=1)  # never leads
    best = scored(phase, charlie.personal_team, "Beta", mudi_metrics(0.7), minutes=2)
    root = atom(client.get("/tasks/mudi/feed.atom"))
    entries = root.findall(f"{ATOM}entry")
    assert [e.find(f"{ATOM}title").text for e in entries] == [
        "New leader: Beta (charlie), Macro F1 (direction-aware) 0.7000",
        "New leader: Alpha (Alice Lab), Macro F1 (direction-aware) 0.5000",
    ]
    links = [e.find(f"{ATOM}link").get("href") for e in entries]
    assert links == [f"http://127.0.0.1:8000/submissions/{best.pk}/", f"http://127.0.0.1:8000/submissions/{first.pk}/"]
    assert len({e.find(f"{ATOM}id").text for e in entries}) == 2
    html = client.get("/tasks/mudi/").content.decode()
    assert 'type="application/atom+xml"' in html and 'href="/tasks/mudi/feed.atom"' in html


def test_the_feed_announces_published_results_when_they_were_loaded(client, standing, alice_lab, shared_data):
    scored(phase_for("mudi"), alice_lab, "Alpha", mudi_metrics(0.9))  # scored at the fixtures' T0, 2026-01-01
    call_command("load_literature", str(shared_data / "literature/mudi_table6.csv"))
    first = {}
    for row in PublishedResult.objects.order_by("loaded_at"):
        first.setdefault(row.method, row.loaded_at)
    entries = atom(client.get("/tasks/mudi/feed.atom")).findall(f"{ATOM}entry")
    published = [e for e in entries if e.find(f"{ATOM}title").text.startswith("Published result: ")]
    assert published
    for e in published:
        method = e.find(f"{ATOM}title").text.removeprefix("Published result: ").split(",")[0]
        assert dt.datetime.fromisoformat(e.find(f"{ATOM}updated").text) == first[method]
    assert all("reported in Ngo et al" in e.find(f"{ATOM}title").text for e in published)
    assert entries[0] in published  # loaded after the leader's score: newer


def badge_text(response) -> str:
    assert response["Content-Type"] == "image/svg+xml"
    root = ET.fromstring(response.content)
    assert root.tag == f"{SVG}svg" and int(root.get("width")) > 0
    return root.find(f"{SVG}title").text


def test_a_badge_says_the_rank_the_value_and_the_date(client, standing, alice_lab, charlie, clock):
    phase = phase_for("mudi")
    clock["now"] = START + dt.timedelta(hours=1)
    scored(phase, charlie.personal_team, "Beta", mudi_metrics(0.8))
    clock["now"] = START + dt.timedelta(days=1)
    sub = scored(phase, alice_lab, "Alpha", mudi_metrics(0.786), minutes=1)
    clock["now"] = START + dt.timedelta(days=2)
    text = badge_text(client.get(f"/badges/{sub.pk}.svg"))
    assert text == "DDI Leaderboard: #2 on MUDI, Macro F1 (direction-aware) 0.7860, as of 2026-06-02"


def test_an_unranked_entry_gets_a_grey_badge_and_a_private_hidden_or_unknown_one_none(client, standing, alice_lab):
    phase = phase_for("mudi")
    unranked = scored(phase, alice_lab, "No value", {})
    assert badge_text(client.get(f"/badges/{unranked.pk}.svg")) == "DDI Leaderboard: not ranked on MUDI"
    private = scored(phase, alice_lab, "Secret", mudi_metrics(0.9), is_public=False, minutes=1)
    assert client.get(f"/badges/{private.pk}.svg").status_code == 404
    hidden = scored(phase, alice_lab, "Hidden & <odd>", mudi_metrics(0.9), minutes=2)
    Submission.objects.filter(pk=hidden.pk).update(is_hidden=True)
    assert client.get(f"/badges/{hidden.pk}.svg").status_code == 404
    assert client.get(f"/badges/{uuid.uuid4()}.svg").status_code == 404
