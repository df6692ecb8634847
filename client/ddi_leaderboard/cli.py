"""``ddi-leaderboard``: log in, list tasks, download inputs, validate offline, submit and wait, read boards.

Exit status: 0 ok, 2 invalid input (a bad file or argument), 3 authentication,
4 quota or rate limit, 5 server or network. Errors are sentences, never tracebacks.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import click
from tqdm import tqdm

from ddi_leaderboard import config
from ddi_leaderboard.client import Client
from ddi_leaderboard.errors import EXIT_INVALID, EXIT_OK, EXIT_SERVER, AuthError, ClientError, InvalidSubmission
from scoring import submission_fields

EPILOG = "Exit status: 0 ok, 2 invalid input, 3 authentication, 4 quota or rate limit, 5 server or network."


def _client(ctx: click.Context) -> Client:
    return Client(ctx.obj["url"], ctx.obj["token"])


def _print_problems(error: InvalidSubmission) -> None:
    click.echo(str(error), err=True)
    for problem in error.errors:
        where = []
        if problem.get("line") is not None:
            where.append(f"line {problem['line']}")
        if problem.get("column"):
            where.append(f"column {problem['column']}")
        prefix = f"  [{', '.join(where)}] " if where else "  "
        click.echo(prefix + problem["message"], err=True)
    hidden = error.error_count - len(error.errors)
    if hidden > 0:
        click.echo(f"  ... and {hidden} more problem{'s' if hidden != 1 else ''}.", err=True)


@click.group(epilog=EPILOG)
@click.option(
    "--url", envvar=config.URL_VARIABLE, help=f"server URL (default: saved by login, or {config.DEFAULT_URL})"
)
@click.option("--token", envvar=config.TOKEN_VARIABLE, help="API token (default: saved by login)")
@click.pass_context
def cli(ctx: click.Context, url: str | None, token: str | None) -> None:
    """Submit to and read the DDI Leaderboard."""
    ctx.obj = {"url": url, "token": token}


@cli.command()
@click.option("--token", "new_token", prompt="API token (from your profile page)", hide_input=True)
@click.pass_context
def login(ctx: click.Context, new_token: str) -> None:
    """Check a token against the server and save it (0600) in your config folder."""
    client = Client(ctx.obj["url"], new_token.strip())
    client.submissions()  # raises AuthError for a bad token
    path = config.save(client.url, client.token)
    click.echo(f"Logged in to {client.url}; the token is saved in {path}.")


@cli.command()
@click.pass_context
def tasks(ctx: click.Context) -> None:
    """List the tasks."""
    rows = [("slug", "family", "split", "primary metric")]
    rows += [(t["slug"], t["family"], t["split"], t["primary_metric"]) for t in _client(ctx).tasks()]
    _table(rows)


@cli.command()
@click.argument("task")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.pass_context
def inputs(ctx: click.Context, task: str, output: Path) -> None:
    """Download the task's test inputs (the keys to predict)."""
    output.write_bytes(_client(ctx).inputs(task))
    click.echo(f"Wrote the test inputs of {task} to {output}.")


@cli.command()
@click.argument("task")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.pass_context
def example(ctx: click.Context, task: str, output: Path) -> None:
    """Download a valid example prediction file."""
    output.write_bytes(_client(ctx).example(task))
    click.echo(f"Wrote an example prediction file for {task} to {output}.")


@cli.command()
@click.argument("task")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--inputs", "inputs_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="the task's inputs file (default: downloaded from the server once and cached)")  # fmt: skip
@click.pass_context
def validate(ctx: click.Context, task: str, file: Path, inputs_path: Path | None) -> None:
    """Check a prediction file offline with the server's own checks (no token needed)."""
    n_rows = _client(ctx).validate(task, file, inputs=inputs_path)
    click.echo(f"Valid: {n_rows:,} rows for {task}.")


def _declarations(values: tuple[str, ...]) -> dict:
    out: dict[str, list[str]] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="--declare")
        out.setdefault(key.strip(), []).extend(v.strip() for v in value.split(",") if v.strip())
    return out


def field_option(f: submission_fields.SubmissionField) -> Callable:
    """The ``submit`` option of a declared method field, passing its value as ``Client.submit``'s keyword."""
    name, help_text = f.keyword_name, f.describe()
    if f.switch_to:  # an on/off switch picking one value of a two-way choice
        return click.option(f.option_name, name, is_flag=True, help=f.label_of(f.switch_to))
    if f.kind == "flag":
        return click.option(f.option_name, name, is_flag=True, help=help_text)
    if f.kind == "markdown":  # long text: read from a file
        file_type = click.Path(exists=True, dir_okay=False, path_type=Path)
        help_text = f"Read from a file. {help_text}"
        return click.option(f.option_name, name, type=file_type, callback=_read_text, help=help_text)
    if f.kind == "choice":
        return click.option(f.option_name, name, type=click.Choice(f.values), required=f.required, help=help_text)
    if f.kind == "count":
        return click.option(f.option_name, name, type=click.IntRange(min=0), required=f.required, help=help_text)
    return click.option(f.option_name, name, required=f.required, help=help_text)


def _read_text(ctx: click.Context, param: click.Parameter, path: Path | None) -> str | None:
    return None if path is None else path.read_text()


def field_options(fields=submission_fields.FIELDS) -> Callable:
    """Decorate a command with one option per declared method field, in declaration order."""

    def decorate(command: Callable) -> Callable:
        for f in reversed(tuple(fields)):
            command = field_option(f)(command)
        return command

    return decorate


@cli.command()
@click.argument("task")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@field_options()
@click.option("--team", help="team slug (default: your personal team)")
@click.option("--declare", multiple=True, metavar="KEY=VALUE[,VALUE]", help="a task declaration, e.g. modalities=graph")
@click.option("--wait", is_flag=True, help="wait until scored; print the primary metric and the rank")
@click.pass_context
def submit(ctx, task, file, team, declare, wait, **fields) -> None:
    """Validate offline, upload (never an invalid file), and optionally wait for the score."""
    client = _client(ctx)
    if not client.token:
        raise AuthError("Submitting needs a token: run 'ddi-leaderboard login' or set DDI_LEADERBOARD_TOKEN.")
    n_rows = client.validate(task, file)
    click.echo(f"Valid: {n_rows:,} rows. Uploading {file.name} ...", err=True)
    with tqdm(total=file.stat().st_size, unit="B", unit_scale=True, desc="upload", file=sys.stderr) as bar:
        submission = client.submit(
            task, file, team=team, declarations=_declarations(declare), validate=False, progress=bar.update, **fields
        )
    click.echo(f"Submitted {submission['id']} ({submission['status']}): {submission['url']}")
    if not wait:
        return
    final = client.wait(submission["id"], on_update=lambda s: None)
    _report(client, final, just_scored=True)
    if final["status"] == "failed":
        ctx.exit(EXIT_INVALID if final.get("error_kind") == "invalid" else 5)


def _report(client: Client, status: dict, *, just_scored: bool = False) -> None:
    if status["status"] == "scored":
        primary = status["primary"]
        value = "not computed" if primary["value"] is None else repr(primary["value"])
        click.echo(f"Scored: {primary['key']} = {value}")
        # Just scored: the board takes it in a moment later, so wait briefly for its rank.
        finder = client.wait_for_rank if just_scored else client.rank_of
        rank = finder(status["task"], status["id"])
        click.echo(f"Rank: {rank if rank is not None else 'unranked'} on {status['task']}")
    elif status["status"] == "failed":
        click.echo(f"Failed: {status.get('error') or 'no reason given'}", err=True)
        for problem in status.get("problems", []):
            click.echo(f"  {problem['message']}", err=True)
    else:
        position = status.get("queue_position")
        click.echo(f"Status: {status['status']}" + (f" (position {position} in the queue)" if position else ""))


@cli.command()
@click.argument("submission_id")
@click.pass_context
def status(ctx: click.Context, submission_id: str) -> None:
    """Show a submission's status and primary metric."""
    client = _client(ctx)
    current = client.status(submission_id)
    click.echo(f"{current['id']}  {current['task']}  {current['method_name']}  {current['team']}")
    _report(client, current)


@cli.command()
@click.option("--task", help="only this task")
@click.pass_context
def submissions(ctx: click.Context, task: str | None) -> None:
    """List your teams' submissions, newest first."""
    rows = [("id", "task", "method", "team", "status", "primary")]
    for s in _client(ctx).submissions(task=task):
        value = s["primary_value"]
        rows.append(
            (s["id"], s["task"], s["method_name"], s["team"], s["status"], "" if value is None else f"{value:.4f}")
        )
    _table(rows)


@cli.command()
@click.argument("task")
@click.option("--direction", type=click.Choice(["aware", "agnostic"]), help="MUDI: which view")
@click.option("--private", is_flag=True, help="add your teams' private rows")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table")
@click.pass_context
def leaderboard(ctx: click.Context, task: str, direction: str | None, private: bool, fmt: str) -> None:
    """Print a task's leaderboard: the CSV export's columns and ranks."""
    client = _client(ctx)
    options = {k: v for k, v in {"direction": direction, "private": "1" if private else None}.items() if v}
    if fmt == "csv":
        click.echo(client.leaderboard_csv(task, **options), nl=False)
        return
    rows = client.leaderboard(task, **options)
    if fmt == "json":
        click.echo(json.dumps(rows, indent=1))
        return
    if not rows:
        click.echo(f"No entries on {task} yet.")
        return
    detail = client.task(task)
    metric = detail["primary_metric"]
    if direction == "agnostic":
        metric = metric.replace("aware/", "agnostic/", 1)
    table = [("rank", "method", "team", metric)]
    for row in rows:
        value = row.get(metric)
        rank = "" if row["rank"] is None else str(row["rank"])
        table.append((rank, row["method"], row["team"], "—" if value is None else f"{value:.4f}"))
    _table(table)


@cli.group()
def truth() -> None:
    """Organizers: a phase's hidden truth file."""


@truth.command("upload")
@click.argument("challenge")
@click.argument("phase")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--groups",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="ImDrug classification: a class,group file; the truth is stored with a group column filled from it.",
)
@click.pass_context
def truth_upload(ctx: click.Context, challenge: str, phase: str, file: Path, groups: Path | None) -> None:
    """Upload or replace PHASE's truth file (needs an 'organize' token); the server validates it first."""
    client = _client(ctx)
    if not client.token:
        raise AuthError("Uploading truth needs an 'organize' token: run 'ddi-leaderboard login'.")
    body = client.upload_truth(challenge, phase, file, groups=groups)
    if not body["changed"]:
        click.echo(f"Unchanged: {file.name} already is the truth of {challenge}/{phase} ({body['sha256'][:12]}).")
        return
    click.echo(f"Stored the truth of {challenge}/{phase}: {body['rows']:,} rows, sha256 {body['sha256'][:12]}.")
    if body["rescoring"]:
        click.echo(f"Re-scoring the phase's {body['rescoring']} submissions against it.")


# --- organizers: moderation ---------------------------------------------------------------------------


@cli.command()
@click.argument("challenge")
@click.option("--phase", help="the phase whose submissions to re-run")
@click.option("--failed", "which", flag_value="failed", default=True, help="the phase's failed submissions (default)")
@click.option("--all", "which", flag_value="all", help="every finished submission of the phase")
@click.option("--submission", help="re-run this one submission instead")
@click.option("--reason", default="", help="recorded in the audit log")
@click.pass_context
def rerun(ctx: click.Context, challenge: str, phase: str | None, which: str, submission: str | None, reason: str):
    """Re-run a phase's failed (or all) submissions, or one submission (organizers)."""
    if bool(phase) == bool(submission):
        raise click.UsageError("Give either --phase (with --failed or --all) or --submission.")
    done = _client(ctx).rerun(challenge, phase=phase, which=which, submission=submission, reason=reason)
    click.echo(done["detail"])


@cli.command()
@click.argument("challenge")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.pass_context
def export(ctx: click.Context, challenge: str, output: Path) -> None:
    """Download every submission with its public, private and all-row scores as CSV (organizers)."""
    written = _client(ctx).export_scores(challenge, output)
    click.echo(f"Wrote the scores of {challenge} to {output} ({written:,} bytes).")


@cli.command()
@click.argument("submission_id")
@click.argument("action", type=click.Choice(["hide", "unhide", "baseline", "unbaseline", "verify", "unverify"]))
@click.option("--reason", default="", help="required to hide; the team sees it")
@click.option("--note", default="", help="verify: how the result was reproduced")
@click.option("--url", "link", default="", help="verify: a link to the reproduction")
@click.pass_context
def moderate(ctx: click.Context, submission_id: str, action: str, reason: str, note: str, link: str) -> None:
    """Hide or show a submission, or mark it as a baseline or verified (organizers)."""
    done = _client(ctx).moderate(submission_id, action, reason=reason, note=note, url=link)
    click.echo(done["detail"])


@cli.command()
@click.argument("challenge")
@click.argument("team")
@click.option("--reason", required=True, help="the team sees it")
@click.pass_context
def disqualify(ctx: click.Context, challenge: str, team: str, reason: str) -> None:
    """Disqualify a team (by its slug): its submissions leave the boards and it cannot submit (organizers)."""
    done = _client(ctx).decide(challenge, team, "disqualify", reason=reason)
    click.echo(done["detail"])


@cli.command()
@click.argument("submission_id")
@click.option("--unselect", is_flag=True, help="unselect it instead")
@click.pass_context
def final(ctx: click.Context, submission_id: str, unselect: bool) -> None:
    """Select your team's submission as final for the private board (or --unselect it), until the phase ends."""
    done = _client(ctx).select_final(submission_id, selected=not unselect)
    click.echo(f"{done['detail']} Your team has {done['selected_count']} of {done['final_selection_count']} selected.")
    click.echo(done["rule"])


@cli.command()
@click.argument("challenge")
@click.argument("phase")
@click.pass_context
def reveal(ctx: click.Context, challenge: str, phase: str) -> None:
    """Reveal PHASE now: close submissions, resolve final selections, publish the private board (organizers)."""
    done = _client(ctx).reveal(challenge, phase)
    click.echo(done["detail"])
    click.echo(f"{done['final_submissions']} final submissions of {done['teams']} teams.")
    if done.get("private_board"):
        click.echo(f"Private board: {done['private_board']}")


def _table(rows: list[tuple]) -> None:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        click.echo("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def main(argv: list[str] | None = None) -> int:
    """The console entry point; returns (and exits with) the documented status."""
    try:
        cli.main(args=argv, prog_name="ddi-leaderboard", standalone_mode=False)
    except InvalidSubmission as error:
        _print_problems(error)
        return error.exit_code
    except ClientError as error:
        click.echo(f"Error: {error}", err=True)
        return error.exit_code
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as error:
        error.show()
        return EXIT_INVALID
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return EXIT_INVALID
    except OSError as error:
        click.echo(f"Error: {error.strerror or error} ({getattr(error, 'filename', '') or 'file'}).", err=True)
        return EXIT_INVALID
    except Exception as error:  # a bug of ours: still a sentence, not a traceback
        click.echo(f"Error: the client failed unexpectedly ({error.__class__.__name__}: {error}).", err=True)
        return EXIT_SERVER
    return EXIT_OK


def run() -> None:
    """The ``ddi-leaderboard`` console script."""
    sys.exit(main())
