"""Derive a shallower book from a deeper one by exact minimax over the plies between.

The values of the positions at ply ``m`` follow from the values at ply ``n > m``:
expand every ply-``m`` position layer by layer to ply ``n`` (vectorized, one numpy
array per layer, transpositions and mirror pairs merged), score the positions
where the side to move can complete four at once directly, look the remaining
ply-``n`` positions up in the deeper book, and back the values up by negamax.

Values are Pons scores (side to move, see :mod:`solver.scores`) when the deeper
book has distances, so that distances carry through; otherwise win/draw/loss
(+1/0/-1 for the side to move). A first-player-win-pruned deeper book is read
with its rule "a position that is not stored is a first-player win".

>>> import numpy as np
>>> from solver import Position
>>> root = Position.from_moves("112233")  # the first player completes four next
>>> first = np.array([root.first_stones], np.uint64)
>>> mask = np.array([root.mask], np.uint64)
>>> def no_leaves(f, m):  # never asked: every line ends before ply 8
...     raise AssertionError
>>> negamax_layers(first, mask, 8, no_leaves, scores=True).values.tolist()
[18]
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from solver import plies_from_score, score_from_plies
from solver.bitboards import can_win_next_bits, mirror_bits, position_keys, stone_counts
from solver.position import DEFAULT_HEIGHT, DEFAULT_WIDTH, board_mask

__all__ = [
    "DerivedValues",
    "LeafLookup",
    "distance_bytes_from_scores",
    "negamax_layers",
    "scores_from_distance_bytes",
    "wdl_from_first_player_values",
]

WIDTH, HEIGHT = DEFAULT_WIDTH, DEFAULT_HEIGHT
CELLS = WIDTH * HEIGHT
_U64 = np.uint64
_BOTTOM = [_U64(1 << (c * (HEIGHT + 1))) for c in range(WIDTH)]
_TOP = [_U64(1 << (c * (HEIGHT + 1) + HEIGHT - 1)) for c in range(WIDTH)]
_FULL = _U64(board_mask(WIDTH, HEIGHT))

#: Marks an unknown value inside the int8 value arrays: larger than any score,
#: so that a maximum over children is unknown as soon as one child is.
UNKNOWN = np.int8(100)

#: ``leaves(first, mask) -> (known, values)``: values (int8, side to move; Pons
#: scores or -1/0/+1) of ply-``n`` positions in which the side to move cannot win
#: at once; ``known`` is False where the deeper book cannot say.
LeafLookup = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass
class DerivedValues:
    """Values of root positions backed up from a deeper ply.

    ``values`` are side-to-move values (Pons scores when ``scores``, else -1/0/+1)
    and meaningless where ``known`` is False (some needed deeper position was
    missing from the deeper book).
    """

    first: np.ndarray
    mask: np.ndarray
    values: np.ndarray
    known: np.ndarray
    plies: int
    scores: bool
    layer_sizes: list[int] = field(default_factory=list)
    looked_up: int = 0

    def first_player_values(self) -> np.ndarray:
        """Values from the first player's side (positive = first player wins)."""
        a_to_move = stone_counts(self.mask) % 2 == 0
        return np.where(a_to_move, self.values, -self.values).astype(np.int8)


def negamax_layers(
    first: np.ndarray,
    mask: np.ndarray,
    plies: int,
    leaves: LeafLookup,
    scores: bool,
) -> DerivedValues:
    """Exact values of the ``first``/``mask`` positions from the values at ``plies`` stones.

    All roots must have the same number of stones, at most ``plies``. Every line
    is followed to ``plies`` stones unless the side to move can win at once on
    the way (scored as a win with its next stone) or the board is full (a
    draw); the ply-``plies`` positions left are passed to ``leaves`` once each
    (one variant per mirror pair). A root is unknown when any position it needs
    is unknown.

    >>> from solver import Position
    >>> p = Position.from_moves("4444443")  # second player to move, blocks or loses
    >>> f = np.array([p.first_stones], np.uint64); m = np.array([p.mask], np.uint64)
    >>> def all_draws(f, m):
    ...     return np.ones(len(f), bool), np.zeros(len(f), np.int8)
    >>> negamax_layers(f, m, 9, all_draws, scores=False).values.tolist()
    [0]
    """
    first = np.ascontiguousarray(first, dtype=np.uint64)
    mask = np.ascontiguousarray(mask, dtype=np.uint64)
    if first.shape != mask.shape or first.ndim != 1:
        raise ValueError("first and mask must be one-dimensional arrays of the same length")
    counts = np.unique(stone_counts(mask))
    if len(counts) > 1:
        raise ValueError(f"roots have different stone counts: {counts.tolist()}")
    start = int(counts[0]) if len(counts) else plies
    if start > plies:
        raise ValueError(f"roots have {start} stones, more than the target ply {plies}")
    if plies > CELLS:
        raise ValueError(f"ply {plies} is beyond a full board ({CELLS})")

    # Walk down: per layer the positions, and the (rows, 7) child indices.
    layers: list[tuple[np.ndarray, np.ndarray]] = [(first, mask)]
    children: list[np.ndarray] = []
    for _ply in range(start, plies):
        f, m = layers[-1]
        stop = _terminal(f, m)
        child_index, cf, cm = _expand(f, m, ~stop)
        children.append(child_index)
        layers.append((cf, cm))

    # The deepest layer: immediate wins directly, the rest from the deeper book.
    f, m = layers[-1]
    values, known, looked_up = _leaf_values(f, m, plies, leaves, scores)

    # Walk up.
    for depth in range(len(children) - 1, -1, -1):
        f, m = layers[depth]
        ply = start + depth
        child_index = children[depth]
        contrib = np.where(known, -values, UNKNOWN).astype(np.int8)
        contrib = np.append(contrib, -UNKNOWN)  # the last entry stands for "no child"
        backed = contrib[np.where(child_index >= 0, child_index, len(contrib) - 1)].max(axis=1)
        win_now = can_win_next_bits(f, m)
        full = m == _FULL
        direct = _win_now_value(ply, scores)
        values = np.where(win_now, direct, np.where(full, 0, backed)).astype(np.int8)
        known = values != UNKNOWN
        values[~known] = 0
    return DerivedValues(
        first=first,
        mask=mask,
        values=values,
        known=known,
        plies=plies,
        scores=scores,
        layer_sizes=[len(lf) for lf, _ in layers],
        looked_up=looked_up,
    )


def _terminal(first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Positions not expanded: the side to move wins at once, or the board is full."""
    return can_win_next_bits(first, mask) | (mask == _FULL)


def _expand(
    first: np.ndarray, mask: np.ndarray, open_: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Children of the ``open_`` positions, one variant per mirror pair.

    Returns ``(child_index, first, mask)``: ``child_index[i, c]`` is the row of
    the position after column ``c`` is played in position ``i`` (-1 when the
    column is full or the position is not open). The side to move cannot win
    at once in an open position, so no child has four in a row.
    """
    rows = len(first)
    a_moves = rows > 0 and int(stone_counts(mask[:1])[0]) % 2 == 0
    cf = np.empty((rows, WIDTH), np.uint64)
    cm = np.empty((rows, WIDTH), np.uint64)
    ok = np.empty((rows, WIDTH), bool)
    for col in range(WIDTH):
        new_mask = mask | (mask + _BOTTOM[col])
        cm[:, col] = new_mask
        cf[:, col] = first | (new_mask ^ mask) if a_moves else first
        ok[:, col] = ((mask & _TOP[col]) == 0) & open_
    flat = np.flatnonzero(ok.ravel())
    cf_flat = cf.ravel()[flat]
    cm_flat = cm.ravel()[flat]
    keys = position_keys(cf_flat, cm_flat)
    keys = np.minimum(keys, mirror_bits(keys))  # merge mirror pairs
    _, first_seen, inverse = np.unique(keys, return_index=True, return_inverse=True)
    child_index = np.full(rows * WIDTH, -1, np.int32)
    child_index[flat] = inverse.ravel()
    return child_index.reshape(rows, WIDTH), cf_flat[first_seen], cm_flat[first_seen]


def _win_now_value(ply: int, scores: bool) -> int:
    """Value for the side to move that completes four with its next stone."""
    return score_from_plies(1, ply) if scores else 1


def _leaf_values(
    first: np.ndarray, mask: np.ndarray, ply: int, leaves: LeafLookup, scores: bool
) -> tuple[np.ndarray, np.ndarray, int]:
    win_now = can_win_next_bits(first, mask)
    values = np.zeros(len(first), np.int8)
    known = np.ones(len(first), bool)
    values[win_now] = _win_now_value(ply, scores)
    ask = np.flatnonzero(~win_now & (mask != _FULL))
    if len(ask):
        k, v = leaves(first[ask], mask[ask])
        values[ask] = v
        known[ask] = k
    return values, known, len(ask)


# ------------------------------------------------------------------ value conversions
def scores_from_distance_bytes(distance: np.ndarray, stones: int) -> tuple[np.ndarray, np.ndarray]:
    """Pons scores (side to move) of positions with ``stones`` stones from distance bytes.

    Returns ``(scores, consistent)``; ``consistent`` is False where the byte cannot
    be right: a win ``d`` plies away must be played by the winner (odd ``d`` for
    the side to move), and the board must have room for it.

    >>> scores_from_distance_bytes(np.array([97, -98, 0], np.int8), 12)[0].tolist()
    [14, -15, 0]
    """
    v = np.asarray(distance).astype(np.int16)
    a_to_move = stones % 2 == 0
    plies = np.where(v > 0, 100 - v, np.where(v < 0, 100 + v, 0))
    mover_wins = (v > 0) == a_to_move
    table = np.zeros(CELLS + 1, np.int8)
    for d in range(1, CELLS - stones + 1):
        table[d] = score_from_plies(d, stones)
    in_range = (plies >= 1) & (plies <= CELLS - stones)
    consistent = (v == 0) | (in_range & ((plies % 2 == 1) == mover_wins))
    out = np.where(v == 0, 0, table[np.clip(plies, 0, CELLS)]).astype(np.int8)
    return out, consistent


def distance_bytes_from_scores(scores: np.ndarray, stones: int) -> np.ndarray:
    """Thill's signed distance bytes for Pons scores at ``stones`` stones.

    ``100 - d`` when the first player wins in ``d`` plies, ``d - 100`` when the
    second player does, ``0`` for a draw.

    >>> distance_bytes_from_scores(np.array([14, -15, 0]), 12).tolist()
    [97, -98, 0]
    """
    s = np.asarray(scores).astype(np.int16)
    table = np.zeros(2 * (CELLS // 2) + 1, np.int16)
    for score in range(-(CELLS // 2), CELLS // 2 + 1):
        if score:
            table[score + CELLS // 2] = plies_from_score(score, stones)
    plies = table[s + CELLS // 2]
    a_to_move = stones % 2 == 0
    first_wins = (s > 0) == a_to_move
    return np.where(s == 0, 0, np.where(first_wins, 100 - plies, plies - 100)).astype(np.int8)


def wdl_from_first_player_values(values: np.ndarray, stones: int) -> np.ndarray:
    """Side-to-move -1/0/+1 from pruned-book values (0 draw, 1 second wins, 2 first wins).

    >>> wdl_from_first_player_values(np.array([0, 1, 2]), 8).tolist()
    [0, -1, 1]
    """
    v = np.asarray(values)
    first_view = np.where(v == 2, 1, np.where(v == 1, -1, 0))
    return (first_view if stones % 2 == 0 else -first_view).astype(np.int8)


# ------------------------------------------------------------------ helpers for files
def file_sha256(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_json_atomic(path: str | os.PathLike[str], obj: object) -> None:
    """Write ``obj`` as JSON to ``path`` atomically (temp file, fsync, replace)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(obj, fh, indent=2)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
