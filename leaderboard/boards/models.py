"""Precomputed leaderboards.

A board is recomputed when a submission is scored or a board changes (signals
from the submissions app), never per request. Pages then read one ``Board`` row
and one page of ``BoardRow`` rows, so the number of queries does not grow with
the number of rows.

One ``Board`` per phase and *view*: MUDI has two views (direction-aware and
direction-agnostic, each ranked by its own macro F1), every other task one
("default"). Rows are one per team and method: public rows hold the team's best
(or latest) *public* submission and are ranked among themselves only; private
rows hold the best *private* submission and carry the rank it would have among
the public rows, so public ranks never reveal that a private result exists.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import models

from scoring import submission_fields
from scoring.submission_fields import SubmissionField


class BoardQuerySet(models.QuerySet):
    def public(self) -> BoardQuerySet:
        """Boards ranked on public test rows: every board but a revealed phase's private ones."""
        return self.filter(part=Board.Part.PUBLIC)

    def private(self) -> BoardQuerySet:
        return self.filter(part=Board.Part.PRIVATE)


class BoardRowQuerySet(models.QuerySet):
    def public(self) -> BoardRowQuerySet:
        """The public rows, as ``is_public = true``.

        ``filter(is_public=True)`` writes the bare column, which SQLite's planner
        cannot match to ``boardrow_rank_idx`` (board, is_public, quality, tail): it
        then sorts the whole board for the best rows (12-24 ms at 5,000 rows instead
        of 0.4 ms, ``bench/leaderboard.py``). PostgreSQL plans both forms alike.
        """
        return self.filter(is_public=models.Value(True))

    def ranked(self) -> BoardRowQuerySet:
        """The rows with a rank: quality keys start with "1" exactly when unranked
        (``placement.quality_key``). A range, not ``LIKE '0%'``, so the rank index serves it."""
        return self.filter(quality__lt="1")


class Board(models.Model):
    class Significance(models.TextChoices):
        BOOTSTRAP = "bootstrap", "Paired bootstrap over test rows"
        SEEDS = "seeds", "Paired t-test over seeds"

    class Part(models.TextChoices):
        # Which test rows the board ranks: every board but a revealed phase's private one is "public".
        PUBLIC = "public", "Public test rows"
        PRIVATE = "private", "Private test rows (published at the reveal)"

    phase = models.ForeignKey("challenges.Phase", on_delete=models.CASCADE, related_name="boards")
    direction = models.CharField(max_length=20)
    part = models.CharField(max_length=8, choices=Part.choices, default=Part.PUBLIC)
    # Ranking rule used for this view (the task's primary metric, or MUDI's agnostic one).
    metric = models.CharField(max_length=120)
    higher_is_better = models.BooleanField(default=True)
    tiebreak = models.JSONField(default=list)
    significance = models.CharField(max_length=10, choices=Significance.choices)
    # Changes on every recompute; cache keys contain it, so a recompute invalidates them.
    version = models.UUIDField(default=uuid.uuid4)
    computed_at = models.DateTimeField()
    scoring_version = models.CharField(max_length=20, blank=True)
    # Summary shown on /benchmarks/ (public submissions only).
    n_rows = models.PositiveIntegerField(default=0)
    n_submissions = models.PositiveIntegerField(default=0)
    best_value = models.FloatField(null=True, blank=True)
    last_activity = models.DateTimeField(null=True, blank=True)
    # State of the art over time: [{"date", "value", "method", "team", "submission"}].
    progression = models.JSONField(default=list)
    # Pairwise significance of the top public entries, written by the worker
    # (``leaderboard.boards.matrix``): {} until first computed.
    significance_matrix = models.JSONField(default=dict, blank=True)

    objects = BoardQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["phase", "direction", "part"], name="board_unique_phase_direction_part")
        ]

    def __str__(self) -> str:
        return f"{self.phase} ({self.direction})"


class BoardRow(models.Model):
    """One team and method on a board, with everything the table, charts and exports show."""

    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="rows")
    submission = models.ForeignKey("submissions.Submission", on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    # Copied from the submission and team so that a page reads this table alone.
    team_name = models.CharField(max_length=100)
    method_name = models.CharField(max_length=100)
    submitted_at = models.DateTimeField()
    is_public = models.BooleanField()
    is_baseline = models.BooleanField(default=False)
    uses_external_data = models.BooleanField(default=False)
    paper_url = models.URLField(blank=True)
    code_url = models.URLField(blank=True)
    declarations = models.JSONField(default=dict)
    # The exported method fields without a column here (``row_metadata``), by name, for the exports.
    metadata = models.JSONField(default=dict)
    # "|key=value|" tags of the declarations, so filters are plain substring tests in SQL.
    tags = models.TextField(blank=True)

    # The (team, method) half of the row's group: the method name without case or extra spaces.
    method_key = models.CharField(max_length=100)
    # Sort keys (``leaderboard.boards.placement.quality_key``/``tail_key``): ordering by
    # (quality, tail) is the board's ranking; rank and position are computed from them
    # when rows are read (DENSE_RANK/ROW_NUMBER), so a new row never rewrites others.
    quality = models.CharField(max_length=400)
    tail = models.CharField(max_length=60)
    # {column key: quality key} of every other sortable column.
    sort_keys = models.JSONField(default=dict)
    value = models.FloatField(null=True)
    spread = models.FloatField(null=True)
    n_seeds = models.PositiveSmallIntegerField(default=1)
    tied_with_leader = models.BooleanField(default=False)
    # The rule's p-value against the public leader (``leaderboard.boards.verdicts``): set for the rows
    # within reach of the leader; None for the leader, rows beyond reach and rows that cannot be tested.
    p_value = models.FloatField(null=True)
    # 95% interval of the ranking metric (bootstrap percentile, or t-interval over seeds; None: unknown).
    low = models.FloatField(null=True)
    high = models.FloatField(null=True)
    # ``scoring.replicates`` reach of the row, and value + reach in higher-is-better units: a row whose
    # best case is below the leader's value minus its reach is told apart from it without a test.
    reach = models.FloatField(null=True)
    best_case = models.FloatField(null=True)

    # Display metrics {key: value}.
    metrics = models.JSONField(default=dict)

    # A private board's row: the entry's rank and value on the public board at the reveal
    # (the "shake-up" is public_rank minus the private rank).
    public_rank = models.PositiveIntegerField(null=True, blank=True)
    public_value = models.FloatField(null=True, blank=True)

    objects = BoardRowQuerySet.as_manager()

    class Meta:
        indexes = [
            # The default page: WHERE board = ? AND is_public ORDER BY quality, tail LIMIT n,
            # with DENSE_RANK() OVER (ORDER BY quality) streamed from the same index.
            models.Index(fields=["board", "is_public", "quality", "tail"], name="boardrow_rank_idx"),
            # One board update: the rows of the changed submission's team and method.
            models.Index(fields=["board", "team", "method_key"], name="boardrow_group_idx"),
            # A new leader: the rows within its reach (``recompute._band``) ...
            models.Index(fields=["board", "best_case"], name="boardrow_band_idx"),
            # ... and the rows marked or tested under the old one (few: the top of the board).
            models.Index(
                fields=["board"],
                condition=models.Q(p_value__isnull=False) | models.Q(tied_with_leader=True),
                name="boardrow_verdict_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.method_name} ({self.team_name})"


def carried_fields(fields: Iterable[SubmissionField] = submission_fields.FIELDS) -> list[SubmissionField]:
    """The declared method fields a board row needs from its submission: the exported and the filtered ones."""
    return [f for f in fields if f.export or f.board_filter]


def metadata_fields(fields: Iterable[SubmissionField] = submission_fields.FIELDS) -> list[SubmissionField]:
    """The exported method fields that have no ``BoardRow`` column of their own, so live in its ``metadata``."""
    own = {f.name for f in BoardRow._meta.concrete_fields}
    return [f for f in fields if f.export and f.column_name not in own]


def row_metadata(columns: Mapping[str, Any], fields: Iterable[SubmissionField] = submission_fields.FIELDS) -> dict:
    """A row's ``metadata`` from its submission's columns: shown values (``shown_value``) by field name."""
    return {f.name: submission_fields.shown_value(f, columns.get(f.column_name)) for f in metadata_fields(fields)}


class BoardRowHistory(models.Model):
    """One public row of a board as it stood from ``valid_from`` until ``valid_to`` (None: it still does).

    Written by the worker whenever it writes a board (``leaderboard.boards.pinned.record``):
    only rows whose content changed open or close a period, so a board pinned to a
    moment (``?as_of=``) is read from this table alone, exactly as it stood then.
    """

    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="history")
    submission_id = models.UUIDField()  # not a key: the history outlives a deleted submission
    # The row's columns as the board query reads them (``pinned.HISTORY_COLUMNS``), as JSON.
    row = models.JSONField()
    # sha256 of ``row`` in canonical JSON: equal content, equal fingerprint.
    fingerprint = models.CharField(max_length=64)
    valid_from = models.DateTimeField()
    valid_to = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # A pinned view: WHERE board = ? AND valid_from <= T AND (valid_to IS NULL OR valid_to > T).
            models.Index(fields=["board", "valid_from"], name="boardrowhistory_asof_idx"),
            # Recording a board write: WHERE board = ? AND valid_to IS NULL (the rows standing now).
            models.Index(fields=["board", "valid_to"], name="boardrowhistory_open_idx"),
            # Recording one update: WHERE board = ? AND submission_id IN (...) AND valid_to IS NULL.
            models.Index(fields=["board", "submission_id"], name="boardrowhistory_entry_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.submission_id} on board {self.board_id} from {self.valid_from}"


class PendingBoardUpdate(models.Model):
    """A change a phase's boards have not taken in yet: the to-do list of the coalesced refresh.

    One row per change (``submission_id`` None: rebuild the phase from scratch). ``tasks.refresh_boards``
    takes every row of its phase in one run and deletes them after its work commits, so a burst of
    scores on one phase costs one or two refreshes and a lost run leaves its rows for the next.
    """

    phase = models.ForeignKey("challenges.Phase", on_delete=models.CASCADE, related_name="+")
    submission_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # The refresh's read (a phase's rows in order) and the "first pending row" check.
            models.Index(fields=["phase", "id"], name="pending_board_update_phase_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.phase_id}: {self.submission_id or 'rebuild'}"
