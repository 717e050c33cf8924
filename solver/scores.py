"""Scores in the Pons convention and what they mean in plies.

The score of a position is seen from the side to move. With ``cells`` =
width x height (42 on the standard board):

* ``+(cells/2 + 1 - k)`` when the side to move wins with its k-th stone;
* ``0`` for a draw;
* ``-(cells/2 + 1 - k)`` when it loses to the opponent's k-th stone.

On 7x6 that is ``22 - k``. Distances count plies from the position to the
stone that completes four (a win is an odd number of plies away, a loss even).
"""

from __future__ import annotations

from enum import StrEnum


class Winner(StrEnum):
    """Game-theoretic result, named for the player who wins."""

    FIRST = "first"
    SECOND = "second"
    DRAW = "draw"


def plies_from_score(score: int, stones: int, width: int = 7, height: int = 6) -> int:
    """Plies from a position with ``stones`` stones to the end of the game.

    >>> plies_from_score(14, 12)  # the side to move wins with its 8th stone (it has 6)
    3
    >>> plies_from_score(0, 12)
    30
    """
    cells = width * height
    if score == 0:
        return cells - stones
    k = cells // 2 + 1 - abs(score)
    if score > 0:
        return 2 * (k - stones // 2) - 1
    return 2 * (k - (stones + 1) // 2)


def score_from_plies(plies: int, stones: int, width: int = 7, height: int = 6) -> int:
    """Inverse of :func:`plies_from_score` for a decided game (odd = win, even = loss).

    A draw has no unique ply count here; pass ``plies == cells - stones`` with
    an explicit draw check instead. Raises ``ValueError`` on impossible input.
    """
    cells = width * height
    if plies <= 0 or stones + plies > cells:
        raise ValueError(f"{plies} plies from {stones} stones is off the board")
    if plies % 2 == 1:
        k = stones // 2 + (plies + 1) // 2
        return cells // 2 + 1 - k
    k = (stones + 1) // 2 + plies // 2
    return -(cells // 2 + 1 - k)


def winner_from_score(score: int, stones: int) -> Winner:
    """Who wins, given the side-to-move score at a position with ``stones`` stones."""
    if score == 0:
        return Winner.DRAW
    first_to_move = stones % 2 == 0
    return Winner.FIRST if (score > 0) == first_to_move else Winner.SECOND


def describe_score(score: int, stones: int, width: int = 7, height: int = 6) -> str:
    """The result in words.

    >>> describe_score(-2, 4)
    'second player wins in 36 plies'
    >>> describe_score(21, 1)  # the side to move wins with its first stone
    'second player wins in 1 ply'
    """
    winner = winner_from_score(score, stones)
    plies = plies_from_score(score, stones, width, height)
    unit = "ply" if plies == 1 else "plies"
    if winner is Winner.DRAW:
        return f"draw (board full in {plies} {unit})"
    return f"{winner.value} player wins in {plies} {unit}"
