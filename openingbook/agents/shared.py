"""What the environment adapters share: one oracle for the process, made on first use;
the seeding of a library opponent; the board from one player's view; a policy's move
checked; the board as text.

>>> from openingbook.solver import Position
>>> print(board_text(Position.from_moves("4453")))
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . O . . .
. . O X X . .
0 1 2 3 4 5 6
"""

from __future__ import annotations

from typing import Any

import numpy as np

from openingbook.errors import InvalidArgument
from openingbook.layouts import write_boards
from openingbook.oracle import Oracle
from openingbook.solver import Position

__all__ = [
    "action_mask_of",
    "as_policy",
    "board_text",
    "checked_column",
    "oracle_for",
    "planes_of",
    "reseed",
    "shared_oracle",
]

_ORACLE: Oracle | None = None


def shared_oracle() -> Oracle:
    """The oracle every adapter uses unless given one: the shipped books, made on first
    use and kept for the process (its books stay open; it is not thread-safe)."""
    global _ORACLE
    if _ORACLE is None:
        _ORACLE = Oracle()
    return _ORACLE


def oracle_for(opponent: Any, oracle: Oracle | None) -> Oracle | None:
    """The oracle a library opponent is to use: ``oracle``, else the shared one; None for
    a policy of the caller's (which needs none: no oracle is made for it)."""
    if oracle is not None or callable(opponent):
        return oracle
    return shared_oracle()


def as_policy(player: Any) -> Any:
    """``player`` (as :func:`openingbook.evaluation.make_player` made it) if it can be
    called as a policy ``(observation, action_mask) -> column``, else
    :class:`~openingbook.errors.InvalidArgument`."""
    if not callable(player):
        raise InvalidArgument(
            f"an opponent is 'perfect', a level or a policy callable, not {type(player).__name__}"
        )
    return player


def reseed(player: Any, rng: np.random.Generator) -> None:
    """Give a library player (:class:`~openingbook.evaluation.PerfectPlayer` and its
    levels) a generator drawn from ``rng``, so that seeding the environment replays its
    moves; a policy of the caller's keeps its own randomness."""
    if isinstance(getattr(player, "rng", None), np.random.Generator) and hasattr(player, "choose"):
        player.rng = np.random.default_rng(int(rng.integers(2**63)))


def planes_of(position: Position, mark: int) -> np.ndarray:
    """The board as PettingZoo's ``(6, 7, 2)`` int8 planes seen by the player of ``mark``
    (1 the first player, 2 the second): plane 0 its stones, plane 1 its opponent's."""
    grid = write_boards(
        "cells012",
        np.array([position.first_stones], np.uint64),
        np.array([position.mask], np.uint64),
        board=(position.width, position.height),
    )[0]
    return np.stack([grid == mark, grid == 3 - mark], axis=-1).astype(np.int8)


def action_mask_of(position: Position) -> np.ndarray:
    """(7,) int8: 1 for each column that is not full."""
    mask = np.zeros(position.width, np.int8)
    mask[position.legal_moves()] = 1
    return mask


def checked_column(column: Any, action_mask: Any, who: str) -> int:
    """``column`` as an int if ``action_mask`` (1 for each column not full) allows it,
    else :class:`~openingbook.errors.InvalidArgument` naming ``who`` chose it."""
    if isinstance(column, bool) or not isinstance(column, int | np.integer):
        raise InvalidArgument(f"{who} returned {column!r}, not a column (an integer)")
    legal = np.asarray(action_mask).astype(bool)
    col = int(column)
    if not (0 <= col < len(legal) and legal[col]):
        raise InvalidArgument(f"{who} chose column {col}, which is not a legal move")
    return col


def board_text(position: Position) -> str:
    """The board, top row first (``X`` the first player, ``O`` the second), and the
    columns' actions (0-based) below."""
    rows = position.to_diagram().splitlines()
    return "\n".join([*(" ".join(row) for row in rows), " ".join(map(str, range(len(rows[0]))))])
