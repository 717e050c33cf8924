"""A labelled data set from a distance book: every move's exact value (``export -f npz``,
``-f parquet``).

A book of ``p`` stones holds the value of each of its positions, not of their
moves: the children of a ``p``-stone position have ``p + 1`` stones and are in
no book of that ply (searching them all, 23 million positions times 7 moves for
the 14-ply book, would take days). The positions one ply above the book are
another matter: every move of a ``p - 1``-stone position leads into the book
(or completes four, a win by rule), so each move's exact value is one lookup,
and the position's own value is the best of them (negamax over one ply, exact).
So the rows of the data set are **the positions of** ``p - 1`` **stones** (every
legal position that is not over, one of each mirror pair, those where the side
to move can win at once included), each with every column's exact value; the
values of the book's own positions are the rows' move values.

Columns (``N`` rows; the board of the book, ``H`` rows by ``W`` columns):

``board``
    ``(N, H, W)`` int8: 0 empty, 1 the first player's stone, 2 the second
    player's; **row 0 is the top row** (``board[i]`` prints as the board is
    seen; PettingZoo's, OpenSpiel's and Kaggle's order), column 0 the left one.
``to_move``
    ``(N,)`` int8: 1 or 2, the player to move.
``stones``
    ``(N,)`` int8: stones on the board (``p - 1``).
``scores``
    ``(N, W)`` int8: each column's Pons score for the side to move (positive:
    it wins, the sooner the higher; 0: draw; negative: it loses, the later the
    higher), :data:`~openingbook.values.FULL_COLUMN` (100) for a full column:
    the public solver's ``/solve`` answer (``docs/SERVE.md``).
``value``
    ``(N,)`` int8: the position's Pons score for the side to move (the best
    column's score).
``winner``
    ``(N,)`` int8: 1 the first player wins, 2 the second, 0 a draw (perfect play).
``plies``
    ``(N,)`` int8: plies to the end with perfect play (the winning stone, or the
    full board for a draw).
``first``, ``mask``
    ``(N,)`` uint64: the position as this library's bitboards (the first
    player's stones, the occupied cells; cell (column, row from the bottom) at
    bit ``column * (H + 1) + row``): ``openingbook.solver.Position.from_bitboards``.

>>> from openingbook.api import open_book
>>> from openingbook.formats import read_model
>>> with open_book("4-dist") as book:
...     rows = labelled_rows(read_model(book))
>>> rows.stones, len(rows)  # the 3-stone positions, one of each mirror pair
(3, 121)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from openingbook.checks.booksizes import estimated_positions
from openingbook.errors import BookFileError, InvalidArgument
from openingbook.solver import BoardSize, enumerate_positions, has_four_bits
from openingbook.values import FULL_COLUMN, UNKNOWN, BulkValues, score_tables

if TYPE_CHECKING:
    from openingbook.answers import BookReader
    from openingbook.model import BookModel

__all__ = [
    "COLUMNS",
    "LabelledRows",
    "labelled_rows",
]

#: the data set's columns, in the order they are written
COLUMNS = ("board", "to_move", "stones", "scores", "value", "winner", "plies", "first", "mask")
#: rows computed at once (bounds the memory of the per-move lookups: ~100 bytes a row)
CHUNK = 1 << 20
_U64 = np.uint64


@dataclass(frozen=True)
class LabelledRows:
    """The rows of the data set (see the module documentation) but their boards, which
    :meth:`board_chunks` makes a chunk at a time (42 bytes a row on 7x6)."""

    board_size: BoardSize
    stones: int
    first: np.ndarray
    mask: np.ndarray
    scores: np.ndarray
    value: np.ndarray
    winner: np.ndarray
    plies: np.ndarray

    def __len__(self) -> int:
        return int(self.first.size)

    def column(self, name: str, rows: slice = slice(None)) -> np.ndarray:
        """A column other than ``board`` (:data:`COLUMNS`): whole, or its ``rows``."""
        if name == "board":
            raise InvalidArgument("the boards come a chunk at a time: board_chunks()")
        if name in ("stones", "to_move"):  # one value for every row: made for those asked
            count = len(range(len(self))[rows])
            value = self.stones if name == "stones" else 1 + self.stones % 2
            return np.full(count, value, dtype=np.int8)
        return getattr(self, name)[rows]

    def board_chunks(self, chunk: int = CHUNK) -> Iterator[np.ndarray]:
        """The ``board`` column, ``chunk`` rows at a time."""
        for start in range(0, len(self), chunk):
            stop = start + chunk
            yield boards(self.first[start:stop], self.mask[start:stop], self.board_size)


def boards(first: np.ndarray, mask: np.ndarray, board: BoardSize) -> np.ndarray:
    """``(N, height, width)`` int8 boards, row 0 the top row: 0 empty, 1 first, 2 second.

    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("4453")
    >>> boards(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64),
    ...        BoardSize(7, 6))[0, -2:]
    array([[0, 0, 0, 2, 0, 0, 0],
           [0, 0, 2, 1, 1, 0, 0]], dtype=int8)
    """
    width, height = board
    first = np.asarray(first, dtype=_U64)
    mask = np.asarray(mask, dtype=_U64)
    out = np.empty((first.size, height, width), dtype=np.int8)
    for col in range(width):
        for row in range(height):
            bit = _U64(col * (height + 1) + row)
            occupied = ((mask >> bit) & _U64(1)).astype(np.int8)
            is_first = ((first >> bit) & _U64(1)).astype(np.int8)
            out[:, height - 1 - row, col] = occupied * (2 - is_first)
    return out


def labelled_rows(
    book: BookModel | BookReader, progress: Callable[[int, int], None] | None = None
) -> LabelledRows:
    """The rows of the data set of ``book`` (a complete distance book, or every
    position under a line shorter than its ply): the positions one ply above it, each
    move valued from the book. :class:`BookFileError` / :class:`InvalidArgument` for a
    book that cannot give every move's exact value.

    ``book``: a loaded model, or an open reader whose lookups read its file (a compact
    book: nothing of it loaded). ``progress(done, total)``: the rows valued, after each
    :data:`CHUNK` of them (first with an estimate of the total, before the positions
    are enumerated)."""
    source = str(book.path)
    if not _is_reader(book):
        book.require_distances("labelled data set")
    elif not book.has_distances:
        raise BookFileError(
            f"{source}: the labelled data set format stores the plies to the result, and "
            "this book has no distances: use a book built with --distances"
        )
    plies = int(book.plies or 0)
    if plies < 1:
        raise InvalidArgument(
            f"{source}: a book of 0 plies has no positions above it to label",
            argument="book",
        )
    scope = book.scope
    under = scope.under
    if not scope.known or scope.partial or (under is not None and len(under) >= plies):
        raise BookFileError(
            f"{source}: the book is {scope.describe()}; a labelled data set needs "
            "every move of the positions above it: a complete book, or every position "
            "under a line shorter than its ply"
        )
    stones = plies - 1
    board = book.board
    if progress is not None:  # about the book positions of that ply: fewer than the rows
        progress(0, (estimated_positions(board, stones) or 0) if under is None else 0)
    first, mask = enumerate_positions(stones, under, *board, drop_immediate_wins=False)
    scores = np.empty((first.size, board.width), dtype=np.int8)
    for start in range(0, first.size, CHUNK):
        part = slice(start, start + CHUNK)
        scores[part] = _move_scores(book, first[part], mask[part], stones)
        if progress is not None:
            progress(min(first.size, start + CHUNK), first.size)
    value, winner, plies_to_end = _own_values(scores, stones, board)
    return LabelledRows(board, stones, first, mask, scores, value, winner, plies_to_end)


def _answers(book: BookModel | BookReader, first: np.ndarray, mask: np.ndarray) -> BulkValues:
    """What ``book`` answers for positions of its ply (``UNKNOWN`` where it does not)."""
    if _is_reader(book):
        return book.lookup_many(first, mask, strict=False)
    return book.answers(first, mask)


def _is_reader(book: BookModel | BookReader) -> bool:
    """Is ``book`` an open reader (else a loaded model)? Asked of what it does, so that
    the data set, a format, imports neither."""
    return hasattr(book, "lookup_many")


def _move_scores(
    book: BookModel | BookReader, first: np.ndarray, mask: np.ndarray, stones: int
) -> np.ndarray:
    """``(N, width)`` Pons scores of every move for the side to move; FULL_COLUMN where
    the column is full."""
    width, height = book.board
    first_to_move = stones % 2 == 0
    win_now = int(score_tables(book.board)[0][stones, 1])
    out = np.full((first.size, width), FULL_COLUMN, dtype=np.int8)
    mover = first if first_to_move else first ^ mask
    for col in range(width):
        bottom = _U64(1 << (col * (height + 1)))
        top = _U64(1 << (col * (height + 1) + height - 1))
        playable = (mask & top) == 0
        child_mask = mask | (mask + bottom)
        stone = child_mask ^ mask
        child_first = first | stone if first_to_move else first
        wins = playable & has_four_bits(mover | stone, height)
        rest = playable & ~wins
        answers = _answers(book, child_first[rest], child_mask[rest])
        if (answers.score == UNKNOWN).any():
            missing = int((answers.score == UNKNOWN).sum())
            raise BookFileError(
                f"{book.path}: {missing:,} positions after a move are not in the book; "
                "its data set needs every one"
            )
        column = out[:, col]
        column[wins] = win_now
        column[rest] = -answers.score.astype(np.int16)
    return out


def _own_values(
    scores: np.ndarray, stones: int, board: BoardSize
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each position's value (the best move's score), winner (1 first, 2 second, 0 draw)
    and plies to the end; :data:`CHUNK` rows at a time (for the whole of a 14-stone data
    set at once, the temporaries were 0.8 GB)."""
    n = scores.shape[0]
    value, winner, plies = (np.empty(n, np.int8) for _ in range(3))
    mover = 1 + stones % 2
    plies_of = score_tables(board)[1]
    for start in range(0, n, CHUNK):
        rows = slice(start, start + CHUNK)
        part = scores[rows]
        best = np.where(part == FULL_COLUMN, np.int8(-127), part).max(axis=1)
        value[rows] = best
        winner[rows] = np.where(best > 0, mover, np.where(best < 0, 3 - mover, 0))
        plies[rows] = plies_of[stones, best.astype(np.int64) + board.cells // 2]
    return value, winner, plies
