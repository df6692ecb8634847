"""manage.py import_challenge BUNDLE.zip: the documented example imports; malformed bundles create nothing."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from leaderboard.challenges import bundles
from leaderboard.challenges.models import Challenge, Phase, TruthVersion

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "mudi-2027"
SLUG = "mudi-held-out-pairs-2027"


def example_files() -> dict[str, bytes]:
    return {str(p.relative_to(EXAMPLE)): p.read_bytes() for p in sorted(EXAMPLE.rglob("*")) if p.is_file()}


def zip_bytes(files: dict[str, bytes], *, links: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def write_bundle(tmp_path: Path, files: dict[str, bytes] | None = None, **kwargs) -> Path:
    path = tmp_path / "bundle.zip"
    path.write_bytes(zip_bytes(example_files() if files is None else files, **kwargs))
    return path


def edited(old: str, new: str, *, count: int = 1) -> dict[str, bytes]:
    """The example bundle with one text replacement in challenge.yaml."""
    files = example_files()
    text = files["challenge.yaml"].decode()
    assert old in text, old
    files["challenge.yaml"] = text.replace(old, new, count).encode()
    return files


@pytest.mark.storage
def test_the_documented_example_bundle_imports(db, tmp_path, alice, capsys):
    call_command("import_challenge", str(write_bundle(tmp_path)), "--organizer", "alice")
    assert f"imported challenge {SLUG} with 2 phases" in capsys.readouterr().out
    challenge = Challenge.objects.get(slug=SLUG)
    assert challenge.kind == Challenge.Kind.ORGANIZED and not challenge.is_published
    assert challenge.registration_mode == "approval" and challenge.max_team_size == 3
    assert list(challenge.organizers.all()) == [alice]
    development, test = challenge.phases.all()
    assert (development.slug, development.order, test.slug, test.order) == ("development", 0, "test", 1)
    assert development.split == {"fraction": 0.5, "seed": 2027} and test.split == {"usage": True}
    assert (test.final_selection_allowed, test.final_selection_count, test.ladder_threshold) == (True, 2, 0.01)
    assert test.ends_at.isoformat() == "2027-04-01T10:00:00+00:00"
    assert development.has_truth and test.has_truth
    assert test.truth_file.read() == (EXAMPLE / "truth" / "test.csv").read_bytes()
    assert TruthVersion.objects.get(phase=test).uploaded_by == alice


def stored_files() -> set[Path]:
    root = Path(settings.PRIVATE_STORAGE_ROOT)
    return set(root.rglob("*")) if root.exists() else set()


@pytest.fixture
def nothing_created(db):
    """Call it after a refused import: no challenge, phase, truth version or stored file was added."""
    phases, files = Phase.objects.count(), stored_files()

    def check() -> bool:
        return (
            not Challenge.objects.organized().exists()
            and Phase.objects.count() == phases
            and not TruthVersion.objects.exists()
            and stored_files() == files
        )

    return check


MALFORMED = {
    "bad YAML": (edited("title: Development", "title: [Development"), "challenge.yaml: not valid YAML (line"),
    "not a mapping": ({**example_files(), "challenge.yaml": b"- just\n- a list\n"}, "the file must be a mapping"),
    "unknown top-level key": (edited("version: 1", "version: 1\ncolour: blue"), "colour: unknown key; expected one of"),
    "unknown phase key": (edited("    daily_limit: 10", "    deadline: soon"), "phases[0].deadline: unknown key"),
    "missing required key": (edited("  title: MUDI held-out pairs 2027\n", ""), "challenge.title: is required"),
    "impossible date": (
        edited("ends_at: 2027-04-01T12:00:00+02:00", 'ends_at: "2027-02-30"'),
        'phases[1].ends_at: "2027-02-30" is not a date',
    ),
    "date without UTC offset": (
        edited("starts_at: 2027-01-01T00:00:00Z", "starts_at: 2027-01-01T00:00:00"),
        'phases[0].starts_at: "2027-01-01T00:00:00" has no UTC offset',
    ),
    "phase ending before it starts": (
        edited("ends_at: 2027-03-01T00:00:00Z", "ends_at: 2026-12-01T00:00:00Z"),
        "phases[0].ends_at: 2026-12-01T00:00:00+00:00 is not after starts_at",
    ),
    "overlapping phases": (
        edited("starts_at: 2027-03-01T00:00:00Z", "starts_at: 2027-02-01T00:00:00Z"),
        "phases[1].starts_at: 2027-02-01T00:00:00+00:00 overlaps phases[0], which ends at 2027-03-01T00:00:00+00:00",
    ),
    "open-ended phase before another": (
        edited("    ends_at: 2027-03-01T00:00:00Z\n", ""),
        "phases[0].ends_at: is required: only the last phase of a task may be open-ended",
    ),
    "unknown task": (edited("task: mudi", "task: mudii"), 'phases[0].task: "mudii" is not a task; valid tasks: mudi,'),
    "bad split": (
        edited("split: {fraction: 0.5, seed: 2027}", "split: {fraction: 1.5, seed: 2027}"),
        "phases[0].split: The public fraction must be between 0 and 1",
    ),
    "wrong type": (
        edited("daily_limit: 10", "daily_limit: five"),
        'phases[0].daily_limit: "five" is not a whole number',
    ),
    "unknown registration mode": (
        edited("registration: approval", "registration: invite"),
        'challenge.registration: "invite" is not one of open, approval, domains',
    ),
    "domains without a domain": (
        edited("registration: approval", "registration: domains"),
        "challenge.allowed_domains: registration is domains, so name at least one e-mail domain",
    ),
    "unsupported version": (edited("version: 1", "version: 2"), "version: 2 is not a supported version"),
    "duplicate phase slug": (edited("slug: test", "slug: development"), 'phases[1].slug: "development" is already'),
    "bad slug": (edited(f"slug: {SLUG}", "slug: MUDI 2027"), 'challenge.slug: "MUDI 2027" is not a slug'),
    "truth not in the bundle": (
        edited("truth: truth/development.csv", "truth: truth/nope.csv"),
        'phases[0].truth: "truth/nope.csv" is not in the bundle',
    ),
    "truth failing validation": (
        {
            **example_files(),
            "truth/development.csv": (EXAMPLE / "truth" / "development.csv")
            .read_bytes()
            .replace(b"Antagonism", b"Friendship", 1),
        },
        'phases[0].truth ("truth/development.csv"): Line 3, column "Interaction": "Friendship" is not a MUDI class',
    ),
    "usage column value": (
        {
            **example_files(),
            "truth/test.csv": (EXAMPLE / "truth" / "test.csv").read_bytes().replace(b"public", b"secret", 1),
        },
        'phases[1].truth ("truth/test.csv"): Line 2, column "Usage": "secret" is not a usage',
    ),
    "zip slip": ({**example_files(), "../evil.csv": b"x"}, 'zip entry "../evil.csv": ".." in a path is not allowed'),
    "absolute path": ({**example_files(), "/tmp/evil.csv": b"x"}, 'zip entry "/tmp/evil.csv": absolute paths'),
    "no definition": ({"truth/test.csv": b"x"}, "the bundle has no challenge.yaml at its top level"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_bundle_gives_its_specific_message_and_creates_nothing(tmp_path, nothing_created, case):
    files, message = MALFORMED[case]
    with pytest.raises(CommandError) as error:
        call_command("import_challenge", str(write_bundle(tmp_path, files)))
    assert message in str(error.value)
    assert nothing_created()


def test_a_bundle_with_a_link_is_refused(tmp_path, nothing_created):
    with pytest.raises(CommandError, match='zip entry "truth/link.csv": links are not allowed'):
        call_command("import_challenge", str(write_bundle(tmp_path, example_files(), links=("truth/link.csv",))))
    assert nothing_created()


def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path, monkeypatch, nothing_created):
    monkeypatch.setattr(bundles, "MAX_BUNDLE_BYTES", 1024 * 1024)
    files = {**example_files(), "padding.bin": bytes(20 * 1024 * 1024)}  # 20 MB of zeros, ~20 KB compressed
    path = write_bundle(tmp_path, files)
    assert path.stat().st_size < 100_000
    with pytest.raises(CommandError, match="the bundle unpacks to 20,97.* bytes; the limit is 1,048,576"):
        call_command("import_challenge", str(path))
    assert nothing_created()


def test_a_file_that_is_not_a_zip_is_refused(db, tmp_path):
    path = tmp_path / "bundle.zip"
    path.write_text("version: 1\n")
    with pytest.raises(CommandError, match="is not a readable .zip file"):
        call_command("import_challenge", str(path))


@pytest.mark.storage
def test_an_existing_slug_is_refused_and_another_slug_copies_the_challenge(db, tmp_path):
    path = write_bundle(tmp_path)
    call_command("import_challenge", str(path))
    with pytest.raises(CommandError, match=f'challenge.slug: "{SLUG}" already exists on this site'):
        call_command("import_challenge", str(path))
    call_command("import_challenge", str(path), "--slug", "mudi-copy")
    assert Challenge.objects.get(slug="mudi-copy").phases.count() == 2


def test_an_unknown_organizer_is_refused(db, tmp_path):
    files = edited("  published: false", "  published: false\n  organizers: [alice, nobody]")
    with pytest.raises(CommandError, match=r'challenge.organizers\[1\]: "nobody" is not a user of this site'):
        call_command("import_challenge", str(write_bundle(tmp_path, files)))


def test_every_problem_is_reported_at_once(db, tmp_path):
    files = edited("task: mudi", "task: mudii")
    files["challenge.yaml"] = files["challenge.yaml"].replace(b"daily_limit: 5", b"daily_limit: -1")
    with pytest.raises(CommandError) as error:
        call_command("import_challenge", str(write_bundle(tmp_path, files)))
    assert "invalid bundle (2 problem(s))" in str(error.value)
    assert 'phases[0].task: "mudii"' in str(error.value) and "phases[1].daily_limit: -1" in str(error.value)


@pytest.mark.storage
def test_a_failure_while_creating_leaves_no_rows_and_no_stored_truth(tmp_path, monkeypatch, nothing_created):
    from leaderboard.challenges import services

    real = services.import_truth
    calls = []

    def second_fails(phase, *args, **kwargs):
        calls.append(phase.slug)
        if len(calls) == 2:
            raise OSError("disk full")
        return real(phase, *args, **kwargs)

    monkeypatch.setattr(bundles, "import_truth", second_fails)
    with pytest.raises(OSError, match="disk full"):
        bundles.import_bundle(write_bundle(tmp_path).open("rb"))
    assert calls == ["development", "test"]
    assert nothing_created()


def test_phases_of_different_tasks_may_overlap_in_a_bundle_and_of_one_task_may_not():
    from leaderboard.challenges.bundle_schema import BundleError, parse_definition

    def definition(second_task: str) -> dict:
        return {
            "version": 1,
            "challenge": {"slug": "two-tracks", "title": "Two tracks"},
            "phases": [
                {"slug": "pairs", "title": "Pairs", "task": "mudi", "starts_at": "2027-01-01", "ends_at": "2027-03-01"},
                {"slug": "cells", "title": "Cells", "task": second_task, "starts_at": "2027-02-01"},
            ],
        }

    parsed = parse_definition(definition("chemicalx-drugcomb"))
    assert [p.task for p in parsed.phases] == ["mudi", "chemicalx-drugcomb"]
    with pytest.raises(BundleError, match=r"phases\[1\].starts_at: .* overlaps phases\[0\].* scores the same task"):
        parse_definition(definition("mudi"))
