"""The worker side of solving positions in chunks: one solver per worker, created on
first use and kept (its table stays warm), and one chunk solved into book values.

What the build (:mod:`openingbook.pipeline.build`) and ``check``'s re-solving
(:mod:`openingbook.checks.check`) hand to their executors
(:mod:`openingbook.pipeline.executors`), and the lower bounds a book of the ply before
proves for a chunk's positions (:func:`parent_lower_bounds`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from openingbook.pipeline.workdir import ChunkResult
from openingbook.solver import NO_LOWER_BOUND, BoardSize
from openingbook.values import UNKNOWN, book_values

__all__ = [
    "ChunkTask",
    "init_worker",
    "load_worker_kernel",
    "parent_lower_bounds",
    "solve_chunk",
    "start_worker_kernel",
]


@dataclass(frozen=True)
class ChunkTask:
    """What a worker needs to solve one chunk (small and picklable)."""

    chunk_id: int
    first: np.ndarray
    mask: np.ndarray
    stones: int
    exact: bool
    table_log2: int | None
    board: BoardSize
    #: each position's proven lower bound (int8, ``openingbook.solver.NO_LOWER_BOUND``: none), or
    #: None
    lower: np.ndarray | None = None


_worker = threading.local()  # one solver per worker thread (dask may run threads)


def _worker_solver(table_log2: int | None, board: BoardSize) -> Any:
    """This worker's solver, created on first use and kept (its table stays warm)."""
    solver = getattr(_worker, "solver", None)
    settings = (table_log2, tuple(board))
    if solver is None or getattr(_worker, "settings", None) != settings:
        from openingbook.solver import Solver

        sized = {} if table_log2 is None else {"table_log2": table_log2}
        solver = Solver(width=board.width, height=board.height, **sized)
        _worker.solver = solver
        _worker.settings = settings
    return solver


def init_worker(table_log2: int | None, board: BoardSize) -> None:
    """Executor initializer: create the worker's solver and load its compiled code
    (that of :meth:`~openingbook.solver.Solver.solve_many`, all a worker runs).

    Done before the first task so that the chunks' CPU times measure solving only.
    """
    _worker_solver(table_log2, BoardSize(*board)).warm_up(solve=False)


def load_worker_kernel(board: BoardSize) -> None:
    """Compile (or load from the cache) in this process the kernel the workers run, for
    ``board``: started after it, workers on this machine load it from the cache instead
    of each compiling it (the native cache's library is built once, here)."""
    _tiny_solver(board).warm_up(solve=False)


def start_worker_kernel(board: BoardSize) -> None:
    """Start what :func:`load_worker_kernel` will do: on a first use the kernel compiles
    in a child process meanwhile (``Solver.warm_up(wait=False)``), while this process
    enumerates the positions; otherwise nothing."""
    _tiny_solver(board).warm_up(solve=False, wait=False)


def _tiny_solver(board: BoardSize) -> Any:
    from openingbook.solver import Solver, tiny_table_log2

    return Solver(tiny_table_log2(*board), width=board.width, height=board.height)


def solve_chunk(task: ChunkTask) -> ChunkResult:
    """Solve one chunk in a worker; CPU time is the search's (in whichever thread the
    solver ran it) and the worker thread's own."""
    board = BoardSize(*task.board)
    solver = _worker_solver(task.table_log2, board)
    searched = solver.stats.cpu_seconds
    raw = solver.solve_many(task.first, task.mask, wdl=not task.exact, lower=task.lower)
    start = time.thread_time()
    values = book_values(raw, task.stones, task.exact, board)
    cpu = solver.stats.cpu_seconds - searched + time.thread_time() - start
    return ChunkResult(task.chunk_id, task.first, task.mask, values, cpu)


def parent_lower_bounds(parents: Any, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Lower bounds of the scores of positions of one ply, proven by ``parents``, an open
    distance book (:class:`openingbook.answers.BookReader`) of the ply before.

    A position's parents are the position less a top stone of the player who moved last;
    a parent's score is the best of its children's negated scores, so no child scores
    less than minus it (negamax). The bound is the best over the parents the book answers
    (a parent no game reaches, or outside the book's scope, proves nothing);
    ``openingbook.solver.NO_LOWER_BOUND`` where none answers. ``int8``, for
    :meth:`openingbook.solver.Solver.solve_many`'s ``lower``.

    >>> from openingbook.formats import open_book
    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("4455")
    >>> first, mask = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    >>> with open_book("3-dist") as book:  # its parents "445" and "554" score 2 and 0
    ...     parent_lower_bounds(book, first, mask).tolist()
    [0]
    """
    width, height = parents.board
    first = np.asarray(first, np.uint64)
    mask = np.asarray(mask, np.uint64)
    # the last stone was the first player's after an odd number of stones
    first_moved_last = np.bitwise_count(mask) % 2 == 1
    last_mover = np.where(first_moved_last, first, first ^ mask)
    bounds = np.full(first.shape, NO_LOWER_BOUND, np.int64)
    for col in range(width):
        bottom = np.uint64(1 << (col * (height + 1)))
        column = np.uint64(((1 << height) - 1) << (col * (height + 1)))
        stones = mask & column
        # a column's stones are a run from its bottom cell: adding the bottom cell carries
        # to the cell above the run, and one shift down is the top stone
        top = ((stones + bottom) >> np.uint64(1)) & stones
        rows = np.flatnonzero((top & last_mover) != 0)
        if not rows.size:
            continue
        lifted = top[rows]
        parent_first = np.where(first_moved_last[rows], first[rows] ^ lifted, first[rows])
        answers = parents.lookup_many(parent_first, mask[rows] ^ lifted, strict=False)
        known = answers.score != UNKNOWN
        bound = -answers.score[known].astype(np.int64)
        np.maximum.at(bounds, rows[known], bound)
    return bounds.astype(np.int8)
