"""Book values and what they mean: the one home of every value conversion.

* **Pruned** (win/draw/loss) books store two bits, from the first player's side:
  :data:`VALUE_DRAW` 0, :data:`VALUE_SECOND` 1 (second player wins),
  :data:`VALUE_FIRST` 2 (first player wins; the pruning rule leaves these out).
* **Distance** books store a signed byte: 0 draw, ``100 - d`` when the first
  player wins ``d`` plies from the position, ``d - 100`` when the second does.
* **Pons scores** are from the side to move: ``cells/2 + 1 - k`` for a win with
  its ``k``-th stone (``22 - k`` on 7x6; :func:`openingbook.solver.score_from_plies`,
  :func:`openingbook.solver.plies_from_score`).
* **Winner codes** in arrays: +1 first player, -1 second, 0 draw, and
  :data:`UNKNOWN` (-128) for "not known"; :data:`WINNERS` maps them to
  :class:`openingbook.solver.Winner`, whose values are the names ``first``/``second``/``draw``.

Plies and scores depend on the board (its number of cells): every function that
converts between them takes the book's :class:`openingbook.solver.BoardSize`; none assumes 7x6.

And the single rule for a position a book holds but does not store
(:func:`unstored_value`, :func:`unstored_answers`): when the side to move can
complete four at once it wins in 1 ply (such positions are never stored);
otherwise, in a pruned book whose scope is known to be complete around the
position, the first player wins (the pruning rule); otherwise the book does not
know.

>>> from openingbook.solver import BoardSize
>>> first_player_winner(np.array([0, 1, 2])).tolist()
[0, -1, 1]
>>> distance_bytes_from_scores(np.array([14, -15, 0]), 12, BoardSize(7, 6)).tolist()
[97, -98, 0]
>>> value_from_score(-2, 12, BoardSize(6, 6))  # 36 cells: 22 plies to the last stone
BookValue(winner=<Winner.SECOND: 'second'>, plies=22, score=-2)
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

# the solver's InvalidArgument is the library's (openingbook.errors re-exports it): values
# import nothing of the library, so every module that reads values stands one layer lower
from openingbook.solver import (
    BoardSize,
    InvalidArgument,
    Winner,
    plies_from_score,
    score_bounds,
    score_from_plies,
    stone_counts,
)

__all__ = [
    "FULL_COLUMN",
    "KINDS",
    "UNKNOWN",
    "VALUE_DRAW",
    "VALUE_ENCODINGS",
    "VALUE_FIRST",
    "VALUE_SECOND",
    "WINNERS",
    "WINNER_CODES",
    "BookValue",
    "BulkValues",
    "answer_tables",
    "book_value",
    "book_values",
    "byte_tables",
    "distance_bytes_from_scores",
    "distance_plies",
    "first_player_winner",
    "invalid_values",
    "pruned_values",
    "score_tables",
    "scores_from_distance_bytes",
    "unstored_answers",
    "unstored_value",
    "value_from_arrays",
    "value_from_plies",
    "value_from_score",
    "value_tables",
    "wdl_from_pruned_values",
]

#: Two-bit values of pruned books (first player's view).
VALUE_DRAW = 0
VALUE_SECOND = 1
VALUE_FIRST = 2

#: Marks "not known" in arrays of winners, plies and scores.
UNKNOWN = -128

#: The score of a full column where every column of a position is scored (the public
#: solver's ``/solve`` answer, ``openingbook serve``, the labelled data set): above
#: every Pons score of every board this project handles.
FULL_COLUMN = 100

#: Winner codes (+1 first player, -1 second, 0 draw) and the :class:`openingbook.solver.Winner`
#: they stand for (``WINNERS[code].value`` is the name: first, second, draw).
WINNERS = {1: Winner.FIRST, -1: Winner.SECOND, 0: Winner.DRAW}
WINNER_CODES = {winner: code for code, winner in WINNERS.items()}

#: a book's ``kind``, what its answers tell: win/draw/loss only, plies to the end, Pons
#: scores (the encoding of its stored values is another thing: :data:`VALUE_ENCODINGS`)
KINDS = ("wdl", "distance", "score")


class BookValue(NamedTuple):
    """A book's answer for one position (and the engine's value of one)."""

    winner: Winner
    plies: int | None
    score: int | None


class BulkValues(NamedTuple):
    """Answers for arrays of positions (one element per position).

    ``index``: the record that answered (-1 where nothing is stored);
    ``winner``: +1 first player, -1 second, 0 draw (:data:`UNKNOWN` where not known);
    ``plies`` and ``score`` as in :class:`BookValue`, :data:`UNKNOWN` for ``None``.
    """

    index: np.ndarray
    winner: np.ndarray
    plies: np.ndarray
    score: np.ndarray


def value_from_arrays(winner: int, plies: int, score: int) -> BookValue:
    """One :class:`BookValue` from the ints of a :class:`BulkValues` row (:data:`UNKNOWN`
    -> None).

    >>> value_from_arrays(1, -128, -128)
    BookValue(winner=<Winner.FIRST: 'first'>, plies=None, score=None)
    """
    return BookValue(
        WINNERS[winner],
        None if plies == UNKNOWN else plies,
        None if score == UNKNOWN else score,
    )


# ------------------------------------------------------------------ pruned values
def first_player_winner(values: np.ndarray) -> np.ndarray:
    """Winner codes (+1 first, -1 second, 0 draw) of pruned-book values."""
    v = np.asarray(values)
    return np.where(v == VALUE_FIRST, 1, np.where(v == VALUE_SECOND, -1, 0)).astype(np.int8)


def pruned_values(winner: np.ndarray) -> np.ndarray:
    """Pruned-book values (2 first wins, 1 second wins, 0 draw) of winner codes.

    >>> pruned_values(np.array([1, -1, 0])).tolist()
    [2, 1, 0]
    """
    w = np.asarray(winner)
    return np.where(w > 0, VALUE_FIRST, np.where(w < 0, VALUE_SECOND, VALUE_DRAW)).astype(np.int8)


def wdl_from_pruned_values(values: np.ndarray, stones: int) -> np.ndarray:
    """Side-to-move -1/0/+1 from pruned-book values at ``stones`` stones.

    >>> wdl_from_pruned_values(np.array([0, 1, 2]), 8).tolist()
    [0, -1, 1]
    """
    first_view = first_player_winner(values)
    return (first_view if stones % 2 == 0 else -first_view).astype(np.int8)


# ------------------------------------------------------------------ distance bytes
def distance_plies(distance: np.ndarray) -> np.ndarray:
    """Plies to the winning stone of distance bytes (0 for a draw).

    >>> distance_plies(np.array([97, -98, 0], np.int8)).tolist()
    [3, 2, 0]
    """
    v = np.asarray(distance).astype(np.int16)
    return np.where(v == 0, 0, 100 - np.abs(v)).astype(np.int16)


def invalid_values(
    values: np.ndarray, stones: int, distances: bool, board: BoardSize
) -> np.ndarray:
    """Values a book of ``stones``-stone positions on ``board`` cannot hold: pruned 0-2;
    distance 0 or ``d`` in ``1..cells-stones``.

    >>> invalid_values(np.array([97, 70, 69]), 12, True, BoardSize(7, 6)).tolist()
    [False, False, True]
    """
    v = np.asarray(values).astype(np.int64)
    if not distances:
        return (v < 0) | (v > VALUE_FIRST)
    d = 100 - np.abs(v)
    return (v != 0) & ((d < 1) | (stones + d > board.cells))


def scores_from_distance_bytes(
    distance: np.ndarray, stones: int, board: BoardSize
) -> tuple[np.ndarray, np.ndarray]:
    """Pons scores (side to move) of positions with ``stones`` stones from distance bytes.

    Returns ``(scores, consistent)``; ``consistent`` is False where the byte cannot
    be right: a win ``d`` plies away must be played by the winner (odd ``d`` for
    the side to move), and the board must have room for it.

    >>> scores_from_distance_bytes(np.array([97, -98, 0], np.int8), 12, BoardSize(7, 6))[0].tolist()
    [14, -15, 0]
    """
    cells = board.cells
    v = np.asarray(distance).astype(np.int16)
    a_to_move = stones % 2 == 0
    plies = distance_plies(v)
    mover_wins = (v > 0) == a_to_move
    score_of = score_tables(board)[0][min(stones, cells)]
    in_range = (plies >= 1) & (plies <= cells - stones)
    consistent = (v == 0) | (in_range & ((plies % 2 == 1) == mover_wins))
    out = np.where((v == 0) | ~in_range, 0, score_of[np.clip(plies, 0, cells)]).astype(np.int8)
    return out, consistent


def distance_bytes_from_scores(scores: np.ndarray, stones: int, board: BoardSize) -> np.ndarray:
    """Thill's signed distance bytes for Pons scores at ``stones`` stones on ``board``.

    ``100 - d`` when the first player wins in ``d`` plies, ``d - 100`` when the
    second player does, ``0`` for a draw.
    """
    s = np.asarray(scores).astype(np.int16)
    half = board.cells // 2
    plies = score_tables(board)[1][stones, s + half]
    a_to_move = stones % 2 == 0
    first_wins = (s > 0) == a_to_move
    return np.where(s == 0, 0, np.where(first_wins, 100 - plies, plies - 100)).astype(np.int8)


def book_values(raw: np.ndarray, stones: int, exact: bool, board: BoardSize) -> np.ndarray:
    """Book values from solver output at positions with ``stones`` stones on ``board``.

    ``exact``: ``raw`` are Pons scores, the result distance bytes; otherwise
    ``raw`` is -1/0/+1 for the side to move, the result 0 draw / 1 second
    player wins / 2 first player wins.

    >>> book_values(np.array([14, -15, 0]), 12, exact=True, board=BoardSize(7, 6)).tolist()
    [97, -98, 0]
    >>> book_values(np.array([1, -1, 0]), 12, exact=False, board=BoardSize(7, 6)).tolist()
    [2, 1, 0]
    """
    raw = np.asarray(raw)
    if exact:
        return distance_bytes_from_scores(raw, stones, board)
    return pruned_values(raw if stones % 2 == 0 else -raw)


# ------------------------------------------------------------------ lookup tables
@functools.cache
def score_tables(board: BoardSize) -> tuple[np.ndarray, np.ndarray]:
    """``SCORE_OF[stones, plies]`` of a decided game and ``PLIES_OF[stones, score + cells // 2]``
    on ``board`` (:data:`UNKNOWN` where impossible; read-only arrays).

    >>> score_of, plies_of = score_tables(BoardSize(6, 6))
    >>> int(score_of[12, 3]), int(plies_of[12, 11 + 18])
    (11, 3)
    """
    cells = board.cells
    half = cells // 2
    score_of = np.full((cells + 1, cells + 1), UNKNOWN, dtype=np.int16)
    plies_of = np.full((cells + 1, 2 * half + 2), UNKNOWN, dtype=np.int16)
    for stones in range(cells + 1):
        for plies in range(1, cells - stones + 1):
            score_of[stones, plies] = score_from_plies(plies, stones, *board)
        low, high = score_bounds(stones, *board)
        for score in range(low, high + 1):
            plies_of[stones, score + half] = plies_from_score(score, stones, *board)
    score_of.flags.writeable = plies_of.flags.writeable = False
    return score_of, plies_of


#: The value encodings of :func:`answer_tables`: Thill's pruned 0/1/2 and distance
#: bytes, win/draw/loss codes (+1/0/-1, first player's view) and Pons scores (side to
#: move). Not a book's ``kind`` (:data:`KINDS`: what its answers tell), which an
#: encoding gives (a pruned book's is ``"wdl"``).
VALUE_ENCODINGS = ("pruned", "distance", "wdl", "score")
_PRUNED_CODES = {VALUE_DRAW: 0, VALUE_SECOND: -1, VALUE_FIRST: 1}


def answer_tables(
    encoding: str, stones: int, values: np.ndarray, board: BoardSize
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Winner code, plies, score and validity of each of ``values`` (of ``encoding``, at
    ``stones`` stones on ``board``); int16 arrays with :data:`UNKNOWN` where not known.

    A faulty distance (the winner cannot place the last stone) keeps its winner and
    distance, its score stays unknown; a value the board cannot have is not valid.

    >>> w, p, s, ok = answer_tables("score", 12, np.array([14, 0, 40]), BoardSize(7, 6))
    >>> w.tolist(), p.tolist(), s.tolist(), ok.tolist()
    ([1, 0, -128], [3, 30, -128], [14, 0, -128], [True, True, False])
    """
    if encoding not in VALUE_ENCODINGS:
        raise InvalidArgument(
            f"unknown value encoding {encoding!r}: choose one of {', '.join(VALUE_ENCODINGS)}"
        )
    cells, n = board.cells, stones
    first_to_move = n % 2 == 0
    values = np.asarray(values).astype(np.int64).tolist()
    size = len(values)
    winner = np.full(size, UNKNOWN, dtype=np.int16)
    plies = np.full(size, UNKNOWN, dtype=np.int16)
    score = np.full(size, UNKNOWN, dtype=np.int16)
    valid = np.zeros(size, dtype=bool)
    low, high = score_bounds(n, *board) if n <= cells else (1, 0)
    for i, v in enumerate(values):
        if encoding in ("pruned", "wdl"):
            code = (
                _PRUNED_CODES.get(v) if encoding == "pruned" else (v if v in (-1, 0, 1) else None)
            )
            if code is not None:
                winner[i], valid[i] = code, True
                if code == 0:
                    score[i] = 0
        elif encoding == "score":
            if low <= v <= high:
                winner[i] = 0 if v == 0 else (1 if (v > 0) == first_to_move else -1)
                plies[i], score[i], valid[i] = plies_from_score(v, n, *board), v, True
        elif v == 0:
            winner[i], plies[i], score[i], valid[i] = 0, cells - n, 0, n <= cells
        else:
            d = 100 - abs(v)
            if 1 <= d <= cells - n:
                winner[i], plies[i], valid[i] = (1 if v > 0 else -1), d, True
                # the player who places stone n + d wins: the side to move on odd d
                if (d % 2 == 1) == ((v > 0) == first_to_move):
                    score[i] = score_from_plies(d, n, *board)
    return winner, plies, score, valid


@functools.cache
def byte_tables(
    encoding: str, stones: int, board: BoardSize
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`answer_tables` of every value byte (indexed by the byte as uint8) of
    ``encoding`` at ``stones`` stones on ``board``: a whole array of values is answered by indexing,
    ``table[values.view(np.uint8)]``, at numpy speed (read-only, cached)."""
    every_byte = np.arange(256, dtype=np.uint8).view(np.int8)
    tables = answer_tables(encoding, stones, every_byte, board)
    for table in tables:
        table.flags.writeable = False
    return tables


def value_tables(
    stones: int, distances: bool, board: BoardSize
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`byte_tables` of a Thill-layout book of ``stones``-stone positions on
    ``board``: distance bytes, or pruned codes."""
    return byte_tables("distance" if distances else "pruned", stones, board)


# ------------------------------------------------------------------ one answer
def book_value(winner: int, plies: int, score: int) -> BookValue | None:
    """The :class:`BookValue` of a winner code, plies and score (:data:`UNKNOWN` for
    None); None when the winner is unknown.

    >>> book_value(1, UNKNOWN, UNKNOWN)
    BookValue(winner=<Winner.FIRST: 'first'>, plies=None, score=None)
    """
    if winner == UNKNOWN:
        return None
    return BookValue(
        WINNERS[int(winner)],
        None if plies == UNKNOWN else int(plies),
        None if score == UNKNOWN else int(score),
    )


def value_from_plies(winner: int, plies: int | None, stones: int, board: BoardSize) -> BookValue:
    """A :class:`BookValue` from a first-player result code and plies to the result.

    Raises ``ValueError`` when the plies cannot lead to that winner on ``board`` (a
    win of the side to move is an odd number of plies away, within the board).

    >>> value_from_plies(1, 3, 12, BoardSize(7, 6))
    BookValue(winner=<Winner.FIRST: 'first'>, plies=3, score=14)
    """
    result = WINNERS[winner]
    if plies is None:
        return BookValue(result, None, None)
    if winner == 0:
        return BookValue(result, plies, 0)
    mover_wins = (winner > 0) == (stones % 2 == 0)
    if plies < 1 or stones + plies > board.cells or (plies % 2 == 1) != mover_wins:
        raise InvalidArgument(
            f"{result.value} player cannot win {plies} plies after {stones} stones"
        )
    return BookValue(result, plies, score_from_plies(plies, stones, *board))


def value_from_score(score: int, stones: int, board: BoardSize) -> BookValue:
    """A :class:`BookValue` from a Pons score of the side to move on ``board``.

    >>> value_from_score(-2, 12, BoardSize(7, 6))
    BookValue(winner=<Winner.SECOND: 'second'>, plies=28, score=-2)
    """
    first = stones % 2 == 0
    code = 0 if score == 0 else (1 if (score > 0) == first else -1)
    return BookValue(WINNERS[code], plies_from_score(score, stones, *board), score)


# ------------------------------------------------------------------ missing positions
def unstored_value(
    stones: int, wins_at_once: bool, first_wins: bool, kind: str, board: BoardSize
) -> BookValue | None:
    """The answer for one position of ``stones`` stones that a book of ``kind`` holds
    but does not store: where the side to move completes four at once
    (``wins_at_once``), a win in 1 ply for it (plies and score unless the book is
    win/draw/loss only); else, where the pruning rule applies (``first_wins``: a
    pruned book inside its known scope), a first-player win, plies unknown; else None
    (the book does not know).

    >>> unstored_value(4, True, False, "distance", BoardSize(7, 6))
    BookValue(winner=<Winner.FIRST: 'first'>, plies=1, score=19)
    >>> unstored_value(4, False, False, "wdl", BoardSize(7, 6)) is None
    True
    """
    if wins_at_once:
        winner = Winner.FIRST if stones % 2 == 0 else Winner.SECOND
        if kind == "wdl":
            return BookValue(winner, None, None)
        return BookValue(winner, 1, score_from_plies(1, stones, *board))
    return BookValue(Winner.FIRST, None, None) if first_wins else None


def unstored_answers(
    mask: np.ndarray,
    wins_at_once: np.ndarray,
    first_wins: bool | np.ndarray,
    kind: str,
    board: BoardSize,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`unstored_value` of arrays: ``(winner, plies, score)`` (int8, int16,
    int16; :data:`UNKNOWN` where not known) of positions a book holds but does not
    store, the one rule of every reader (:class:`openingbook.answers.BookReader`) and
    of the book model (:meth:`openingbook.model.BookModel.answers`).

    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("4455", 7, 6)
    >>> m, now = np.array([p.mask], np.uint64), np.array([False])
    >>> b = BoardSize(7, 6)
    >>> [unstored_answers(m, now, pruned, "wdl", b)[0].tolist() for pruned in (False, True)]
    [[-128], [1]]
    """
    wins_at_once = np.asarray(wins_at_once, dtype=bool)
    stones = stone_counts(np.asarray(mask, dtype=np.uint64)).astype(np.int64)
    mover = np.where(stones % 2 == 0, 1, -1)
    implied = np.broadcast_to(np.asarray(first_wins, dtype=bool), wins_at_once.shape)
    winner = np.where(wins_at_once, mover, np.where(implied, 1, UNKNOWN)).astype(np.int8)
    plies = np.full(wins_at_once.shape, UNKNOWN, np.int16)
    score = np.full(wins_at_once.shape, UNKNOWN, np.int16)
    if kind != "wdl" and wins_at_once.any():
        plies[wins_at_once] = 1
        score_of = score_tables(board)[0]
        score[wins_at_once] = score_of[np.minimum(stones[wins_at_once], board.cells), 1]
    return winner, plies, score
