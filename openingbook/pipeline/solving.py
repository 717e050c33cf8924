"""The worker side of solving positions in chunks: one solver per worker, created on
first use and kept (its table stays warm), and one chunk solved into book values.

What the build (:mod:`openingbook.pipeline.build`) and ``check``'s re-solving
(:mod:`openingbook.checks.check`) hand to their executors
(:mod:`openingbook.pipeline.executors`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from openingbook.pipeline.workdir import ChunkResult
from openingbook.values import book_values
from solver import BoardSize

__all__ = ["ChunkTask", "init_worker", "load_worker_kernel", "solve_chunk", "start_worker_kernel"]


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


_worker = threading.local()  # one solver per worker thread (dask may run threads)


def _worker_solver(table_log2: int | None, board: BoardSize) -> Any:
    """This worker's solver, created on first use and kept (its table stays warm)."""
    solver = getattr(_worker, "solver", None)
    settings = (table_log2, tuple(board))
    if solver is None or getattr(_worker, "settings", None) != settings:
        from solver import Solver

        sized = {} if table_log2 is None else {"table_log2": table_log2}
        solver = Solver(width=board.width, height=board.height, **sized)
        _worker.solver = solver
        _worker.settings = settings
    return solver


def init_worker(table_log2: int | None, board: BoardSize) -> None:
    """Executor initializer: create the worker's solver and load its compiled code
    (that of :meth:`~solver.Solver.solve_many`, all a worker runs).

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
    from solver import Solver, min_table_log2

    return Solver(max(10, min_table_log2(board.width * (board.height + 1))), width=board.width,
                  height=board.height)  # fmt: skip


def solve_chunk(task: ChunkTask) -> ChunkResult:
    """Solve one chunk in a worker; CPU time is the search's (in whichever thread the
    solver ran it) and the worker thread's own."""
    board = BoardSize(*task.board)
    solver = _worker_solver(task.table_log2, board)
    searched = solver.stats.cpu_seconds
    raw = solver.solve_many(task.first, task.mask, wdl=not task.exact)
    start = time.thread_time()
    values = book_values(raw, task.stones, task.exact, board)
    cpu = solver.stats.cpu_seconds - searched + time.thread_time() - start
    return ChunkResult(task.chunk_id, task.first, task.mask, values, cpu)
