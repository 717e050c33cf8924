"""Scores in the Pons convention, on every board size, and what they mean in plies.

The score of a position is seen from the side to move: ``0`` for a draw,
positive when the side to move wins, negative when it loses, and the sooner
the game ends the larger its absolute value. With ``cells`` = width x height
and the game ending with the ``p``-th stone of the game (1-based, counted from
the empty board):

    |score| = (cells - p) // 2 + 1

that is, one more than the stones the winner still has in hand after its
winning stone. On a board with an even number of cells this is Pons'
convention exactly, ``cells/2 + 1 - k`` for a win with the winner's own
``k``-th stone (7x6: ``22 - k``). On a board with an odd number of cells the
first player has one stone more than the second, ``(cells + 1)/2``, and the
same rule gives ``(cells + 1)/2 + 1 - k`` for a first-player win with its
``k``-th stone and ``(cells - 1)/2 + 1 - k`` for a second-player win (5x5: a
first-player win with the last stone of the board, the 25th, scores 1). So on
every board a win on the last cell scores 1, a draw 0, and scores of
neighbouring plies differ by one whatever the parity (the search's bounds
rely on that, :mod:`openingbook.solver.search`).

Distances count plies from the position to the stone that completes four (a
win is an odd number of plies away, a loss even).
"""

from __future__ import annotations

from enum import StrEnum

from openingbook.solver.errors import InvalidArgument

#: "no bound" in an array of lower bounds of scores (:meth:`openingbook.solver.Solver.solve_many`):
#: below every score of every board (``|score| <= 33`` on 64 cells), and an ``int8``.
#: The same number as "not known" (:data:`UNSOLVED`, ``openingbook.values.UNKNOWN``),
#: another meaning: a bound the caller does not give, not an answer missing.
NO_LOWER_BOUND = -128
#: where :meth:`openingbook.solver.Solver.solve_until` answers a position not solved in time (and
#: what the batch kernel leaves where it stopped): no score of any board, an ``int8``
UNSOLVED = -128


class Winner(StrEnum):
    """Game-theoretic result, named for the player who wins."""

    FIRST = "first"
    SECOND = "second"
    DRAW = "draw"


def plies_from_score(score: int, stones: int, width: int, height: int) -> int:
    """Plies from a position with ``stones`` stones to the end of the game.

    >>> plies_from_score(14, 12, 7, 6)  # the side to move wins with its 8th stone (it has 6)
    3
    >>> plies_from_score(0, 12, 7, 6)
    30
    >>> plies_from_score(1, 0, 5, 5)  # 5x5: the first player wins with the 25th stone
    25
    """
    cells = width * height
    if score == 0:
        return cells - stones
    # the last stone p satisfies (cells - p) // 2 == |score| - 1: two candidates, and
    # the winner's parity picks one (the side to move places stones stones+1, +3, ...)
    p = cells - 2 * (abs(score) - 1)
    winner_parity = (stones + 1) % 2 if score > 0 else stones % 2
    if p % 2 != winner_parity:
        p -= 1
    return p - stones


def score_from_plies(plies: int, stones: int, width: int, height: int) -> int:
    """Inverse of :func:`plies_from_score` for a decided game (odd = win, even = loss).

    A draw has no unique ply count here; pass ``plies == cells - stones`` with
    an explicit draw check instead. Raises ``ValueError`` on impossible input.

    >>> score_from_plies(3, 12, 7, 6), score_from_plies(25, 0, 5, 5)
    (14, 1)
    """
    cells = width * height
    if plies <= 0 or stones + plies > cells:
        raise InvalidArgument(f"{plies} plies from {stones} stones is off the board")
    magnitude = (cells - (stones + plies)) // 2 + 1
    return magnitude if plies % 2 == 1 else -magnitude


def score_bounds(stones: int, width: int, height: int) -> tuple[int, int]:
    """(lowest, highest) score a position with ``stones`` stones can have.

    A loss to the opponent's next stone and a win with one's own next stone.

    >>> score_bounds(0, 7, 6), score_bounds(0, 5, 5)
    ((-21, 21), (-12, 13))
    """
    cells = width * height
    return -((cells - stones) // 2), (cells + 1 - stones) // 2


def winner_from_score(score: int, stones: int) -> Winner:
    """Who wins, given the side-to-move score at a position with ``stones`` stones."""
    if score == 0:
        return Winner.DRAW
    first_to_move = stones % 2 == 0
    return Winner.FIRST if (score > 0) == first_to_move else Winner.SECOND


def describe_score(score: int, stones: int, width: int, height: int) -> str:
    """The result in words.

    >>> describe_score(-2, 4, 7, 6)
    'second player wins in 36 plies'
    >>> describe_score(21, 1, 7, 6)  # the side to move wins with its first stone
    'second player wins in 1 ply'
    """
    winner = winner_from_score(score, stones)
    plies = plies_from_score(score, stones, width, height)
    unit = "ply" if plies == 1 else "plies"
    if winner is Winner.DRAW:
        return f"draw (board full in {plies} {unit})"
    return f"{winner.value} player wins in {plies} {unit}"
