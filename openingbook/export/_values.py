"""Answers of the Cadot and Pons readers in the shapes of :mod:`openingbook.reader`.

Both readers answer like :class:`openingbook.reader.Book` over a distance book:
a stored position gets its stored result; a position that is not stored but
where the side to move can complete four at once is a win in 1 ply for the
side to move (such positions are never stored in our books); any other missing
position raises :class:`openingbook.reader.PositionNotInBook`, or gets
:data:`openingbook.reader.UNKNOWN` values in a non-strict bulk lookup.
"""

from __future__ import annotations

import numpy as np

from openingbook.errors import BookFileError, InvalidArgument
from openingbook.reader import BookValue, BulkValues, PositionNotInBook
from openingbook.values import CELLS, UNKNOWN, missing_answer, missing_answers, score_tables
from solver import Position, Winner, plies_from_score, score_from_plies, stone_counts

WINNERS = {1: Winner.FIRST, -1: Winner.SECOND, 0: Winner.DRAW}

SCORE_OF, PLIES_OF = score_tables()


def value_from_plies(winner: int, plies: int | None, stones: int) -> BookValue:
    """A :class:`BookValue` from a first-player result code and plies to the result.

    Raises ``ValueError`` when the plies cannot lead to that winner (a win of
    the side to move is an odd number of plies away).

    >>> value_from_plies(1, 3, 12)
    BookValue(winner=<Winner.FIRST: 'first'>, plies=3, score=14)
    """
    result = WINNERS[winner]
    if plies is None:
        return BookValue(result, None, None)
    if winner == 0:
        return BookValue(result, plies, 0)
    mover_wins = (winner > 0) == (stones % 2 == 0)
    if plies < 1 or stones + plies > CELLS or (plies % 2 == 1) != mover_wins:
        raise InvalidArgument(
            f"{result.value} player cannot win {plies} plies after {stones} stones"
        )
    return BookValue(result, plies, score_from_plies(plies, stones))


def value_from_score(score: int, stones: int) -> BookValue:
    """A :class:`BookValue` from a Pons score of the side to move.

    >>> value_from_score(-2, 12)
    BookValue(winner=<Winner.SECOND: 'second'>, plies=28, score=-2)
    """
    first = stones % 2 == 0
    code = 0 if score == 0 else (1 if (score > 0) == first else -1)
    return BookValue(WINNERS[code], plies_from_score(score, stones), score)


def missing_value(pos: Position, book: str) -> BookValue:
    """The answer for a position the file does not store (see the module docstring)."""
    answer = missing_answer(pos, first_wins_when_absent=False)
    if answer is None:
        raise PositionNotInBook(f"position not in {book}")
    winner, plies = answer
    return BookValue(WINNERS[winner], plies, score_from_plies(plies, pos.stone_count))


def bulk_values(
    first: np.ndarray,
    mask: np.ndarray,
    index: np.ndarray,
    winner: np.ndarray,
    plies: np.ndarray,
    book: str,
    strict: bool,
    scores: np.ndarray | None = None,
) -> BulkValues:
    """:class:`BulkValues` from stored results (``index`` -1 where not stored).

    ``winner`` (+1/-1/0) and ``plies`` (``UNKNOWN`` when not known) are read
    where ``index >= 0``; scores follow from them unless given. Missing
    positions get the immediate-win rule, else an error (``strict``) or
    ``UNKNOWN``. A stored result that no game can have raises ``ValueError``.
    """
    stones = stone_counts(mask).astype(np.int64)
    found = index >= 0
    winner = np.where(found, winner, UNKNOWN).astype(np.int8)
    plies = np.where(found, plies, UNKNOWN).astype(np.int16)
    known = found & (plies != UNKNOWN)
    safe_plies = np.clip(plies, 0, CELLS).astype(np.int64)
    if scores is None:
        score = np.where(winner == 0, 0, SCORE_OF[stones, safe_plies])
    else:
        score = np.asarray(scores)
    score = np.where(known, score, UNKNOWN).astype(np.int16)
    decided = known & (winner != 0) & (plies != 0)
    mover_wins = (winner > 0) == (stones % 2 == 0)
    off_board = (plies < 1) | (stones + plies > CELLS)
    bad = decided & ((((plies % 2) == 1) != mover_wins) | off_board)
    if bad.any():
        i = int(np.argmax(bad))
        raise BookFileError(f"{book}: record {int(index[i])} has an impossible result")
    missing = np.flatnonzero(~found)
    if missing.size:
        m_winner, m_plies = missing_answers(first[missing], mask[missing], False)
        wins_now = m_winner != UNKNOWN
        if strict and not wins_now.all():
            i = int(missing[np.argmax(~wins_now)])
            raise PositionNotInBook(f"position {i} is not in {book}")
        hit = missing[wins_now]
        winner[hit] = m_winner[wins_now]
        plies[hit] = m_plies[wins_now]
        score[hit] = SCORE_OF[stones[hit], 1]
    return BulkValues(index.astype(np.int64), winner, plies, score)
