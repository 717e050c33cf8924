"""Connect-4 positions, exact search and position enumeration.

This package knows nothing of files or books: :mod:`openingbook` uses it
through the names exported here.
"""

from solver.position import DEFAULT_HEIGHT, DEFAULT_WIDTH, Player, Position
from solver.scores import (
    Winner,
    describe_score,
    plies_from_score,
    score_from_plies,
    winner_from_score,
)

__all__ = [
    "DEFAULT_HEIGHT",
    "DEFAULT_WIDTH",
    "Player",
    "Position",
    "Winner",
    "describe_score",
    "plies_from_score",
    "score_from_plies",
    "winner_from_score",
]
