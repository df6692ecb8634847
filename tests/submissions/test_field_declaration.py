"""Every surface of a submission's method fields follows their one declaration (scoring.submission_fields).

Each test walks ``FIELDS``, so a declared field that a surface lacks fails here. The
toy-field tests at the end declare a field that exists nowhere else and check that each
surface's derivation picks it up: adding a field is that declaration plus a model column.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
import yaml
from click.testing import CliRunner
from ddi_leaderboard import Client, cli
from django.db import models

from leaderboard.api import schemas
from leaderboard.boards import exports, spec
from leaderboard.boards.models import carried_fields, metadata_fields, row_metadata
from leaderboard.submissions import summary
from leaderboard.submissions.forms import method_form_fields
from leaderboard.submissions.models import Submission
from scoring import submission_fields
from scoring.submission_fields import FIELDS, BoardFilter, SubmissionField, choices
from tests.api.conftest import make_token  # noqa: F401 (a fixture)
from tests.api.helpers import bearer
from tests.boards.conftest import mudi_metrics, phase_for, scored, standing  # noqa: F401 (standing: a fixture)
from tests.conftest import REPO
from tests.submissions.helpers import as_post_file, mudi_prediction_csv, post_data

# Submission columns that are the platform's, not something a submitter says about the method.
PLATFORM_COLUMNS = {
    "id", "phase", "team", "user", "file", "file_name", "file_size", "sha256", "declarations", "is_baseline",
    "is_verified", "verification_note", "verification_url", "verified_at", "status", "error_kind", "error_message",
    "attempts", "claim_token", "task_id", "worker_host", "scorer_version", "truth_version", "created_at",
    "queued_at", "enqueued_at", "started_at", "finished_at", "primary_value", "report", "private_primary_value",
    "private_report", "selected_final", "final_by", "is_hidden", "hidden_reason", "notify_result", "scoring_queue",
}  # fmt: skip

MODEL_FIELD = {
    "text": models.CharField, "markdown": models.TextField, "url": models.URLField,
    "count": models.BigIntegerField, "flag": models.BooleanField,
}  # fmt: skip


def sample(f: SubmissionField) -> str:
    """A valid wire value for ``f`` that is not its default, so a round trip proves the value travelled."""
    if f.kind == "flag":
        return submission_fields.YES if f.default == submission_fields.NO else submission_fields.NO
    if f.kind == "choice":
        return next(v for v in reversed(f.values) if v != f.default)
    if f.kind == "count":
        return "1234567"
    if f.kind == "url":
        return f"https://example.org/{f.name}"
    if f.kind == "markdown":
        return f"The *{f.label}*."
    return f"{f.label} sample"[: f.max_length]


def expected(f: SubmissionField):
    """What an API response and an export show for ``sample(f)``."""
    return submission_fields.shown_value(f, submission_fields.stored_value(f, sample(f)))


def model_mismatches(fields) -> list[str]:
    """How the Submission model's columns differ from ``fields`` (empty: they agree)."""
    problems = []
    declared = {f.column_name for f in fields}
    for column in {f.name for f in Submission._meta.concrete_fields} - declared - PLATFORM_COLUMNS:
        problems.append(f"column {column} is neither a declared field nor a platform column")
    for f in fields:
        try:
            column = Submission._meta.get_field(f.column_name)
        except Exception:
            problems.append(f"{f.name}: no column {f.column_name}")
            continue
        wanted = models.BooleanField if f.stored_true else MODEL_FIELD.get(f.kind, models.CharField)
        if type(column) is not wanted:
            problems.append(f"{f.name}: {type(column).__name__}, not {wanted.__name__}")
        if f.kind in ("text", "url") and column.max_length != (f.max_length or submission_fields.URL_MAX_LENGTH):
            problems.append(f"{f.name}: max_length {column.max_length}, declared {f.max_length}")
        if f.kind == "choice" and not f.stored_true and list(column.choices or []) != f.choice_pairs:
            problems.append(f"{f.name}: choices differ")
        if f.kind == "choice" and not f.stored_true and column.max_length < max(map(len, f.values)):
            problems.append(f"{f.name}: a choice is longer than the column")
        optional = column.blank or column.null or column.has_default()
        if not f.required and not optional:
            problems.append(f"{f.name}: optional, but the column needs a value")
    return problems


def test_the_model_columns_are_the_declared_fields():
    assert model_mismatches(FIELDS) == []


@pytest.mark.storage
def test_the_submit_page_asks_every_field_and_stores_it(client, alice, mudi_phase, sent):
    client.force_login(alice)
    page = client.get("/tasks/mudi/submit/").content.decode()
    for f in FIELDS:
        assert f'name="{f.name}"' in page, f.name
    data = post_data(alice.personal_team, **{f.name: sample(f) for f in FIELDS})
    data["file"] = as_post_file(mudi_prediction_csv())
    assert client.post("/tasks/mudi/submit/", data).status_code == 302
    submission = Submission.objects.get()
    for f in FIELDS:
        assert getattr(submission, f.column_name) == submission_fields.stored_value(f, sample(f)), f.name


@pytest.mark.storage
def test_the_submission_page_shows_every_method_field(client, alice, mudi_phase, sent):
    client.force_login(alice)
    data = post_data(alice.personal_team, **{f.name: sample(f) for f in FIELDS})
    data["file"] = as_post_file(mudi_prediction_csv())
    client.post("/tasks/mudi/submit/", data)
    page = client.get(f"/submissions/{Submission.objects.get().pk}/").content.decode()
    for f in FIELDS:
        if f.name == summary.TITLE_FIELD:
            assert f"<h1>{sample(f)}" in page
        elif f.kind == "markdown":
            assert f"<em>{f.label}</em>" in page, f.name
        elif not f.describes_method:
            continue  # visibility: beside the date
        else:
            assert f"<dt>{f.label}</dt>" in page, f.name
            assert f'id="{f.name.replace("_", "-")}"' in page, f.name


@pytest.mark.storage
def test_a_resubmission_starts_from_the_remembered_fields(client, alice, mudi_phase, sent):
    client.force_login(alice)
    data = post_data(alice.personal_team, **{f.name: sample(f) for f in FIELDS})
    data["file"] = as_post_file(mudi_prediction_csv())
    client.post("/tasks/mudi/submit/", data)
    form = client.get("/tasks/mudi/submit/").context["form"]
    for f in FIELDS:
        shown = form[f.name].value()
        assert (str(shown) == sample(f)) is f.remembered, (f.name, shown)


@pytest.mark.storage
def test_the_api_takes_and_returns_every_field(client, alice, make_token, mudi_phase, sent):  # noqa: F811
    data = {f.name: sample(f) for f in FIELDS}
    data.update(modalities=["graph"], file=as_post_file(mudi_prediction_csv()))
    response = client.post("/api/v1/tasks/mudi/submissions", data, **bearer(make_token(alice)))
    assert response.status_code == 202, response.json()
    body = response.json()
    for f in FIELDS:
        assert body[f.name] == expected(f), f.name
    again = client.get(body["links"]["self"], **bearer(make_token(alice, "read"))).json()
    assert {f.name: again[f.name] for f in FIELDS} == {f.name: body[f.name] for f in FIELDS}


@pytest.mark.storage
def test_a_field_an_api_upload_leaves_out_takes_its_default(client, alice, make_token, mudi_phase, sent):  # noqa: F811
    """Not said: empty, or the declared default of a flag or a choice that has one."""
    data = {"method_name": "Bare", "modalities": ["graph"], "file": as_post_file(mudi_prediction_csv())}
    body = client.post("/api/v1/tasks/mudi/submissions", data, **bearer(make_token(alice))).json()
    for f in FIELDS:
        if not f.required:
            wire = f.default or ""
            assert body[f.name] == submission_fields.shown_value(f, submission_fields.stored_value(f, wire)), f.name


def enum_values(schemas: dict, prop: dict) -> set[str]:
    """The values an OpenAPI property allows, following drf-spectacular's enum components."""
    values = set(prop.get("enum", ()))
    for ref in prop.get("oneOf", []) + prop.get("allOf", []):
        values |= set(schemas[ref["$ref"].rsplit("/", 1)[-1]].get("enum", ()))
    return values


def test_the_openapi_schema_describes_every_field(client, db):
    schemas = yaml.safe_load(client.get("/api/v1/schema/").content)["components"]["schemas"]
    create, shown = schemas["SubmissionCreateRequest"], schemas["Submission"]["properties"]
    for f in FIELDS:
        assert f.name in create["properties"] and f.name in shown, f.name
        if f.kind in ("choice", "flag"):
            assert set(f.values) <= enum_values(schemas, create["properties"][f.name]), f.name
    assert create["required"] == ["file", *(f.name for f in FIELDS if f.required)]


class Recorder(httpx.BaseTransport):
    """A server stand-in: the inputs file for offline validation, and the upload's multipart body."""

    def __init__(self) -> None:
        self.body = b""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/inputs.csv"):
            return httpx.Response(200, content=b"Drug1,Drug2\n" + _inputs())
        if request.url.path.endswith("/preflight"):
            return httpx.Response(200, json={"accepts": True})
        self.body = request.read()
        return httpx.Response(202, json={"id": "0b9e", "status": "queued", "url": "http://testserver/s/0b9e/"})

    def sent(self) -> dict[str, list[str]]:
        """The multipart fields the client sent, by name."""
        out: dict[str, list[str]] = {}
        for name, value in re.findall(rb'name="([^"]+)"\r\n\r\n(.*?)\r\n--', self.body, re.S):
            out.setdefault(name.decode(), []).append(value.decode())
        return out


def _inputs() -> bytes:
    rows = mudi_prediction_csv().decode().splitlines()[1:]
    return "".join(f"{a},{b}\n" for a, _, b in (row.split(",") for row in rows)).encode()


def keyword_value(f: SubmissionField):
    """``sample(f)`` as ``Client.submit`` takes it."""
    if f.switch_to:
        return sample(f) == f.switch_to
    if f.kind == "flag":
        return sample(f) == submission_fields.YES
    return int(sample(f)) if f.kind == "count" else sample(f)


def test_client_submit_sends_every_field(tmp_path):
    recorder = Recorder()
    path = tmp_path / "predictions.csv"
    path.write_bytes(mudi_prediction_csv())
    client = Client("http://localhost", "ddi_x", transport=recorder)
    fields = {f.keyword_name: keyword_value(f) for f in FIELDS}
    client.submit("mudi", path, inputs=_write_inputs(tmp_path), declarations={"modalities": "graph"}, **fields)
    sent = {name: values[0] for name, values in recorder.sent().items()}
    assert sent == {**{f.name: sample(f) for f in FIELDS}, "modalities": "graph"}


def _write_inputs(tmp_path: Path) -> Path:
    path = tmp_path / "inputs.csv"
    path.write_bytes(b"Drug1,Drug2\n" + _inputs())
    return path


def test_client_submit_names_every_field_in_its_signature_and_refuses_unknown_ones(tmp_path):
    import inspect

    parameters = inspect.signature(Client.submit).parameters
    for f in FIELDS:
        assert f.keyword_name in parameters, f.name
        assert (parameters[f.keyword_name].default is inspect.Parameter.empty) is f.required
    client = Client("http://localhost", "ddi_x", transport=Recorder())
    with pytest.raises(TypeError, match="model_familly"):
        client.submit("mudi", tmp_path / "p.csv", method="x", model_familly="gnn")
    with pytest.raises(TypeError, match="'method'"):
        client.submit("mudi", tmp_path / "p.csv")


def command_line(f: SubmissionField, tmp_path: Path) -> list[str]:
    """``sample(f)`` as ``ddi-leaderboard submit`` takes it."""
    value = keyword_value(f)
    if isinstance(value, bool):
        return [f.option_name] if value else []
    if f.kind == "markdown":
        text = tmp_path / f"{f.name}.md"
        text.write_text(sample(f))
        return [f.option_name, str(text)]
    return [f.option_name, str(value)]


def test_the_submit_command_sends_every_field(tmp_path, monkeypatch):
    recorder = Recorder()
    path = tmp_path / "predictions.csv"
    path.write_bytes(mudi_prediction_csv())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(cli, "Client", lambda url, token: Client(url, token, transport=recorder))
    args = ["--url", "http://localhost", "--token", "ddi_x", "submit", "mudi", str(path)]
    args += ["--declare", "modalities=graph"]
    for f in FIELDS:
        args += command_line(f, tmp_path)
    result = CliRunner().invoke(cli.cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    sent = {name: values[0] for name, values in recorder.sent().items()}
    for f in FIELDS:
        if f.kind == "flag" or f.switch_to or sample(f) != f.default:
            assert sent[f.name] == sample(f), f.name


def test_the_submit_command_lists_every_field_and_checks_choices(tmp_path):
    runner = CliRunner()
    help_text = runner.invoke(cli.cli, ["submit", "--help"], terminal_width=200).output
    for f in FIELDS:
        assert f.option_name in help_text, f.name
    options = [opt for p in cli.submit.params for opt in p.opts]
    assert len(options) == len(set(options))
    path = tmp_path / "p.csv"
    path.write_bytes(b"x\n")
    wrong = runner.invoke(cli.cli, ["--token", "t", "submit", "mudi", str(path), "--method", "x", "--model-family",
                                    "quantum"])  # fmt: skip
    assert wrong.exit_code == 2 and "quantum" in wrong.output


def csv_text(value) -> str:
    """How the CSV export writes a shown value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


@pytest.mark.storage
def test_the_exports_carry_every_exported_field(client, standing, alice_lab):  # noqa: F811
    columns = {f.column_name: submission_fields.stored_value(f, sample(f)) for f in FIELDS}
    columns["is_public"] = True  # on the public board
    method = columns.pop("method_name")
    scored(phase_for("mudi"), alice_lab, method, mudi_metrics(0.7), **columns)
    columns["method_name"] = method
    row = next(csv.DictReader(io.StringIO(client.get("/tasks/mudi/leaderboard.csv").getvalue().decode())))
    document = json.loads(client.get("/tasks/mudi/leaderboard.json").getvalue())
    for f in FIELDS:
        if f.export is None:
            assert f.name not in document["columns"]
            continue
        shown = submission_fields.shown_value(f, columns[f.column_name])
        assert f.export in document["columns"], f.name
        assert document["rows"][0][f.export] == shown, f.name
        assert row[f.export] == csv_text(shown), f.name


@pytest.mark.storage
def test_boards_filter_on_every_filtered_field(client, standing, alice_lab, charlie):  # noqa: F811
    phase = phase_for("mudi")
    said = {f.column_name: submission_fields.stored_value(f, sample(f)) for f in FIELDS if f.board_filter}
    scored(phase, alice_lab, "Said", mudi_metrics(0.7), **said)
    scored(phase, charlie.personal_team, "Unsaid", mudi_metrics(0.6), minutes=1)
    for f in FIELDS:
        if f.board_filter is None:
            continue
        body = client.get(f"/tasks/mudi/leaderboard.csv?{f.board_filter.param}={sample(f)}").getvalue().decode()
        assert [r["method"] for r in csv.DictReader(io.StringIO(body))] == ["Said"], f.name
        page = client.get("/tasks/mudi/").content.decode()
        assert f'name="{f.board_filter.param}"' in page, f.name


def test_no_field_takes_a_name_its_surfaces_use_for_something_else():
    import scoring

    declaration_keys = {d.key for task in scoring.TASKS.values() for d in task.declarations}
    upload = {"file", "staged_file", "team", *declaration_keys, *(f"declare_{k}" for k in declaration_keys)}
    assert not upload & {f.name for f in FIELDS}
    board = {"direction", "sort", "private", "cols", "published", "page", "baseline", "verified", *declaration_keys}
    assert not board & {f.board_filter.param for f in FIELDS if f.board_filter}
    platform = set(exports.PLACE_COLUMNS + exports.ENTRY_COLUMNS)
    assert not platform & {f.export for f in FIELDS if f.export}


def test_the_docs_table_is_the_declaration():
    doc = (REPO / "docs" / "submissions.md").read_text()
    assert submission_fields.updated_docs(doc) == doc, (
        "docs/submissions.md is stale: run python -m scoring fields --update docs/submissions.md"
    )


# --- a toy field: each surface's derivation picks a new declaration up ------------------------------

TOY = SubmissionField(
    "licence", "choice", "Licence", "The licence of the code.",
    choices=choices(("mit", "MIT"), ("gpl", "GPL")),
    export="licence", board_filter=BoardFilter("licence", "Licence", "The code's licence."),
)  # fmt: skip
TOY_COUNT = SubmissionField("gpu_hours", "count", "GPU hours", export="gpu_hours", option="--gpu-hours")
WITH_TOYS = (*FIELDS, TOY, TOY_COUNT)


def test_a_toy_field_lacks_only_its_model_column():
    assert model_mismatches(WITH_TOYS) == ["licence: no column licence", "gpu_hours: no column gpu_hours"]


def test_a_toy_field_is_on_the_form_and_the_api():
    form = method_form_fields(WITH_TOYS)
    assert form["licence"].choices == [("", "not said"), ("mit", "MIT"), ("gpl", "GPL")]
    assert form["gpu_hours"].min_value == 0
    assert list(schemas.request_fields(WITH_TOYS)["licence"].choices) == ["mit", "gpl"]
    assert schemas.response_fields(WITH_TOYS)["gpu_hours"].allow_null


def test_a_toy_field_is_a_client_option_and_keyword():
    command = cli.field_options(WITH_TOYS)(lambda **kwargs: kwargs)
    options = {opt: param for param in command.__click_params__ for opt in param.opts}
    assert list(options["--licence"].type.choices) == ["mit", "gpl"]
    assert options["--gpu-hours"].name == "gpu_hours"
    body = submission_fields.request_fields({"method": "x", "licence": "gpl", "gpu_hours": 12}, WITH_TOYS)
    assert body["licence"] == "gpl" and body["gpu_hours"] == "12"


def test_a_toy_field_is_exported_and_filtered_on_the_boards():
    assert ("licence", TOY) in exports.field_columns(WITH_TOYS)
    assert TOY in carried_fields(WITH_TOYS) and TOY in metadata_fields(WITH_TOYS)
    metadata = row_metadata({"licence": "mit", "gpu_hours": 12}, WITH_TOYS)
    assert metadata["licence"] == "mit" and metadata["gpu_hours"] == 12
    row = {"method_name": "x", "is_public": True, "metadata": metadata}
    values = exports._field_values(row, WITH_TOYS)
    assert values["licence"] == "mit" and values["gpu_hours"] == 12 and values["model_family"] == ""
    assert exports._field_values({"metadata": {}}, WITH_TOYS)["gpu_hours"] is None  # a row built before it
    (toy_filter,) = [f for f in spec.field_filters(WITH_TOYS) if f.param == "licence"]
    assert toy_filter.choices == ("mit", "gpl") and toy_filter.single
    assert "licence=gpl" in spec.field_tags({"licence": "gpl"}, WITH_TOYS)
    assert "licence=unknown" in spec.field_tags({}, WITH_TOYS)


def test_a_toy_field_is_on_the_submission_page_and_in_the_docs_table():
    submission = SimpleNamespace(**{f.column_name: None for f in FIELDS}, licence="gpl", gpu_hours=1500)
    facts = {fact["label"]: fact["text"] for fact in summary.method_facts(submission, WITH_TOYS)["facts"]}
    assert facts["Licence"] == "GPL" and facts["GPU hours"] == "1,500"
    table = submission_fields.markdown_table(WITH_TOYS)
    assert "| `licence` | Licence: The licence of the code. | `mit` (MIT), `gpl` (GPL); empty: not said |" in table
    assert "`--gpu-hours` · `gpu_hours=`" in table


def test_a_field_that_takes_another_fields_name_is_refused():
    with pytest.raises(ValueError, match="share the option '--private'"):
        submission_fields._check_unique((*FIELDS, SubmissionField("secret", "flag", "Secret", default="no",
                                                                  option="--private")))  # fmt: skip
    with pytest.raises(ValueError, match="choices go with"):
        SubmissionField("odd", "text", "Odd", max_length=5, choices=choices(("a", "A")))
