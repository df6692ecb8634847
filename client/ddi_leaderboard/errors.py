"""What can go wrong, each with the command line's exit status and a sentence to print."""

from __future__ import annotations

EXIT_OK = 0
EXIT_INVALID = 2
EXIT_AUTH = 3
EXIT_QUOTA = 4
EXIT_SERVER = 5
EXIT_PENDING = 6


class ClientError(Exception):
    """Base class: ``str(error)`` is a sentence for people; ``exit_code`` is the CLI's status."""

    exit_code = EXIT_SERVER

    def __init__(self, message: str, *, problem: dict | None = None) -> None:
        super().__init__(message)
        self.problem = problem or {}


class InvalidInput(ClientError):
    """Bad arguments, an unknown task or id, a request the server refused as invalid (exit 2)."""

    exit_code = EXIT_INVALID


class InvalidSubmission(InvalidInput):
    """A prediction file with problems; ``errors`` is scoring's list of {line, column, message}."""

    def __init__(self, message: str, errors: list[dict], error_count: int, *, problem: dict | None = None) -> None:
        super().__init__(message, problem=problem)
        self.errors = errors
        self.error_count = error_count


class AuthError(ClientError):
    """No token, or one that is unknown, revoked, expired or lacks the scope (exit 3)."""

    exit_code = EXIT_AUTH


class QuotaExceeded(ClientError):
    """The team's submission quota or the token's rate limit is used up (exit 4)."""

    exit_code = EXIT_QUOTA

    def __init__(self, message: str, *, retry_after: int | None = None, problem: dict | None = None) -> None:
        super().__init__(message, problem=problem)
        self.retry_after = retry_after


class ServerError(ClientError):
    """The server failed or could not be reached (exit 5)."""

    exit_code = EXIT_SERVER


class GaveUpWaiting(ClientError):
    """The submission was accepted but not finished when waiting stopped (exit 6); ``wait ID`` resumes."""

    exit_code = EXIT_PENDING

    def __init__(self, message: str, *, submission_id: str, last_status: dict | None = None) -> None:
        super().__init__(message)
        self.submission_id = submission_id
        self.last_status = last_status
