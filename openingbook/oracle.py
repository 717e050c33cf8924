"""Perfect play for batches of positions: every move's exact value as numpy arrays.

:class:`Oracle` answers a batch of B positions, given in any layout of
:mod:`openingbook.layouts` (move strings, PettingZoo, OpenSpiel and ConnectX
observations, plain arrays), with an :class:`OracleAnswer` of arrays:

* ``scores`` (B, 7): the Pons score of each column for the side to move (positive:
  it wins, ``22 - k`` on 7x6 for a win with its own k-th stone; 0 a draw; negative:
  it loses), :data:`FULL_COLUMN` (100, as the public solver API) for a full column;
* ``winners`` (B, 7): who wins after the move, +1 the first player, -1 the second,
  0 a draw; ``plies`` (B, 7): plies to the end of the game, the move included;
* ``optimal`` (B, 7): the moves of the highest score (fastest win, slowest loss);
* ``value``, ``value_winner``, ``value_plies`` (B,): the position's own value.

Where the answers come from: a position of up to 14 stones (7x6, shipped books)
by one vectorised ``lookup_many`` per stone count over the children of all its
rows in the distance book of their ply; a move that completes four by rule; every
other position by :meth:`openingbook.engine.Engine.move_scores` (the book-probing
search), one row at a time. Every answer is exact.

A row that is not a position of a game that goes on is refused: by default with
:class:`~openingbook.errors.InvalidArgument` naming the first such row and why; with
``status=True`` the answer's ``status`` (:data:`openingbook.layouts.ROW_STATUSES`)
and ``reasons`` report it, and the row's arrays hold :data:`UNKNOWN` (never a
made-up score).

>>> oracle = Oracle()
>>> answer = oracle.analyze(["", "4453"])
>>> answer.scores.tolist()
[[-2, -1, 0, 1, 0, -1, -2], [-5, -5, -2, -3, -4, -2, -2]]
>>> answer.value.tolist(), answer.optimal[1].nonzero()[0].tolist()
([1, -2], [2, 5, 6])
>>> answer = oracle.analyze(["4453", "1111111"], status=True)
>>> answer.status.tolist(), answer.reasons[1]
([0, 10], 'move 7 plays column 1, which is full')
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from openingbook.engine import SHIPPED, Engine, checked_time_limit
from openingbook.errors import InvalidArgument, SearchTimeout
from openingbook.layouts import Batch, read_batch
from openingbook.solver import (
    DEFAULT_BOARD,
    STATUS_OK,
    STATUS_TIMEOUT,
    UNSOLVED,
    BoardSize,
    Position,
    winning_cells_bits,
)
from openingbook.values import FULL_COLUMN, UNKNOWN, score_tables

__all__ = ["FULL_COLUMN", "Oracle", "OracleAnswer", "solver_api_scores"]


@dataclass
class OracleAnswer:
    """What :meth:`Oracle.analyze` answers for a batch of B positions (see the module
    docstring): ``scores``, ``winners``, ``plies``, ``optimal``, ``playable`` (B, W);
    ``value``, ``value_winner``, ``value_plies``, ``stones`` and ``status`` (B,);
    ``reasons`` (None for a row answered); the rows' bitboards ``first``/``mask``
    (uint64, 0 for a row that is not a position) and the ``layout`` the batch was read as."""

    scores: np.ndarray
    winners: np.ndarray
    plies: np.ndarray
    optimal: np.ndarray
    playable: np.ndarray
    value: np.ndarray
    value_winner: np.ndarray
    value_plies: np.ndarray
    stones: np.ndarray
    status: np.ndarray
    reasons: list[str | None]
    first: np.ndarray
    mask: np.ndarray
    layout: str

    def __len__(self) -> int:
        return len(self.status)

    @property
    def answered(self) -> np.ndarray:
        """(B,) bool: the rows answered (``status`` :data:`~openingbook.solver.STATUS_OK`)."""
        return self.status == STATUS_OK

    def best_columns(self) -> np.ndarray:
        """(B,) the 0-based optimal column nearest the centre (the left one of two as
        near), as :meth:`openingbook.engine.Engine.best` picks; -1 for a row not
        answered."""
        width = self.scores.shape[1]
        order = sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))
        ranked = self.optimal[:, order]
        best = np.asarray(order)[np.argmax(ranked, axis=1)]
        return np.where(ranked.any(axis=1), best, -1)


class Oracle:
    """Exact values of every move of batches of positions (see the module docstring).

    ``board``, ``books``, ``table_log2`` and ``time_limit`` are the
    :class:`~openingbook.engine.Engine`'s (default: 7x6 and the shipped books);
    ``engine``: an engine to use instead of making one. ``time_limit`` (seconds)
    bounds the searching of one :meth:`analyze` call: the rows not answered by then
    are refused (``status`` :data:`~openingbook.solver.STATUS_TIMEOUT`, or
    :class:`~openingbook.errors.SearchTimeout`). Not thread-safe, as the engine.
    """

    def __init__(
        self,
        board: BoardSize | tuple[int, int] | str | None = DEFAULT_BOARD,
        books: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None = SHIPPED,
        *,
        table_log2: int | None = None,
        time_limit: float | None = None,
        engine: Engine | None = None,
    ) -> None:
        if engine is None:
            engine = Engine(board, books, table_log2=table_log2, time_limit=time_limit)
        elif not isinstance(engine, Engine):
            raise InvalidArgument(f"expected an Engine, got {type(engine).__name__}")
        self.engine = engine
        self.board: BoardSize = engine.board
        #: the solver's kernel was asked for (its first use compiles while books are read)
        self._solver_started = False

    def close(self) -> None:
        """Close the engine's books (opened again when needed)."""
        self.engine.close()

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Oracle({self.engine!r})"

    # ------------------------------------------------------------ the answers
    def analyze(
        self,
        batch: Any,
        layout: str | None = None,
        *,
        rows: str = "top",
        relative: bool = False,
        action_mask: Any = None,
        marks: Any = None,
        status: bool = False,
        time_limit: float | None = None,
    ) -> OracleAnswer:
        """Every move's exact value for each position of ``batch``.

        ``layout``: one of :data:`openingbook.layouts.LAYOUTS` (None: told by the
        batch's type and shape); ``rows``, ``relative``, ``action_mask``, ``marks``:
        as :func:`openingbook.layouts.read_batch`. ``status``: report the rows that
        are not positions (or not answered in time) in the answer's ``status``
        instead of raising. ``time_limit``: for this call, instead of the engine's.
        """
        read = read_batch(
            batch,
            layout,
            board=self.board,
            rows=rows,
            relative=relative,
            action_mask=action_mask,
            marks=marks,
        )
        return self.answer(read, status=status, time_limit=time_limit)

    def analyze_bitboards(
        self,
        first: np.ndarray,
        mask: np.ndarray,
        *,
        status: bool = False,
        time_limit: float | None = None,
    ) -> OracleAnswer:
        """:meth:`analyze` for positions given as ``first``/``mask`` uint64 bitboards
        (:mod:`openingbook.solver.bitboards`), checked as any batch."""
        from openingbook.layouts import _check_positions, _empty

        first = np.asarray(first, np.uint64).reshape(-1)
        mask = np.asarray(mask, np.uint64).reshape(-1)
        if first.shape != mask.shape:
            raise InvalidArgument(f"first and mask differ in shape: {first.shape} vs {mask.shape}")
        read = _empty("bitboards", self.board, len(first))
        read.first[:], read.mask[:] = first, mask
        self._start_solver(np.bitwise_count(mask))  # before the checks' compile, on a first use
        _check_positions(read)
        return self.answer(read, status=status, time_limit=time_limit)

    def _start_solver(self, stones: np.ndarray) -> None:
        """When a position of ``stones`` stones may need a search: on a first use, start
        compiling the solver in a child process (on another core) while this one reads
        the books and compiles their reader; once per oracle, nothing once compiled."""
        if self._solver_started:
            return
        cells = self.board.cells
        if any(
            self.engine.searches_only(ply)
            for ply in np.unique(np.minimum(stones, cells - 1) + 1).tolist()
        ):
            self.engine.solver.warm_up(solve=False, wait=False)
            self._solver_started = True

    def answer(
        self, read: Batch, *, status: bool = False, time_limit: float | None = None
    ) -> OracleAnswer:
        """:meth:`analyze` for a batch already read (:func:`openingbook.layouts.read_batch`)."""
        if not status:
            read.check()
        start = time.perf_counter()
        if time_limit is None:
            time_limit = self.engine.time_limit
        else:
            time_limit = checked_time_limit(time_limit)
        deadline = None if time_limit is None else start + time_limit
        width, height = self.board
        n = len(read)
        first, mask = read.first, read.mask
        ok = read.status == STATUS_OK
        stones = read.stones
        bottom = _column_bits(width, height, 0)
        tops = _column_bits(width, height, height - 1)
        playable = ((mask[:, None] & tops[None, :]) == 0) & ok[:, None]
        # the cell a stone dropped in each column lands on (garbage where full)
        column = _column_bits(width, height, None)
        move = (mask[:, None] + bottom[None, :]) & column[None, :]
        current = np.where(stones % 2 == 0, first, first ^ mask)
        wins = (winning_cells_bits(current, mask, width, height)[:, None] & move) != 0
        wins &= playable
        score_of, plies_of = score_tables(self.board)
        scores = np.full((n, width), UNKNOWN, np.int16)
        safe_stones = np.clip(stones, 0, self.board.cells)
        win_now = score_of[safe_stones, 1]
        scores[wins] = np.broadcast_to(win_now[:, None], wins.shape)[wins]
        open_moves = playable & ~wins
        self._start_solver(stones[open_moves.any(axis=1)])
        child_first = np.where((stones % 2 == 0)[:, None], first[:, None] | move, first[:, None])
        child_mask = mask[:, None] | move
        self._book_scores(stones, open_moves, child_first, child_mask, scores)
        stopped = self._searched_scores(
            stones, open_moves, child_first, child_mask, scores, deadline
        )
        # the rows left: the engine (books to back up from or to probe), one row at a time
        for i in np.flatnonzero((open_moves & (scores == UNKNOWN)).any(axis=1)).tolist():
            if not stopped[i] and (deadline is None or time.perf_counter() < deadline):
                pos = Position.from_bitboards(
                    int(first[i]), int(mask[i]), width, height, check=False
                )
                found, unknown = self.engine.move_scores(pos, deadline)
                for col, (score, _source) in found.items():
                    scores[i, col] = score
                if not unknown:
                    continue
            # the time limit stopped the search of this row, or came before it
            if not status:
                raise SearchTimeout(
                    f"row {i} was not answered within the time limit of {time_limit} s"
                )
            read.status[i] = STATUS_TIMEOUT
            read.reasons[i] = f"not answered within the time limit of {time_limit} s"
        return _answer_arrays(read, scores, playable, plies_of)

    def _searched_scores(
        self,
        stones: np.ndarray,
        open_moves: np.ndarray,
        child_first: np.ndarray,
        child_mask: np.ndarray,
        scores: np.ndarray,
        deadline: float | None,
    ) -> np.ndarray:
        """Fill ``scores`` of the open moves left whose child positions the engine answers
        by its solver alone (:meth:`~openingbook.engine.Engine.searches_only`: past the
        books), all rows at once in one call of the solver's batch kernel. Returns (B,)
        bool: the rows with a child the ``deadline`` stopped (its score left
        :data:`UNKNOWN`)."""
        stopped = np.zeros(len(stones), bool)
        left = open_moves & (scores == UNKNOWN)
        plies = np.unique(stones[left.any(axis=1)] + 1).tolist()
        searched = [ply for ply in plies if self.engine.searches_only(ply)]
        if not searched:
            return stopped
        left &= np.isin(stones, np.asarray(searched) - 1)[:, None]
        rows, cols = np.nonzero(left)
        found = self.engine.solve_positions(
            child_first[rows, cols], child_mask[rows, cols], deadline
        )
        solved = found != UNSOLVED
        scores[rows[solved], cols[solved]] = -found[solved].astype(np.int16)
        stopped[rows[~solved]] = True
        return stopped

    def _book_scores(
        self,
        stones: np.ndarray,
        open_moves: np.ndarray,
        child_first: np.ndarray,
        child_mask: np.ndarray,
        scores: np.ndarray,
    ) -> None:
        """Fill ``scores`` of the open moves whose child position a book answers: one
        bulk lookup per ply over all the children of that ply."""
        for ply in np.unique(stones[open_moves.any(axis=1)] + 1).tolist():
            readers = self.engine.readers(ply)
            if not readers:
                continue
            ask = open_moves & (stones == ply - 1)[:, None]
            rows, cols = np.nonzero(ask)
            f, m = child_first[rows, cols], child_mask[rows, cols]
            for reader in readers:
                bulk = reader.lookup_many(f, m, strict=False)
                got = bulk.score != UNKNOWN
                scores[rows[got], cols[got]] = -bulk.score[got]
                keep = ~got
                rows, cols, f, m = rows[keep], cols[keep], f[keep], m[keep]
                if not rows.size:
                    break


def _column_bits(width: int, height: int, row: int | None) -> np.ndarray:
    """One bitboard per column: the cell of ``row`` (None: every cell of the column)."""
    h1 = height + 1
    if row is None:
        return np.array([((1 << height) - 1) << (c * h1) for c in range(width)], np.uint64)
    return np.array([1 << (c * h1 + row) for c in range(width)], np.uint64)


def _winner_codes(scores: np.ndarray, first_to_move: np.ndarray) -> np.ndarray:
    """Who wins (+1 the first player, -1 the second, 0 a draw) by Pons scores of the
    side to move (:func:`openingbook.solver.winner_from_score` for arrays)."""
    mover = np.where(first_to_move, 1, -1)
    return np.sign(scores).astype(np.int64) * mover


def _answer_arrays(
    read: Batch,
    scores: np.ndarray,
    playable: np.ndarray,
    plies_of: np.ndarray,
) -> OracleAnswer:
    """The answer's arrays from the move scores (:data:`UNKNOWN` where unknown)."""
    cells = read.board.cells
    stones = read.stones
    ok = read.status == STATUS_OK
    known = playable & (scores != UNKNOWN)
    scores = np.where(known, scores, UNKNOWN).astype(np.int16)
    full = ~playable & ok[:, None]
    first_moves = (stones % 2 == 0)[:, None]
    n2 = np.broadcast_to(np.clip(stones, 0, cells)[:, None], scores.shape)
    safe = np.where(known, scores, 0).astype(np.int64) + cells // 2
    plies = np.where(known, plies_of[n2, safe], UNKNOWN).astype(np.int16)
    winners = _winner_codes(scores, first_moves)
    winners = np.where(known, winners, UNKNOWN).astype(np.int8)
    value = np.where(ok, np.where(known, scores, -cells).max(axis=1), UNKNOWN).astype(np.int16)
    value = np.where(ok & known.any(axis=1), value, UNKNOWN).astype(np.int16)
    optimal = known & (scores == value[:, None]) & ok[:, None]
    has_value = value != UNKNOWN
    safe_value = np.where(has_value, value, 0).astype(np.int64) + cells // 2
    value_plies = np.where(has_value, plies_of[np.clip(stones, 0, cells), safe_value], UNKNOWN)
    value_winner = _winner_codes(value, stones % 2 == 0)
    value_winner = np.where(has_value, value_winner, UNKNOWN)
    scores[full] = FULL_COLUMN
    return OracleAnswer(
        scores=scores,
        winners=winners,
        plies=plies,
        optimal=optimal,
        playable=playable,
        value=value,
        value_winner=value_winner.astype(np.int8),
        value_plies=value_plies.astype(np.int16),
        stones=np.where(ok, stones, 0).astype(np.int8),
        status=read.status,
        reasons=read.reasons,
        first=read.first,
        mask=read.mask,
        layout=read.layout,
    )


def solver_api_scores(
    engine: Engine, first: np.ndarray, mask: np.ndarray, time_limit: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """The public solver API's scores of positions given as bitboards (``openingbook
    serve``, :data:`openingbook.explorer.solve.Scores`): ``(scores, answered)``, each
    row one score per column (:data:`FULL_COLUMN` for a full one), and whether the row
    was answered before ``time_limit`` seconds (for them all) ran out; an
    :class:`Oracle` of ``engine``, so a batch of book positions is a few vectorised
    lookups. The positions are of games that go on (the caller checked them).

    >>> p = Position.from_moves("4453")
    >>> first, mask = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    >>> scores, answered = solver_api_scores(Engine(), first, mask, None)
    >>> scores.tolist(), answered.tolist()
    ([[-5, -5, -2, -3, -4, -2, -2]], [True])
    """
    answer = Oracle(engine=engine).analyze_bitboards(
        first, mask, status=True, time_limit=time_limit
    )
    return answer.scores, answer.answered
