"""Book values and what they mean: the one home of every value conversion.

* **Pruned** (win/draw/loss) books store two bits, from the first player's side:
  :data:`VALUE_DRAW` 0, :data:`VALUE_SECOND` 1 (second player wins),
  :data:`VALUE_FIRST` 2 (first player wins; the pruning rule leaves these out).
* **Distance** books store a signed byte: 0 draw, ``100 - d`` when the first
  player wins ``d`` plies from the position, ``d - 100`` when the second does.
* **Pons scores** are from the side to move: ``22 - k`` for a win with its
  ``k``-th stone (:func:`solver.score_from_plies`, :func:`solver.plies_from_score`).
* **Winner codes** in arrays: +1 first player, -1 second, 0 draw, and
  :data:`UNKNOWN` (-128) for "not known".

And the single rule for a position a book does not store
(:func:`missing_answers`): when the side to move can complete four at once it
wins in 1 ply (such positions are never stored); otherwise, in a pruned book
whose scope is known to be complete around the position, the first player wins
(the pruning rule); otherwise the book does not know.

>>> first_player_winner(np.array([0, 1, 2])).tolist()
[0, -1, 1]
>>> distance_bytes_from_scores(np.array([14, -15, 0]), 12).tolist()
[97, -98, 0]
"""

from __future__ import annotations

import numpy as np

from solver import Position, can_win_next_bits, plies_from_score, score_from_plies, stone_counts

__all__ = [
    "CELLS",
    "UNKNOWN",
    "VALUE_DRAW",
    "VALUE_FIRST",
    "VALUE_SECOND",
    "book_values",
    "distance_bytes_from_scores",
    "distance_plies",
    "first_player_winner",
    "invalid_values",
    "missing_answer",
    "missing_answers",
    "pruned_values",
    "score_tables",
    "scores_from_distance_bytes",
    "value_tables",
    "wdl_from_pruned_values",
]

#: Two-bit values of pruned books (first player's view).
VALUE_DRAW = 0
VALUE_SECOND = 1
VALUE_FIRST = 2

#: Cells of the 7x6 board.
CELLS = 42
#: Marks "not known" in arrays of winners, plies and scores.
UNKNOWN = -128


def _board(cells: int) -> tuple[int, int]:
    """A ``(width, height)`` with ``cells`` cells: scores and plies depend on the
    cell count alone (:mod:`solver.scores`)."""
    return cells, 1


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
    values: np.ndarray, stones: int, distances: bool, cells: int = CELLS
) -> np.ndarray:
    """Values a book of ``stones``-stone positions cannot hold: pruned 0-2; distance 0
    or ``d`` in ``1..cells-stones`` (``cells`` of the board, 42 on 7x6)."""
    v = np.asarray(values).astype(np.int64)
    if not distances:
        return (v < 0) | (v > VALUE_FIRST)
    d = 100 - np.abs(v)
    return (v != 0) & ((d < 1) | (stones + d > cells))


def scores_from_distance_bytes(
    distance: np.ndarray, stones: int, cells: int = CELLS
) -> tuple[np.ndarray, np.ndarray]:
    """Pons scores (side to move) of positions with ``stones`` stones from distance bytes.

    Returns ``(scores, consistent)``; ``consistent`` is False where the byte cannot
    be right: a win ``d`` plies away must be played by the winner (odd ``d`` for
    the side to move), and the board must have room for it.

    >>> scores_from_distance_bytes(np.array([97, -98, 0], np.int8), 12)[0].tolist()
    [14, -15, 0]
    """
    v = np.asarray(distance).astype(np.int16)
    a_to_move = stones % 2 == 0
    plies = distance_plies(v)
    mover_wins = (v > 0) == a_to_move
    table = np.zeros(cells + 1, np.int8)
    for d in range(1, cells - stones + 1):
        table[d] = score_from_plies(d, stones, *_board(cells))
    in_range = (plies >= 1) & (plies <= cells - stones)
    consistent = (v == 0) | (in_range & ((plies % 2 == 1) == mover_wins))
    out = np.where(v == 0, 0, table[np.clip(plies, 0, cells)]).astype(np.int8)
    return out, consistent


def distance_bytes_from_scores(scores: np.ndarray, stones: int, cells: int = CELLS) -> np.ndarray:
    """Thill's signed distance bytes for Pons scores at ``stones`` stones.

    ``100 - d`` when the first player wins in ``d`` plies, ``d - 100`` when the
    second player does, ``0`` for a draw.
    """
    s = np.asarray(scores).astype(np.int16)
    half = cells // 2
    table = np.zeros(2 * half + 1, np.int16)
    for score in range(-half, half + 1):
        if score:
            table[score + half] = plies_from_score(score, stones, *_board(cells))
    plies = table[s + half]
    a_to_move = stones % 2 == 0
    first_wins = (s > 0) == a_to_move
    return np.where(s == 0, 0, np.where(first_wins, 100 - plies, plies - 100)).astype(np.int8)


def book_values(raw: np.ndarray, stones: int, exact: bool, cells: int = CELLS) -> np.ndarray:
    """Book values from solver output at positions with ``stones`` stones.

    ``exact``: ``raw`` are Pons scores, the result distance bytes; otherwise
    ``raw`` is -1/0/+1 for the side to move, the result 0 draw / 1 second
    player wins / 2 first player wins.

    >>> book_values(np.array([14, -15, 0]), 12, exact=True).tolist()
    [97, -98, 0]
    >>> book_values(np.array([1, -1, 0]), 12, exact=False).tolist()
    [2, 1, 0]
    """
    raw = np.asarray(raw)
    if exact:
        return distance_bytes_from_scores(raw, stones, cells)
    return pruned_values(raw if stones % 2 == 0 else -raw)


# ------------------------------------------------------------------ lookup tables
def score_tables() -> tuple[np.ndarray, np.ndarray]:
    """``SCORE_OF[stones, plies]`` for a decided game and ``PLIES_OF[stones, score + 21]``."""
    score_of = np.full((CELLS + 1, CELLS + 1), UNKNOWN, dtype=np.int16)
    plies_of = np.full((CELLS + 1, CELLS + 1), UNKNOWN, dtype=np.int16)
    for stones in range(CELLS + 1):
        for plies in range(1, CELLS - stones + 1):
            score_of[stones, plies] = score_from_plies(plies, stones)
        for score in range(-(CELLS // 2), CELLS // 2 + 1):
            plies_of[stones, score + CELLS // 2] = plies_from_score(score, stones)
    return score_of, plies_of


def value_tables(
    stones: int, distances: bool, cells: int = CELLS
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Winner code, plies, score and validity for each raw value byte (as uint8) of a
    book of ``stones``-stone positions on a board of ``cells`` cells (:data:`UNKNOWN`
    where not known)."""
    winner = np.full(256, UNKNOWN, dtype=np.int16)
    plies = np.full(256, UNKNOWN, dtype=np.int16)
    score = np.full(256, UNKNOWN, dtype=np.int16)
    valid = np.zeros(256, dtype=bool)
    n = stones
    if not distances:
        for v, w in ((VALUE_DRAW, 0), (VALUE_SECOND, -1), (VALUE_FIRST, 1)):
            winner[v] = w
            valid[v] = True
        score[VALUE_DRAW] = 0
        return winner, plies, score, valid
    winner[0], plies[0], score[0], valid[0] = 0, cells - n, 0, True
    for d in range(1, cells - n + 1):
        # the player who places stone n + d wins: the first player on odd stone numbers
        first_places_last = (n + d) % 2 == 1
        for first_wins in (True, False):
            b = (100 - d) if first_wins else (256 - (100 - d))
            winner[b] = 1 if first_wins else -1
            plies[b] = d
            valid[b] = True
            if first_wins == first_places_last:
                score[b] = score_from_plies(d, n, *_board(cells))
            # else: a faulty distance (the winner cannot play the last stone): the
            # stored winner and distance are answered, the score stays unknown
    return winner, plies, score, valid


# ------------------------------------------------------------------ missing positions
def missing_answers(
    first: np.ndarray,
    mask: np.ndarray,
    first_wins_when_absent: bool | np.ndarray,
    width: int = 7,
    height: int = 6,
) -> tuple[np.ndarray, np.ndarray]:
    """The answer for positions a book does not store: ``(winner, plies)`` arrays.

    The side to move that can complete four at once wins in 1 ply (never
    stored); else, where ``first_wins_when_absent`` (a pruned book inside its
    known complete scope), the first player wins, plies unknown; else
    :data:`UNKNOWN` for both.

    >>> p = Position.from_moves("4455")
    >>> f, m = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    >>> missing_answers(f, m, False)[0].tolist(), missing_answers(f, m, True)[0].tolist()
    ([-128], [1])
    """
    first = np.asarray(first, dtype=np.uint64)
    mask = np.asarray(mask, dtype=np.uint64)
    win_now = can_win_next_bits(first, mask, width, height)
    mover = np.where(stone_counts(mask) % 2 == 0, 1, -1)
    implied = np.broadcast_to(np.asarray(first_wins_when_absent, dtype=bool), win_now.shape)
    winner = np.where(win_now, mover, np.where(implied, 1, UNKNOWN)).astype(np.int8)
    plies = np.where(win_now, 1, UNKNOWN).astype(np.int16)
    return winner, plies


def missing_answer(pos: Position, first_wins_when_absent: bool) -> tuple[int, int] | None:
    """:func:`missing_answers` for one position: ``(winner code, plies or UNKNOWN)``, or
    None when the book does not know."""
    if pos.can_win_next():
        return (1 if pos.stone_count % 2 == 0 else -1), 1
    if first_wins_when_absent:
        return 1, UNKNOWN
    return None
