"""``ddi-leaderboard``: log in, list tasks, download inputs, validate offline, submit and wait, read boards.

Exit status: 0 ok, 2 invalid input (a bad file or argument, a submission that failed its checks),
3 authentication, 4 quota or rate limit, 5 server or network (or a submission the platform failed),
6 still waiting (the submission was accepted; ``wait ID`` resumes). Errors are sentences, never tracebacks.

Start-up stays light: pandas and scikit-learn load only for the commands that validate a file.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import click

from ddi_leaderboard import __version__, config
from ddi_leaderboard.client import Client, check_declarations, split_phase, unknown_task
from ddi_leaderboard.errors import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_SERVER,
    AuthError,
    ClientError,
    InvalidInput,
    InvalidSubmission,
)
from scoring import submission_fields

EPILOG = (
    "Exit status: 0 ok, 2 invalid input or a submission that failed its checks, 3 authentication, "
    "4 quota or rate limit, 5 server or network, 6 still waiting (resume with 'wait ID')."
)
json_option = click.option("--json", "as_json", is_flag=True, help="print JSON (the API's own objects)")


phase_option = click.option(
    "--phase", metavar="CHALLENGE/PHASE", help="a challenge's phase (e.g. mudi-2027/test) instead of a standing task"
)


def _print_json(value) -> None:
    click.echo(json.dumps(value, indent=1))


def _target(task: str | None, phase: str | None) -> str:
    """The standing task or the phase a command works on (``TASK`` may itself be written CHALLENGE/PHASE)."""
    if task and phase:
        raise click.UsageError("Give a task or --phase CHALLENGE/PHASE, not both.")
    if not (task or phase):
        raise click.UsageError("Give a task (e.g. mudi) or --phase CHALLENGE/PHASE.")
    target = phase or task or ""
    if "/" in target:
        split_phase(target)  # a clear error for a malformed phase
    return target


def _target_and_file(ctx: click.Context, arguments: tuple[str, ...], phase: str | None) -> tuple[str, Path]:
    if len(arguments) != (1 if phase else 2):
        raise click.UsageError("Give TASK FILE, or --phase CHALLENGE/PHASE FILE.")
    target = _target(None if phase else arguments[0], phase)
    return target, click.Path(exists=True, dir_okay=False, path_type=Path).convert(arguments[-1], None, ctx)


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
@click.version_option(__version__, prog_name="ddi-leaderboard")
@click.option(
    "--url", envvar=config.URL_VARIABLE, help=f"server URL (default: saved by login, or {config.DEFAULT_URL})"
)
@click.option("--token", envvar=config.TOKEN_VARIABLE, help="API token (default: the one login saved for this URL)")
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
@json_option
@click.pass_context
def tasks(ctx: click.Context, as_json: bool) -> None:
    """List the tasks."""
    found = _client(ctx).tasks()
    if as_json:
        return _print_json(found)
    rows = [("slug", "family", "split", "primary metric")]
    rows += [(t["slug"], t["family"], t["split"], t["primary_metric"]) for t in found]
    _table(rows)


@cli.command()
@click.argument("task", required=False)
@phase_option
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.pass_context
def inputs(ctx: click.Context, task: str | None, phase: str | None, output: Path) -> None:
    """Download a task's or a phase's test inputs (the keys to predict)."""
    target = _target(task, phase)
    output.write_bytes(_client(ctx).inputs(target))
    click.echo(f"Wrote the test inputs of {target} to {output}.")


@cli.command()
@click.argument("task", required=False)
@phase_option
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.pass_context
def example(ctx: click.Context, task: str | None, phase: str | None, output: Path) -> None:
    """Download a valid example prediction file for a task or a phase."""
    target = _target(task, phase)
    output.write_bytes(_client(ctx).example(target))
    click.echo(f"Wrote an example prediction file for {target} to {output}.")


@cli.command()
@click.argument("arguments", nargs=-1, required=True, metavar="[TASK] FILE")
@phase_option
@click.option("--inputs", "inputs_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="the task's inputs file (default: downloaded from the server once and cached)")  # fmt: skip
@click.option("--declare", multiple=True, metavar="KEY=VALUE[,VALUE]",
              help="check these declarations too, as submit would send them")  # fmt: skip
@click.pass_context
def validate(ctx, arguments: tuple[str, ...], phase: str | None, inputs_path: Path | None, declare: tuple[str, ...]):
    """Check a prediction file offline with the server's own checks, against a task's or a phase's inputs."""
    target, file = _target_and_file(ctx, arguments, phase)
    declarations = _declarations(declare) if declare else None
    client = _client(ctx)
    n_rows = client.validate(target, file, inputs=inputs_path, declarations=declarations)
    click.echo(f"Valid: {n_rows:,} rows for {target}.")
    if declarations is None:
        from scoring.registry import get_task

        required = [d.key for d in get_task(client.task_of(target)).declarations if d.required]
        if required:
            click.echo(f"Submitting to {target} needs --declare for: {', '.join(required)}.", err=True)


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
@click.argument("arguments", nargs=-1, required=True, metavar="[TASK] FILE")
@phase_option
@field_options()
@click.option("--team", help="team slug (default: your personal team)")
@click.option("--declare", multiple=True, metavar="KEY=VALUE[,VALUE]", help="a task declaration, e.g. modalities=graph")
@click.option("--wait", is_flag=True, help="wait until scored; print the primary metric and the rank")
@click.option("--timeout", type=click.FloatRange(min=1), default=3600, show_default=True,
              help="--wait: seconds to wait before giving up (the submission stays queued)")  # fmt: skip
@json_option
@click.pass_context
def submit(ctx, arguments, phase, team, declare, wait, timeout, as_json, **fields) -> None:
    """Validate offline, upload (never an invalid file), and optionally wait for the score."""
    task, file = _target_and_file(ctx, arguments, phase)
    from tqdm import tqdm  # here: only an upload draws a progress bar

    client = _client(ctx)
    if not client.token:
        raise AuthError("Submitting needs a token: run 'ddi-leaderboard login' or set DDI_LEADERBOARD_TOKEN.")
    declarations = _declarations(declare)
    # Cheapest first: the declarations offline, then the server's pre-flight (token, e-mail, registration,
    # quota), then the file itself; nothing is uploaded until all three pass.
    slug = client.task_of(task)
    if missing := unknown_task(slug):
        raise InvalidInput(missing)
    check_declarations(slug, declarations)
    client.preflight(task, team=team)
    n_rows = client.validate(task, file)
    click.echo(f"Valid: {n_rows:,} rows. Uploading {file.name} ...", err=True)
    with tqdm(total=file.stat().st_size, unit="B", unit_scale=True, desc="upload", file=sys.stderr) as bar:
        submission = client.submit(
            task, file, team=team, declarations=declarations, validate=False, progress=bar.update, **fields
        )
    if not wait:
        if as_json:
            return _print_json(submission)
        click.echo(f"Submitted {submission['id']} ({submission['status']}): {submission['url']}")
        return
    click.echo(f"Submitted {submission['id']} ({submission['status']}): {submission['url']}", err=as_json)
    _wait_and_report(ctx, client, submission["id"], timeout, as_json)


def _wait_and_report(ctx: click.Context, client: Client, submission_id: str, timeout: float, as_json: bool) -> None:
    """Wait (showing each change of state and queue position), report, and exit non-zero for a failure."""
    seen: list[tuple] = []

    def show(current: dict) -> None:
        state = (current["status"], current.get("queue_position"))
        if seen and seen[-1] == state or current["status"] in ("scored", "failed"):
            return
        seen.append(state)
        position = current.get("queue_position")
        click.echo(f"Status: {current['status']}" + (f" (position {position} in the queue)" if position else ""),
                   err=True)  # fmt: skip

    def retrying(reason: str, pause: float) -> None:
        click.echo(f"Retrying in {pause:.0f} s: {reason}", err=True)

    final = client.wait(submission_id, timeout=timeout, on_update=show, on_retry=retrying)
    _report(client, final, just_scored=True, as_json=as_json)
    _exit_for(ctx, final)


def _exit_for(ctx: click.Context, current: dict) -> None:
    """A failed submission exits 2 when its file was refused, 5 when the platform failed it."""
    if current["status"] == "failed":
        ctx.exit(EXIT_INVALID if current.get("error_kind") == "invalid" else EXIT_SERVER)


def _board_of(status: dict) -> str:
    """The board a submission ranks on: its phase's (a standing task's phase is the task's board)."""
    if status.get("challenge") and status.get("phase"):
        return f"{status['challenge']}/{status['phase']}"
    return status["task"]


def _report(client: Client, status: dict, *, just_scored: bool = False, as_json: bool = False) -> None:
    if as_json:
        if status["status"] == "scored":
            finder = client.wait_for_rank if just_scored else client.rank_of
            status = {**status, "rank": finder(_board_of(status), status["id"])}
        return _print_json(status)
    if status["status"] == "scored":
        primary = status["primary"]
        value = "not computed" if primary["value"] is None else repr(primary["value"])
        click.echo(f"Scored: {primary['key']} = {value}")
        # Just scored: the board takes it in a moment later, so wait briefly for its rank.
        finder = client.wait_for_rank if just_scored else client.rank_of
        rank = finder(_board_of(status), status["id"])
        click.echo(f"Rank: {rank if rank is not None else 'unranked'} on {status['task']}")
    elif status["status"] == "failed":
        error = status.get("error") or "no reason given"
        click.echo(f"Failed: {error}", err=True)
        # The stored error usually quotes the first problems already: print each problem once.
        for problem in status.get("problems", []):
            if problem["message"] not in error:
                click.echo(f"  {problem['message']}", err=True)
    else:
        position = status.get("queue_position")
        click.echo(f"Status: {status['status']}" + (f" (position {position} in the queue)" if position else ""))


@cli.command()
@click.argument("submission_id")
@json_option
@click.pass_context
def status(ctx: click.Context, submission_id: str, as_json: bool) -> None:
    """Show a submission's status and primary metric (exit 2 or 5 if it failed)."""
    client = _client(ctx)
    current = client.status(submission_id)
    if not as_json:
        click.echo(f"{current['id']}  {current['task']}  {current['method_name']}  {current['team']}")
    _report(client, current, as_json=as_json)
    _exit_for(ctx, current)


@cli.command()
@click.argument("submission_id")
@click.option("--timeout", type=click.FloatRange(min=1), default=3600, show_default=True,
              help="seconds to wait before giving up")  # fmt: skip
@json_option
@click.pass_context
def wait(ctx: click.Context, submission_id: str, timeout: float, as_json: bool) -> None:
    """Wait for a submission to be scored, through restarts and busy spells; print its score and rank."""
    _wait_and_report(ctx, _client(ctx), submission_id, timeout, as_json)


@cli.command()
@click.argument("submission_id")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="where to write it (default: the uploaded file's name, in this folder)")  # fmt: skip
@click.pass_context
def download(ctx: click.Context, submission_id: str, output: Path | None) -> None:
    """Download your team's uploaded file back, checked byte for byte against its sha256."""
    client = _client(ctx)
    if output is None:
        output = Path(Path(client.status(submission_id)["file_name"]).name or f"{submission_id}.csv")
    written = client.download(submission_id, output)
    click.echo(f"Wrote {written} ({written.stat().st_size:,} bytes, sha256 checked).")


@cli.command()
@click.argument("submission_id")
@click.pass_context
def hide(ctx: click.Context, submission_id: str) -> None:
    """Make your team's submission private: off the public board, still yours (needs a submit token)."""
    done = _client(ctx).set_visibility(submission_id, public=False)
    click.echo(f"{done['id']} is now {done['visibility']}.")


@cli.command()
@click.argument("submission_id")
@click.pass_context
def show(ctx: click.Context, submission_id: str) -> None:
    """Make your team's submission public again (needs a submit token)."""
    done = _client(ctx).set_visibility(submission_id, public=True)
    click.echo(f"{done['id']} is now {done['visibility']}.")


@cli.command()
@click.option("--task", help="only this task")
@phase_option
@json_option
@click.pass_context
def submissions(ctx: click.Context, task: str | None, phase: str | None, as_json: bool) -> None:
    """List your teams' submissions, newest first (of a task, or of a phase)."""
    found = _client(ctx).submissions(task=task, phase=phase)
    if as_json:
        return _print_json(found)
    rows = [("id", "task", "method", "team", "status", "primary")]
    for s in found:
        value = s["primary_value"]
        rows.append(
            (s["id"], s["task"], s["method_name"], s["team"], s["status"], "" if value is None else f"{value:.4f}")
        )
    _table(rows)


@cli.command()
@click.argument("task", required=False)
@phase_option
@click.option("--direction", type=click.Choice(["aware", "agnostic"]), help="MUDI: which view")
@click.option("--private", is_flag=True, help="add your teams' private rows")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table")
@json_option
@click.pass_context
def leaderboard(ctx, task, phase, direction: str | None, private: bool, fmt: str, as_json: bool) -> None:
    """Print a task's or a phase's leaderboard: the CSV export's columns and ranks (--json: --format json)."""
    task = _target(task, phase)
    fmt = "json" if as_json else fmt
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
    detail = client.task(client.task_of(task))
    metric = detail["primary_metric"]
    if direction == "agnostic":
        metric = metric.replace("aware/", "agnostic/", 1)
    table = [("rank", "method", "team", metric)]
    for row in rows:
        value = row.get(metric)
        rank = "" if row["rank"] is None else str(row["rank"])
        table.append((rank, row["method"], row["team"], "—" if value is None else f"{value:.4f}"))
    _table(table)


@cli.command()
@json_option
@click.pass_context
def challenges(ctx: click.Context, as_json: bool) -> None:
    """List the challenges and their phases (dates, whether they take submissions, your quota with a token)."""
    found = _client(ctx).challenges()
    if as_json:
        return _print_json(found)
    rows = [("phase", "task", "state", "ends")]
    for challenge in found:
        for phase in challenge["phases"]:
            state = "open" if phase["accepts_submissions"] else ("open, no test set" if phase["is_open"] else "closed")
            rows.append((f"{challenge['slug']}/{phase['slug']}", phase["task"], state, phase["ends_at"] or ""))
    _table(rows)


@cli.command()
@click.argument("challenge")
@click.option("--team", help="team slug (default: your personal team)")
@click.option("--accept-terms", is_flag=True, help="accept the challenge's terms (shown on its register page)")
@click.option("--no-announcements", is_flag=True, help="do not e-mail me the organizers' announcements")
@json_option
@click.pass_context
def register(ctx, challenge: str, team: str | None, accept_terms: bool, no_announcements: bool, as_json: bool):
    """Register a team for an organized challenge, with the register page's rules (needs a submit token)."""
    done = _client(ctx).register(challenge, team=team, accept_terms=accept_terms, announcements=not no_announcements)
    if as_json:
        return _print_json(done)
    click.echo(done["detail"])


@cli.command()
@click.argument("challenge")
@click.option("--withdraw", is_flag=True, help="withdraw it (only before the team's first submission)")
@json_option
@click.pass_context
def registration(ctx: click.Context, challenge: str, withdraw: bool, as_json: bool) -> None:
    """Show whether one of your teams is registered for a challenge, and its status (or --withdraw it)."""
    client = _client(ctx)
    done = client.withdraw_registration(challenge) if withdraw else client.registration(challenge)
    if as_json:
        return _print_json(done)
    click.echo(done["detail"])
    if done.get("reason"):
        click.echo(f"The organizers' reason: {done['reason']}")
    if not done["registered"] and not withdraw:
        terms = " (accept its terms with --accept-terms)" if done["has_terms"] else ""
        click.echo(f"Register with: ddi-leaderboard register {challenge}{terms}; terms: {done['terms_url']}")


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
        # Not standalone: ctx.exit(code) comes back as the return value instead of a SystemExit.
        code = cli.main(args=argv, prog_name="ddi-leaderboard", standalone_mode=False)
        if isinstance(code, int) and code:
            return code
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
