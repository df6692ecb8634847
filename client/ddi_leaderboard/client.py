"""``Client``: the API in Python, for scripts and notebooks."""

from __future__ import annotations

import hashlib
import inspect
import io
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx

import scoring
from ddi_leaderboard import config
from ddi_leaderboard.errors import (
    AuthError,
    ClientError,
    GaveUpWaiting,
    InvalidInput,
    InvalidSubmission,
    QuotaExceeded,
    ServerError,
)
from scoring import submission_fields

FINISHED = ("scored", "failed")
# Answers that mean "not now" while waiting: retried, not reported.
RETRIED_STATUSES = (429, 502, 503, 504)
MAX_PAUSE = 30.0
# The 401/403 problem types a new token fixes (the others are about the account, the team or the phase).
TOKEN_KINDS = ("token-required", "invalid-token", "token-revoked", "token-expired", "insufficient-scope", "")


def _missing_task(path: str) -> str | None:
    """For a 404 on a task's page: the sentence naming the valid tasks, if the slug is no task."""
    parts = path.strip("/").split("/")
    if len(parts) < 2 or parts[0] != "tasks":
        return None
    return unknown_task(parts[1])


def split_phase(target: str) -> tuple[str, str]:
    """("CHALLENGE", "PHASE") from "CHALLENGE/PHASE", or InvalidInput saying what is expected."""
    challenge, _, phase = target.partition("/")
    if not challenge or not phase or "/" in phase:
        raise InvalidInput(f"{target!r} is not a phase: write it as CHALLENGE/PHASE, e.g. mudi-2027/test.")
    return challenge, phase


def unknown_task(slug: str) -> str | None:
    """None for a task slug, else "No task 'x'; valid tasks: ..." (scoring's registry, loaded only here)."""
    from scoring.registry import TASKS, unknown_task_message

    return None if slug in TASKS else unknown_task_message(slug)


def _seconds(value: str | None) -> float | None:
    """A Retry-After given in seconds (the API never sends the date form)."""
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _describe(error: httpx.HTTPError, url: str) -> str:
    if isinstance(error, httpx.ConnectError):
        return f"Could not connect to {url}: is the server running and the URL right?"
    if isinstance(error, httpx.TimeoutException):
        return f"The server at {url} did not answer in time; try again later."
    return f"The request to {url} failed: {error.__class__.__name__}."


class _Progress(io.BytesIO):
    """Bytes that report how much was read: httpx streams an upload with read(), knowing its length."""

    def __init__(self, data: bytes, callback: Callable[[int], None] | None) -> None:
        super().__init__(data)
        self._callback = callback

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        if self._callback and chunk:
            self._callback(len(chunk))
        return chunk


class Client:
    """A DDI Leaderboard API client.

    >>> client = Client("http://127.0.0.1:8000", "ddi_...")
    >>> submission = client.submit("mudi", "predictions.csv", method="GraphDDI", declarations={"modalities": ["graph"]})
    >>> client.wait(submission["id"])["primary"]["value"]
    """

    def __init__(
        self, url: str | None = None, token: str | None = None, *, timeout: float = 120.0, transport=None
    ) -> None:
        self.url, self.token = config.resolve(url, token)
        if self.token:
            try:
                config.check_secure(self.url)
            except config.InsecureURL as refused:
                raise AuthError(str(refused)) from None
        headers = {"User-Agent": "ddi-leaderboard-client/1.0", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        self._phases: dict[tuple[str, str], dict] = {}
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout, transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- plumbing -----------------------------------------------------------------------------

    def _request(self, method: str, path: str, **kwargs) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as error:
            raise ServerError(_describe(error, self.url)) from None
        if response.status_code >= 400:
            raise self._error(response)
        return response

    def _json(self, method: str, path: str, **kwargs) -> Any:
        response = self._request(method, path, **kwargs)
        try:
            return response.json()
        except ValueError:
            raise ServerError(f"The server at {self.url} answered {path} with something that is not JSON.") from None

    def _error(self, response: httpx.Response) -> ClientError:
        try:
            problem = response.json()
            if not isinstance(problem, dict):
                problem = {}
        except ValueError:
            problem = {}
        status = response.status_code
        detail = str(problem.get("detail") or response.reason_phrase or f"HTTP {status}").rstrip(".") + "."
        kind = str(problem.get("type", "")).rsplit("/", 1)[-1]
        if status in (401, 403):
            # Only a token problem is the token's fault: an unverified e-mail or a missing registration says so itself.
            hint = " Create a token on your profile page and run 'ddi-leaderboard login'."
            hint = hint if kind in TOKEN_KINDS else ""
            return AuthError(detail + hint, problem=problem)
        if status == 404 and not problem and (missing := _missing_task(response.request.url.path)):
            return InvalidInput(missing)
        if status == 429:
            retry = response.headers.get("Retry-After")
            when = f" Try again in {int(retry)} seconds." if retry and retry.isdigit() else ""
            return QuotaExceeded(
                detail + when, retry_after=int(retry) if retry and retry.isdigit() else None, problem=problem
            )
        if status == 422 and kind in ("invalid-file", "invalid-truth", "invalid-groups"):
            return InvalidSubmission(detail, problem.get("errors", []), problem.get("error_count", 0), problem=problem)
        if 400 <= status < 500:
            errors = "; ".join(
                f"{e.get('field') or 'request'}: {e.get('message')}"
                for e in problem.get("errors", [])
                if e.get("message")
            )
            return InvalidInput(detail + (f" ({errors})" if errors else ""), problem=problem)
        return ServerError(f"The server failed ({status}): {detail} Try again later.", problem=problem)

    # --- tasks and files --------------------------------------------------------------------------

    def tasks(self) -> list[dict]:
        return self._json("GET", "/api/v1/tasks")

    def challenges(self) -> list[dict]:
        """Published challenges with their phases (and, with a token, your teams' quota on each)."""
        return self._json("GET", "/api/v1/challenges")

    def task(self, slug: str) -> dict:
        return self._json("GET", f"/api/v1/tasks/{slug}")

    # A target is a standing task ("mudi") or a challenge's phase ("mudi-2027/test").

    def phase(self, target: str) -> dict:
        """A phase by "CHALLENGE/PHASE": dates, limits, your quota and its links (inputs, example, board)."""
        challenge, phase = split_phase(target)
        key = (challenge, phase)
        if key not in self._phases:
            self._phases[key] = self._json("GET", f"/api/v1/challenges/{challenge}/phases/{phase}")
        return self._phases[key]

    def task_of(self, target: str) -> str:
        """The task slug scored by ``target`` (a task is its own; a phase says which)."""
        return self.phase(target)["task"] if "/" in target else target

    @staticmethod
    def _base(target: str) -> str:
        """The API path of a target: ``/api/v1/tasks/T`` or ``/api/v1/challenges/C/phases/P``."""
        if "/" in target:
            challenge, phase = split_phase(target)
            return f"/api/v1/challenges/{challenge}/phases/{phase}"
        return f"/api/v1/tasks/{target}"

    def _phase_file(self, target: str, link: str) -> bytes:
        url = self.phase(target)["links"].get(link)
        if not url:
            raise InvalidInput(
                f"The phase {target} offers no {'test inputs' if link == 'inputs' else 'example file'} yet: "
                "it has not started or has no test set."
            )
        return self._request("GET", url).content

    def inputs(self, task: str) -> bytes:
        """The test inputs (keys to predict, no labels) of a task or a phase ("CHALLENGE/PHASE"), as CSV bytes."""
        if "/" in task:
            return self._phase_file(task, "inputs")
        return self._request("GET", f"/tasks/{task}/inputs.csv").content

    def example(self, task: str) -> bytes:
        """A valid example prediction file for a task or a phase, as CSV bytes."""
        if "/" in task:
            return self._phase_file(task, "example")
        return self._request("GET", f"/tasks/{task}/example.csv").content

    def cached_inputs(self, task: str) -> Path:
        """The inputs file of a task or a phase, downloaded once per server and kept in the user's cache folder."""
        host = urlparse(self.url).netloc.replace(":", "_") or "local"
        path = config.cache_dir() / host / f"{task.replace('/', '--')}-inputs.csv"
        if not path.exists():
            data = self.inputs(task)
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(".part")
            temporary.write_bytes(data)
            temporary.replace(path)
        return path

    # --- validating and submitting -------------------------------------------------------------------

    @staticmethod
    def _file_bytes(path_or_dataframe) -> tuple[bytes, str]:
        if hasattr(path_or_dataframe, "to_csv"):
            return path_or_dataframe.to_csv(index=False).encode(), "predictions.csv"
        path = Path(path_or_dataframe)
        try:
            return path.read_bytes(), path.name
        except OSError as error:
            raise InvalidInput(f"Could not read {path}: {error.strerror or error}.") from None

    def validate(
        self, task: str, path_or_dataframe, *, inputs: str | Path | None = None, declarations: dict | None = None
    ) -> int:
        """Check a file offline with the server's checks; returns its row count or raises InvalidSubmission.

        ``inputs`` defaults to the task's inputs file, downloaded from the server once and cached.
        ``declarations`` given, they are checked too (unknown keys, invalid and missing answers).
        """
        slug = self.task_of(task)
        if missing := unknown_task(slug):
            raise InvalidInput(missing)
        if declarations is not None:
            check_declarations(slug, declarations)
        data, _ = self._file_bytes(path_or_dataframe)
        return validate_bytes(slug, data, inputs if inputs is not None else self.cached_inputs(task))

    def submit(
        self,
        task: str,
        path_or_dataframe,
        *,
        team: str | None = None,
        declarations: dict | None = None,
        validate: bool = True,
        inputs: str | Path | None = None,
        progress: Callable[[int], None] | None = None,
        **fields: Any,
    ) -> dict:
        """Validate locally (an invalid file is never uploaded), then upload; returns the queued submission.

        ``task`` is a standing task ("mudi") or a challenge's phase ("CHALLENGE/PHASE").

        ``fields`` are the method's fields by keyword, as ``scoring.submission_fields``
        declares them (``help(Client.submit)`` lists them): ``method`` is required;
        e.g. ``model_family="gnn"``, ``n_parameters=1_200_000``, ``uses_external_data=True``,
        ``private=True``. ``declarations`` are the task's, by key (``{"modalities": ["graph"]}``).
        """
        body: dict[str, str | list[str]] = dict(submission_fields.request_fields(fields))
        answers = declaration_answers(declarations or {})
        if validate:
            # Everything that can be known before the upload is checked before it: offline first, then the server.
            slug = self.task_of(task)
            if missing := unknown_task(slug):
                raise InvalidInput(missing)
            check_declarations(slug, answers)
            self.preflight(task, team=team)
        data, name = self._file_bytes(path_or_dataframe)
        if validate:
            validate_bytes(slug, data, inputs if inputs is not None else self.cached_inputs(task))
        if team:
            body["team"] = team
        body.update(answers)
        files = {"file": (name, _Progress(data, progress), "text/csv")}
        return self._json("POST", f"{self._base(task)}/submissions", data=body, files=files)

    def preflight(self, task: str, *, team: str | None = None) -> dict:
        """Would an upload be accepted, the file aside (token, scope, verified e-mail, dates, registration, quota)?

        Returns the team and its quota; a refusal raises the error an upload would, before any file is sent.
        """
        params = {"team": team} if team else {}
        return self._json("GET", f"{self._base(task)}/submissions/preflight", params=params)

    # --- registering for a challenge -----------------------------------------------------------------

    def registration(self, challenge: str) -> dict:
        """Whether one of your teams is registered for ``challenge``, and its status."""
        return self._json("GET", f"/api/v1/challenges/{challenge}/registration")

    def register(
        self, challenge: str, *, team: str | None = None, accept_terms: bool = False, announcements: bool = True
    ) -> dict:
        """Register a team (default your personal one) with the register page's rules; returns the registration."""
        body: dict[str, Any] = {"accept_terms": accept_terms, "wants_announcements": announcements}
        if team:
            body["team"] = team
        return self._json("POST", f"/api/v1/challenges/{challenge}/registration", json=body)

    def withdraw_registration(self, challenge: str) -> dict:
        """Withdraw your team's registration (only before its first submission)."""
        return self._json("DELETE", f"/api/v1/challenges/{challenge}/registration")

    # --- organizers ------------------------------------------------------------------------------------

    def upload_truth(self, challenge: str, phase: str, path: str | Path, groups: str | Path | None = None) -> dict:
        """Upload (or replace) a phase's hidden truth file; organizers of the challenge only.

        The server validates it with ``scoring`` (an invalid file raises InvalidSubmission with the
        located errors; nothing is stored) and re-scores the phase's submissions against it.
        ``groups``, a ``class,group`` file, gives an ImDrug task's head/middle/tail class groups:
        the truth is stored with a ``group`` column filled from it.
        """
        data, name = self._file_bytes(path)
        files = {"file": (name, data, "text/csv")}
        if groups is not None:
            mapping, mapping_name = self._file_bytes(groups)
            files["groups"] = (mapping_name, mapping, "text/csv")
        return self._json("PUT", f"/api/v1/challenges/{challenge}/phases/{phase}/truth", files=files)

    # --- following submissions --------------------------------------------------------------------------

    def status(self, submission_id: str) -> dict:
        return self._json("GET", f"/api/v1/submissions/{submission_id}")

    def wait(
        self,
        submission_id: str,
        *,
        timeout: float = 3600,
        interval: float = 2.0,
        on_update: Callable[[dict], None] | None = None,
        on_retry: Callable[[str, float], None] | None = None,
    ) -> dict:
        """Poll until the submission is scored or failed; returns its final status.

        A lost connection, a read timeout, 429 and 503 are retried with growing pauses
        (``Retry-After`` when the server sends one) until ``timeout`` seconds have passed;
        ``on_update`` sees every status read, ``on_retry`` every retry (its reason and pause).
        Giving up raises ``GaveUpWaiting``, whose message names the id and the command that resumes.
        """
        deadline = time.monotonic() + timeout
        pause = interval
        last: dict | None = None
        while True:
            remaining = deadline - time.monotonic()
            reason, retry_after = None, None
            try:
                per_request = max(1.0, min(30.0, remaining))
                response = self._http.get(f"/api/v1/submissions/{submission_id}", timeout=per_request)
            except httpx.HTTPError as error:
                reason = _describe(error, self.url)
            else:
                if response.status_code in RETRIED_STATUSES:
                    reason = f"the server answered {response.status_code} {response.reason_phrase}"
                    retry_after = _seconds(response.headers.get("Retry-After"))
                elif response.status_code >= 400:
                    raise self._error(response)
                else:
                    last, pause = response.json(), interval
                    if on_update:
                        on_update(last)
                    if last["status"] in FINISHED:
                        return last
            if reason is not None:
                pause = retry_after if retry_after is not None else min(MAX_PAUSE, max(interval, pause * 2))
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (reason is not None and pause > remaining):
                state = f"still {last['status']}" if last else "not read yet"
                because = f" (last: {reason})" if reason else ""
                raise GaveUpWaiting(
                    f"Stopped waiting after {timeout:g} seconds{because}: submission {submission_id} was accepted "
                    f"and is {state}. Resume with: ddi-leaderboard wait {submission_id}",
                    submission_id=str(submission_id),
                    last_status=last,
                )
            if reason is not None and on_retry:
                on_retry(reason, pause)
            time.sleep(min(pause, remaining))

    def download(self, submission_id: str, path: str | Path) -> Path:
        """Stream your team's uploaded file to ``path`` and check it byte for byte against its sha256.

        Returns the path; a partial download never replaces an existing file (``.part`` first).
        """
        path = Path(path)
        expected = self.status(submission_id).get("sha256")
        temporary = path.with_name(path.name + ".part")
        digest = hashlib.sha256()
        try:
            url = f"/api/v1/submissions/{submission_id}/file"
            with self._http.stream("GET", url, headers={"Accept": "application/octet-stream"}) as response:
                if response.status_code >= 400:
                    response.read()
                    raise self._error(response)
                with temporary.open("wb") as out:
                    for chunk in response.iter_bytes():
                        digest.update(chunk)
                        out.write(chunk)
        except httpx.HTTPError as error:
            temporary.unlink(missing_ok=True)
            raise ServerError(_describe(error, self.url)) from None
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        if expected and digest.hexdigest() != expected:
            temporary.unlink(missing_ok=True)
            raise ServerError(f"The download of {submission_id} was damaged (its sha256 differs); try again.")
        temporary.replace(path)
        return path

    def submissions(
        self, *, task: str | None = None, phase: str | None = None, status: str | None = None
    ) -> list[dict]:
        """Your teams' submissions, newest first: of a task, of a phase ("CHALLENGE/PHASE"), with a status."""
        challenge, phase_slug = split_phase(phase) if phase else (None, None)
        wanted = {"task": task, "challenge": challenge, "phase": phase_slug, "status": status}
        params = {k: v for k, v in wanted.items() if v}
        return list(self._pages("/api/v1/submissions", params, "results"))

    def set_visibility(self, submission_id: str, public: bool) -> dict:
        return self._json(
            "PATCH", f"/api/v1/submissions/{submission_id}", json={"visibility": "public" if public else "private"}
        )

    # --- boards ---------------------------------------------------------------------------------------------

    def leaderboard(self, task: str, **options) -> list[dict]:
        """Every row of a board view (options as on the page: direction, sort, private=1, filters)."""
        return list(self._pages(f"{self._base(task)}/leaderboard", {"page_size": 500, **options}, "rows"))

    def leaderboard_csv(self, task: str, **options) -> str:
        if "/" in task:
            challenge, phase = split_phase(task)
            return self._request("GET", f"/challenges/{challenge}/{phase}/board/leaderboard.csv", params=options).text
        return self._request("GET", f"/tasks/{task}/leaderboard.csv", params=options).text

    def rank_of(self, task: str, submission_id: str) -> int | None:
        """The submission's rank on the task's board (your private rows included), or None."""
        try:
            for row in self._pages(f"{self._base(task)}/leaderboard", {"page_size": 500, "private": "1"}, "rows"):
                if row["submission_id"] == str(submission_id):
                    return row["rank"]
        except InvalidInput:  # a phase whose public board is hidden until the reveal: no rank to give
            return None
        return None

    def wait_for_rank(self, task: str, submission_id: str, *, timeout: float = 30, interval: float = 1.0) -> int | None:
        """The rank once the board has taken the newly scored submission in (boards update just after scoring)."""
        deadline = time.monotonic() + timeout
        while True:
            rank = self.rank_of(task, submission_id)
            if rank is not None or time.monotonic() > deadline:
                return rank
            time.sleep(interval)

    # --- organizers: moderation ------------------------------------------------------------------------

    def rerun(
        self,
        challenge: str,
        *,
        phase: str | None = None,
        which: str = "failed",
        submission: str | None = None,
        reason: str = "",
    ) -> dict:
        """Re-run one submission, or a phase's failed (or all) submissions; returns {"queued", "detail"}."""
        body: dict[str, str] = {"reason": reason}
        if submission:
            body["submission"] = str(submission)
        else:
            body.update({"phase": phase or "", "which": which})
        return self._json("POST", f"/api/v1/challenges/{challenge}/rerun", json=body)

    def moderate(self, submission_id: str, action: str, *, reason: str = "", note: str = "", url: str = "") -> dict:
        """Hide, unhide, baseline, unbaseline, verify, unverify or rerun a submission of a challenge you organize."""
        body = {"action": action, "reason": reason, "note": note, "url": url}
        return self._json("POST", f"/api/v1/submissions/{submission_id}/moderation", json=body)

    def decide(self, challenge: str, team: str, decision: str, *, reason: str = "") -> dict:
        """Approve, reject, disqualify or reinstate a registered team (by its slug)."""
        return self._json("POST", f"/api/v1/challenges/{challenge}/teams/{team}/{decision}", json={"reason": reason})

    def select_final(self, submission_id: str, selected: bool = True) -> dict:
        """Select (or with ``selected=False`` unselect) your team's submission as one of its finals (submit scope)."""
        return self._json("POST", f"/api/v1/submissions/{submission_id}/final", json={"selected": selected})

    def reveal(self, challenge: str, phase: str) -> dict:
        """Reveal a phase now: close it, resolve final selections, publish its private board (organizers)."""
        return self._json("POST", f"/api/v1/challenges/{challenge}/phases/{phase}/reveal")

    def export_scores(self, challenge: str, path: str | Path) -> int:
        """Stream every submission's public, private and all-row scores to ``path`` (CSV); returns the bytes written."""
        path = Path(path)
        url = f"/api/v1/challenges/{challenge}/export.csv"
        temporary = path.with_name(path.name + ".part")
        written = 0
        try:
            with self._http.stream("GET", url, headers={"Accept": "text/csv"}) as response:
                if response.status_code >= 400:
                    response.read()
                    raise self._error(response)
                with temporary.open("wb") as out:
                    for chunk in response.iter_bytes():
                        out.write(chunk)
                        written += len(chunk)
        except httpx.HTTPError as error:
            temporary.unlink(missing_ok=True)
            raise ServerError(_describe(error, self.url)) from None
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        temporary.replace(path)
        return written

    def _pages(self, path: str, params: dict, key: str) -> Iterator[dict]:
        page = 1
        while True:
            body = self._json("GET", path, params={**params, "page": page})
            yield from body[key]
            if not body.get("next"):
                return
            page += 1


def _keyword_parameter(f: submission_fields.SubmissionField) -> inspect.Parameter:
    """How ``Client.submit`` takes a method field: a flag or a switch as a bool, a count as an int, else text."""
    if f.kind == "flag" or f.switch_to:
        annotation, default = "bool", False  # False sends the field's default: the same as leaving it out
    else:
        annotation = "int" if f.kind == "count" else "str"
        annotation, default = (annotation, inspect.Parameter.empty) if f.required else (f"{annotation} | None", None)
    return inspect.Parameter(f.keyword_name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def _submit_signature() -> inspect.Signature:
    """``Client.submit``'s signature with one keyword per declared method field, for help() and editors."""
    signature = inspect.signature(Client.submit)
    parameters = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    taken = {p.name for p in parameters}
    for f in submission_fields.FIELDS:
        if f.keyword_name in taken:
            raise RuntimeError(f"the method field {f.name!r} takes Client.submit's own keyword {f.keyword_name!r}")
        parameters.append(_keyword_parameter(f))
    return signature.replace(parameters=parameters)


Client.submit.__signature__ = _submit_signature()  # type: ignore[attr-defined]


def declaration_answers(declarations: dict) -> dict[str, list[str]]:
    """Declarations as the upload sends them: each a list of strings, booleans as yes/no."""
    answers = {}
    for key, value in declarations.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        answers[key] = [("yes" if v else "no") if isinstance(v, bool) else str(v) for v in values]
    return answers


def check_declarations(task: str, declarations: dict) -> None:
    """Raise InvalidInput naming every unknown key and missing or invalid answer (offline, as the server checks)."""
    from scoring.definitions import declaration_problems
    from scoring.registry import get_task

    problems = declaration_problems(get_task(task).declarations, declaration_answers(declarations))
    if problems:
        raise InvalidInput(f"Declarations for {task}: " + " ".join(problems) + " Nothing was uploaded.")


def validate_bytes(task: str, data: bytes, inputs) -> int:
    """scoring's offline check; InvalidSubmission carries its located errors."""
    if missing := unknown_task(task):
        raise InvalidInput(missing)
    try:
        return scoring.validate_prediction(task, data, inputs=inputs)
    except scoring.ScoringError as error:
        found = error.to_dict()
        plural = "s" if error.total != 1 else ""
        raise InvalidSubmission(
            f"The file is not valid for {task}: {error.total} problem{plural}. Nothing was uploaded.",
            found["errors"],
            found["error_count"],
        ) from None
