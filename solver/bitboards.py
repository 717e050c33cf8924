"""Vectorized bitboard helpers for many positions at once.

Positions are two ``np.uint64`` arrays in the Pons layout used by
:class:`solver.Position`: ``first`` (stones of the first player) and ``mask``
(occupied cells), cell (col, row) = bit ``col * (height + 1) + row``. Every
function here works element-wise on such arrays and agrees with the
single-position methods of :class:`solver.Position` (the tests check it).

The ``_nb_*`` functions are the same operations for one position inside
numba-compiled code (:mod:`solver.enumerate` uses them).

>>> import numpy as np
>>> from solver import Position
>>> p = Position.from_moves("112233")  # A threatens 4 on the bottom row
>>> first, mask = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
>>> can_win_next_bits(first, mask).tolist()
[True]
>>> int(mirror_bits(mask)[0]) == p.mirror().mask
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.position import DEFAULT_HEIGHT, DEFAULT_WIDTH, board_mask, bottom_mask

__all__ = [
    "can_win_next_bits",
    "canonical_bits",
    "current_bits",
    "has_four_bits",
    "mirror_bits",
    "position_keys",
    "stone_counts",
    "winning_cells_bits",
]

_U64 = np.uint64


def _as_u64(bits: np.ndarray | int) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint64)


def _flat(bits: np.ndarray | int) -> tuple[np.ndarray, tuple[int, ...]]:
    """A contiguous 1-d uint64 copy-or-view for the compiled kernels, and the shape."""
    arr = _as_u64(bits)
    return np.ascontiguousarray(arr).reshape(-1), arr.shape


def stone_counts(mask: np.ndarray) -> np.ndarray:
    """Number of stones of each position (popcount of ``mask``), as ``uint8``.

    >>> stone_counts(np.array([0b1011], np.uint64)).tolist()
    [3]
    """
    return np.bitwise_count(_as_u64(mask))


def current_bits(first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Stones of the side to move: ``first`` on even stone counts, else the second's.

    >>> current_bits(np.array([1], np.uint64), np.array([1], np.uint64)).tolist()
    [0]
    """
    first = _as_u64(first)
    mask = _as_u64(mask)
    return np.where(stone_counts(mask) % 2 == 0, first, first ^ mask)


def has_four_bits(bits: np.ndarray, height: int = DEFAULT_HEIGHT) -> np.ndarray:
    """For each bitboard of one player's stones: does it hold four in a row?

    Same test as :func:`solver.position.has_four`: ``m = s & (s >> d)`` marks
    pairs in direction ``d``, ``m & (m >> 2d)`` finds four in a line.

    >>> has_four_bits(np.array([0b1111, 0b0111], np.uint64)).tolist()
    [True, False]
    """
    flat, shape = _flat(bits)
    return _nb_has_four_many(flat, height).reshape(shape)


def winning_cells_bits(
    stones: np.ndarray,
    mask: np.ndarray,
    width: int = DEFAULT_WIDTH,
    height: int = DEFAULT_HEIGHT,
) -> np.ndarray:
    """Empty cells (playable or not) completing four for the owner of ``stones``.

    Element-wise :func:`solver.position.winning_cells`.

    >>> int(winning_cells_bits(np.array([0b111], np.uint64), np.array([0b111], np.uint64))[0])
    8
    """
    s = _as_u64(stones)
    mask = _as_u64(mask)
    r = (s << _U64(1)) & (s << _U64(2)) & (s << _U64(3))  # vertical: the cell above three
    for shift in (height + 1, height, height + 2):  # horizontal and both diagonals
        d1, d2, d3 = _U64(shift), _U64(2 * shift), _U64(3 * shift)
        p = (s << d1) & (s << d2)
        r |= p & (s << d3)  # xxx.
        r |= p & (s >> d1)  # xx.x
        p = (s >> d1) & (s >> d2)
        r |= p & (s << d1)  # x.xx
        r |= p & (s >> d3)  # .xxx
    return r & (_U64(board_mask(width, height)) ^ mask)


def can_win_next_bits(
    first: np.ndarray,
    mask: np.ndarray,
    width: int = DEFAULT_WIDTH,
    height: int = DEFAULT_HEIGHT,
) -> np.ndarray:
    """For each position: can the side to move complete four with its next stone?

    Same answer as :meth:`solver.Position.can_win_next`.

    >>> from solver import Position
    >>> p = Position.from_moves("1212")
    >>> p.can_win_next()
    False
    >>> q = p.play(0).play(1)  # "121212": A has three in column 1
    >>> can_win_next_bits(np.array([q.first_stones], np.uint64),
    ...                   np.array([q.mask], np.uint64)).tolist()
    [True]
    """
    f, shape = _flat(first)
    m, mask_shape = _flat(mask)
    if shape != mask_shape:
        raise ValueError(f"first and mask differ in shape: {shape} vs {mask_shape}")
    return _nb_can_win_next_many(f, m, width, height).reshape(shape)


def mirror_bits(
    bits: np.ndarray, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT
) -> np.ndarray:
    """Reverse the columns of each bitboard (column ``c`` goes to ``width - 1 - c``).

    Works on ``first``, ``mask`` and on :func:`position_keys` alike, because all
    of them keep each column's bits inside that column's ``height + 1`` bits.

    >>> mirror_bits(np.array([0b1], np.uint64)).tolist() == [1 << 42]
    True
    """
    flat, shape = _flat(bits)
    return _nb_mirror_many(flat, width, height).reshape(shape)


def position_keys(
    first: np.ndarray,
    mask: np.ndarray,
    width: int = DEFAULT_WIDTH,
    height: int = DEFAULT_HEIGHT,
) -> np.ndarray:
    """Pons' unique key ``current + mask + bottom`` of each position (never 0).

    Equal to :meth:`solver.Position.key`.
    """
    first = _as_u64(first)
    mask = _as_u64(mask)
    return current_bits(first, mask) + mask + _U64(bottom_mask(width, height))


def canonical_bits(
    first: np.ndarray,
    mask: np.ndarray,
    width: int = DEFAULT_WIDTH,
    height: int = DEFAULT_HEIGHT,
) -> tuple[np.ndarray, np.ndarray]:
    """The variant of each mirror pair with the smaller :func:`position_keys` key.

    This is the variant :meth:`solver.Position.canonical` picks, and the one
    :func:`solver.enumerate_positions` returns. Symmetric positions are unchanged.

    >>> from solver import Position
    >>> p = Position.from_moves("7")
    >>> f, m = canonical_bits(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64))
    >>> Position.from_bitboards(int(f[0]), int(m[0])) == p.canonical()
    True
    """
    first = _as_u64(first)
    mask = _as_u64(mask)
    key = position_keys(first, mask, width, height)
    flip = mirror_bits(key, width, height) < key
    mf = mirror_bits(first, width, height)
    mm = mirror_bits(mask, width, height)
    return np.where(flip, mf, first), np.where(flip, mm, mask)


# ---------------------------------------------------------------- numba, one position
@njit(cache=True, inline="always")
def _nb_has_four(s: np.uint64, height: int) -> bool:
    for shift in (1, height + 1, height, height + 2):
        d = np.uint64(shift)
        m = s & (s >> d)
        if m & (m >> (d + d)) != np.uint64(0):
            return True
    return False


@njit(cache=True, inline="always")
def _nb_winning_cells(s: np.uint64, mask: np.uint64, board: np.uint64, height: int) -> np.uint64:
    r = (s << np.uint64(1)) & (s << np.uint64(2)) & (s << np.uint64(3))
    for shift in (height + 1, height, height + 2):
        d1 = np.uint64(shift)
        d2 = np.uint64(2 * shift)
        d3 = np.uint64(3 * shift)
        p = (s << d1) & (s << d2)
        r |= p & (s << d3)
        r |= p & (s >> d1)
        p = (s >> d1) & (s >> d2)
        r |= p & (s << d1)
        r |= p & (s >> d3)
    return r & (board ^ mask)


@njit(cache=True, inline="always")
def _nb_mirror(bits: np.uint64, width: int, height: int) -> np.uint64:
    h1 = height + 1
    col_bits = np.uint64((1 << h1) - 1)
    out = np.uint64(0)
    for col in range(width):
        out |= ((bits >> np.uint64(col * h1)) & col_bits) << np.uint64((width - 1 - col) * h1)
    return out


# ----------------------------------------------------------- numba, many positions
@njit(cache=True)
def _nb_has_four_many(bits, height):
    out = np.empty(bits.size, dtype=np.bool_)
    for i in range(bits.size):
        out[i] = _nb_has_four(bits[i], height)
    return out


@njit(cache=True)
def _nb_can_win_next_many(first, mask, width, height):
    h1 = height + 1
    bottom = np.uint64(0)
    for col in range(width):
        bottom |= np.uint64(1) << np.uint64(col * h1)
    board = bottom * np.uint64((1 << height) - 1)
    out = np.empty(first.size, dtype=np.bool_)
    for i in range(first.size):
        m = mask[i]
        # the side to move owns `first` when the stone count is even
        stones = 0
        rest = m
        while rest != np.uint64(0):
            rest &= rest - np.uint64(1)
            stones += 1
        current = first[i] if stones % 2 == 0 else first[i] ^ m
        playable = (m + bottom) & board
        out[i] = _nb_winning_cells(current, m, board, height) & playable != np.uint64(0)
    return out


@njit(cache=True)
def _nb_mirror_many(bits, width, height):
    out = np.empty(bits.size, dtype=np.uint64)
    for i in range(bits.size):
        out[i] = _nb_mirror(bits[i], width, height)
    return out
