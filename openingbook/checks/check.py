"""Check a book: :func:`check_book` reports what the file alone shows (mirror pairs
stored twice, first-player wins stored in a pruned book, positions whose side to move
wins at once) and re-solves records with the solver, in parallel like the build.

>>> ref = REFERENCE / "thill-original-book8.dat"
>>> report = check_book(ref)
>>> [(i.kind, i.count) for i in report.issues]
[('duplicate-mirror-pair', 5593)]
>>> report.ok
True
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np

from openingbook.checks.report import (
    PositionReport,
    Report,
    StoredValues,
    moves_of,
    position_report,
)
from openingbook.counts import solver_values
from openingbook.errors import InvalidArgument
from openingbook.formats import Layout, load_book
from openingbook.model import BookModel
from openingbook.solver import (
    BoardSize,
    can_win_next_bits,
    positions_with_moves,
)
from openingbook.values import VALUE_FIRST, distance_plies, first_player_winner

__all__ = ["CheckReport", "Issue", "check_book", "solve_book_values"]


@dataclass
class Issue:
    """One kind of problem found by :func:`check_book`, with examples."""

    severity: str  # "error" or "warning"
    kind: str
    count: int
    message: str
    examples: list[str] = field(default_factory=list)


@dataclass
class CheckReport(Report):
    """Result of :func:`check_book`. ``ok`` when there is no error (warnings allowed)."""

    book: str
    format: str
    records: int
    positions: int
    scope: str
    solved: int
    solved_absent: int
    disagreements: list[PositionReport]
    issues: list[Issue]
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.disagreements and not any(i.severity == "error" for i in self.issues)

    def lines(self) -> list[str]:
        out = [
            f"check {self.book}: {self.format}, {self.records} records, "
            f"{self.positions} positions ({self.scope})"
        ]
        for issue in self.issues:
            ex = f" (e.g. {', '.join(issue.examples[:5])})" if issue.examples else ""
            out.append(f"{issue.severity}: {issue.message}{ex}")
        for d in self.disagreements:
            out.append("solver disagrees:")
            out += ["  " + line for line in d.lines("book", "solver")]
        if self.solved or self.solved_absent:
            out.append(
                f"re-solved {self.solved} records"
                + (f" and {self.solved_absent} positions not stored" if self.solved_absent else "")
                + f": {len(self.disagreements)} disagree"
            )
        errors = sum(i.severity == "error" for i in self.issues) + len(self.disagreements)
        warnings = sum(i.severity == "warning" for i in self.issues)
        out.append(f"{'OK' if self.ok else 'FAILED'}: {errors} errors, {warnings} warnings")
        return out


def check_book(
    path: str | os.PathLike[str],
    sample: int | None = None,
    all_records: bool = False,
    absent: int | None = None,
    seed: int = 0,
    jobs: int | None = None,
    executor: str = "pool",
    table_log2: int | None = None,
    scheduler: str | None = None,
    layout: Layout | None = None,
) -> CheckReport:
    """Check a book from the file alone, then re-solve records with the solver.

    Format errors (bad values, unsorted or repeated keys, illegal positions) raise
    :class:`openingbook.errors.BookFileError`. Then: mirror pairs stored twice
    (warning; an error when the two records disagree), first-player wins stored
    in a pruned book (warning), positions whose side to move can win at once
    (warning: not in Thill's set). ``sample`` records picked with ``seed`` (or
    every record with ``all_records``) are re-solved; ``absent``: also solve that
    many book positions a pruned book does not store (they must be first-player
    wins). Solving runs on ``jobs`` worker processes with the build's executors.
    ``layout``: the record layout of a Thill-layout book, when it is not detected
    (manifest, name, content).
    """
    start = time.perf_counter()
    from openingbook.memory import check_table_size, default_jobs

    # before reading the book; a scheduler's workers are on other machines
    check_table_size(table_log2, 0 if scheduler else jobs or default_jobs())
    book = load_book(path, layout=layout, complete=False)
    stored_book = StoredValues.of(book)
    issues: list[Issue] = []
    if book.stored is not None:  # another format's reader has checked its file already
        _file_issues(book, issues)
    rng = np.random.default_rng(seed)
    picks = np.empty(0, np.int64)
    count = stored_book.records if book.stored is not None else stored_book.positions
    if all_records:
        picks = np.arange(count)
    elif sample:
        if sample < 0:
            raise InvalidArgument("must be at least 0", argument="sample", value=sample)
        picks = np.sort(rng.choice(count, size=min(sample, count), replace=False))
    absent_first = absent_mask = np.empty(0, np.uint64)
    if absent:
        if stored_book.distances or book.scope.partial or book.stored is None:
            raise InvalidArgument(
                "needs a pruned book that holds every position of its scope", argument="absent"
            )
        f, m, _ = positions_with_moves(book.plies, book.scope.under, *book.board)
        missing = np.flatnonzero(book.find(f, m) < 0)
        chosen = rng.choice(missing, size=min(absent, len(missing)), replace=False)
        absent_first, absent_mask = f[np.sort(chosen)], m[np.sort(chosen)]
    first = np.concatenate([stored_book.first[picks], absent_first])
    mask = np.concatenate([stored_book.mask[picks], absent_mask])
    expected = np.concatenate(
        [stored_book.values[picks], np.full(len(absent_first), VALUE_FIRST, np.int8)]
    )
    stored = np.concatenate([np.ones(len(picks), bool), np.zeros(len(absent_first), bool)])
    disagreements: list[PositionReport] = []
    if len(first):
        solved = solve_book_values(
            first,
            mask,
            book.plies,
            stored_book.distances,
            jobs,
            executor,
            table_log2,
            scheduler,
            board=book.board,
        )
        for i in np.flatnonzero(solved != expected):
            a = _book_value_entry(int(expected[i]), stored_book.distances, bool(stored[i]))
            b = _book_value_entry(int(solved[i]), stored_book.distances, True)
            disagreements.append(position_report(first[i], mask[i], None, a, b, book.board))
    return CheckReport(
        book=str(book.path),
        format=stored_book.format,
        records=stored_book.records,
        positions=stored_book.positions,
        scope=book.scope.describe(),
        solved=len(picks),
        solved_absent=len(absent_first),
        disagreements=disagreements,
        issues=issues,
        seconds=round(time.perf_counter() - start, 3),
    )


def _book_value_entry(value: int, distances: bool, stored: bool) -> tuple[bool, int, int, bool]:
    if distances:
        if value == 0:
            return True, 0, -1, stored
        return True, 1 if value > 0 else -1, int(distance_plies(np.array([value]))[0]), stored
    return True, int(first_player_winner(np.array([value]))[0]), -1, stored


def _file_issues(book: BookModel, issues: list[Issue]) -> None:
    """What a Thill-layout file's records alone show beyond format errors."""
    assert book.stored is not None  # loaded as stored: one position per record
    order, keys = book.key_order
    repeat = np.flatnonzero(keys[1:] == keys[:-1]) + 1
    if len(repeat):
        values = solver_values(book)[order]
        conflict = repeat[values[repeat] != values[repeat - 1]]
        same = np.setdiff1d(repeat, conflict)
        if len(same):
            issues.append(
                Issue(
                    "warning",
                    "duplicate-mirror-pair",
                    len(same),
                    f"{len(same)} positions are stored in both mirror variants with the same "
                    "value (harmless: readers search both)",
                    [moves_of(book, int(order[i])) for i in same[:5]],
                )
            )
        if len(conflict):
            issues.append(
                Issue(
                    "error",
                    "conflicting-mirror-pair",
                    len(conflict),
                    f"{len(conflict)} positions are stored in both mirror variants with "
                    "different values (a reader's answer depends on its search order)",
                    [moves_of(book, int(order[i])) for i in conflict[:5]],
                )
            )
    if not book.has_distances:
        first_wins = np.flatnonzero(book.winner == 1)
        if len(first_wins):
            issues.append(
                Issue(
                    "warning",
                    "first-player-win-stored",
                    len(first_wins),
                    f"{len(first_wins)} first-player wins are stored in a pruned book "
                    "(valid, but the pruning rule makes them redundant)",
                    [moves_of(book, int(i)) for i in first_wins[:5]],
                )
            )
    wins_now = np.flatnonzero(can_win_next_bits(book.first, book.mask, *book.board))
    if len(wins_now):
        issues.append(
            Issue(
                "warning",
                "immediate-win-stored",
                len(wins_now),
                f"{len(wins_now)} stored positions let the side to move complete four at once "
                "(not in Thill's set of book positions)",
                [moves_of(book, int(i)) for i in wins_now[:5]],
            )
        )


def solve_book_values(
    first: np.ndarray,
    mask: np.ndarray,
    plies: int,
    distances: bool,
    jobs: int | None = None,
    executor: str = "pool",
    table_log2: int | None = None,
    scheduler: str | None = None,
    chunk: int = 64,
    *,
    board: BoardSize,
) -> np.ndarray:
    """Book values (distance bytes, or 0/1/2) of positions, solved in parallel.

    Uses the build's worker (one solver per worker process, table kept between
    chunks) and executors; results come back in input order. ``board``: the
    positions' board size.
    """
    from openingbook.memory import worker_count
    from openingbook.pipeline.executors import make_executor
    from openingbook.pipeline.solving import (
        ChunkTask,
        init_worker,
        load_worker_kernel,
        solve_chunk,
    )

    n = len(first)
    if not scheduler:  # local workers: no more than the chunks or the memory
        jobs = worker_count(jobs, table_log2, max(1, -(-n // chunk)))
    tasks = [
        ChunkTask(i, first[s : s + chunk], mask[s : s + chunk], plies, distances, table_log2, board)
        for i, s in enumerate(range(0, n, chunk))
    ]
    out = np.empty(n, np.int8)
    if tasks and not scheduler:  # workers on this machine load what this process compiles
        load_worker_kernel(board)
    with make_executor(
        executor, jobs, scheduler, initializer=init_worker, initargs=(table_log2, board)
    ) as ex:
        for result in ex.map_unordered(solve_chunk, tasks):
            s = result.chunk_id * chunk
            out[s : s + len(result.values)] = result.values
    return out
