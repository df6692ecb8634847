"""The one exception the scoring package raises for bad input, and its row-level problems.

Every reader and validator collects problems instead of stopping at the first,
so a researcher fixes a file in one round trip. The stored list is capped (a
million bad rows would make an unreadable page) but the total is always counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# How many problems are kept for display; the total count is kept separately.
MAX_PROBLEMS = 50
# A 10 MB header or cell quoted in a message must not come back as a 10 MB page or JSON body.
MAX_MESSAGE_CHARS = 1000


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file.

    line: 1-based line of the file (the header is line 1), or None when the
    problem concerns the whole file. column: the column name as written in the
    expected format, or None.
    """

    line: int | None
    column: str | None
    message: str

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape used by the CLI and the web site."""
        return {"line": self.line, "column": self.column, "message": self.message}


class ScoringError(Exception):
    """Invalid truth or prediction input; carries every problem found (capped) and their total."""

    def __init__(self, problems: list[Problem], total: int | None = None) -> None:
        self.problems = list(problems[:MAX_PROBLEMS])
        self.total = max(total if total is not None else len(problems), len(self.problems))
        super().__init__(str(self))

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"errors": [{"line", "column", "message"}], "error_count": total}``."""
        return {"errors": [p.to_dict() for p in self.problems], "error_count": self.total}

    def __str__(self) -> str:
        lines = [p.message for p in self.problems]
        hidden = self.total - len(self.problems)
        if hidden > 0:
            lines.append(f"... and {hidden} more problem{'s' if hidden != 1 else ''}.")
        return "\n".join(lines)


def fail(message: str, *, line: int | None = None, column: str | None = None) -> ScoringError:
    """Build a ScoringError holding a single problem (the caller raises it)."""
    return ScoringError([Problem(line, column, message)])


class Problems:
    """Accumulates problems up to MAX_PROBLEMS while counting all of them."""

    def __init__(self) -> None:
        self.items: list[Problem] = []
        self.total = 0

    def add(self, message: str, *, line: int | None = None, column: str | None = None) -> None:
        """Record one problem (a message longer than ``MAX_MESSAGE_CHARS`` is cut: values in it come from the file)."""
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[: MAX_MESSAGE_CHARS - 3] + "..."
        self.total += 1
        if len(self.items) < MAX_PROBLEMS:
            self.items.append(Problem(line, column, message))

    def add_many(self, problems: Iterable[Problem], total: int) -> None:
        """Record the first few of ``total`` problems of one kind (the rest are only counted)."""
        for problem in problems:
            if len(self.items) >= MAX_PROBLEMS:
                break
            self.items.append(problem)
        self.total += total

    def extend(self, error: ScoringError) -> None:
        """Merge the problems carried by another ScoringError."""
        self.add_many(error.problems, error.total)

    def __bool__(self) -> bool:
        return self.total > 0

    def raise_if_any(self) -> None:
        """Raise a ScoringError if anything was recorded."""
        if self.total:
            raise ScoringError(self.items, self.total)
