"""Vectorized bitboard helpers for many positions at once.

Positions are two ``np.uint64`` arrays in the Pons layout used by
:class:`openingbook.solver.Position`: ``first`` (stones of the first player) and ``mask``
(occupied cells), cell (col, row) = bit ``col * (height + 1) + row``. Every
function here works element-wise on such arrays and agrees with the
single-position methods of :class:`openingbook.solver.Position` (the tests check it).

Two implementations of the loops: plain numpy, and compiled numba kernels
(:mod:`openingbook.solver._kernels`, one pass, 20-100x faster on big arrays). The book
readers use these functions, and a process that only reads books should not
pay numba's import (about 0.3 s, more than the numpy version takes on a whole
book): the kernels are used only when numba is loaded already (a process that
solves or enumerates), numpy otherwise. Both give the same answers (tested).

>>> import numpy as np
>>> from openingbook.solver import Position
>>> p = Position.from_moves("112233")  # A threatens 4 on the bottom row
>>> first, mask = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
>>> can_win_next_bits(first, mask, 7, 6).tolist()
[True]
>>> int(mirror_bits(mask, 7, 6)[0]) == p.mirror().mask
True
"""

from __future__ import annotations

import sys
from types import ModuleType

import numpy as np

from openingbook.solver.errors import InvalidArgument
from openingbook.solver.position import board_mask, bottom_mask

__all__ = [
    "can_win_next_bits",
    "canonical_bits",
    "canonical_keys",
    "cells_bitboards",
    "current_bits",
    "has_four_bits",
    "mirror_bits",
    "position_keys",
    "stone_counts",
    "winning_cells_bits",
]

_U64 = np.uint64


#: below this many positions numpy is as fast as a kernel call
_KERNEL_MIN_SIZE = 64


def _as_u64(bits: np.ndarray | int) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint64)


def _kernels_for(arr: np.ndarray) -> ModuleType | None:
    """The compiled kernels if numba is loaded already and ``arr`` is big enough."""
    if arr.size < _KERNEL_MIN_SIZE or "numba" not in sys.modules:
        return None
    from openingbook.solver import _kernels

    return _kernels


def _flat(arr: np.ndarray) -> np.ndarray:
    """A contiguous 1-d view or copy of ``arr`` for the kernels."""
    return np.ascontiguousarray(arr).reshape(-1)


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


def has_four_bits(bits: np.ndarray, height: int) -> np.ndarray:
    """For each bitboard of one player's stones: does it hold four in a row?

    Same test as :func:`openingbook.solver.position.has_four`: ``m = s & (s >> d)`` marks
    pairs in direction ``d``, ``m & (m >> 2d)`` finds four in a line.

    >>> has_four_bits(np.array([0b1111, 0b0111], np.uint64), 6).tolist()
    [True, False]
    """
    s = _as_u64(bits)
    kernels = _kernels_for(s)
    if kernels is not None:
        return kernels.has_four_many(_flat(s), height).reshape(s.shape)
    found = np.zeros(s.shape, dtype=bool)
    for shift in (1, height + 1, height, height + 2):
        pairs = s & (s >> _U64(shift))
        found |= (pairs & (pairs >> _U64(2 * shift))) != 0
    return found


def winning_cells_bits(
    stones: np.ndarray,
    mask: np.ndarray,
    width: int,
    height: int,
) -> np.ndarray:
    """Empty cells (playable or not) completing four for the owner of ``stones``.

    Element-wise :func:`openingbook.solver.position.winning_cells`.

    >>> int(winning_cells_bits(np.array([0b111], np.uint64), np.array([0b111], np.uint64), 7, 6)[0])
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
    width: int,
    height: int,
) -> np.ndarray:
    """For each position: can the side to move complete four with its next stone?

    Same answer as :meth:`openingbook.solver.Position.can_win_next`.

    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("1212")
    >>> p.can_win_next()
    False
    >>> q = p.play(0).play(1)  # "121212": A has three in column 1
    >>> can_win_next_bits(np.array([q.first_stones], np.uint64),
    ...                   np.array([q.mask], np.uint64), 7, 6).tolist()
    [True]
    """
    first = _as_u64(first)
    mask = _as_u64(mask)
    if first.shape != mask.shape:
        raise InvalidArgument(f"first and mask differ in shape: {first.shape} vs {mask.shape}")
    kernels = _kernels_for(first)
    if kernels is not None:
        out = kernels.can_win_next_many(_flat(first), _flat(mask), width, height)
        return out.reshape(first.shape)
    playable = (mask + _U64(bottom_mask(width, height))) & _U64(board_mask(width, height))
    wins = winning_cells_bits(current_bits(first, mask), mask, width, height)
    return (wins & playable) != 0


def mirror_bits(bits: np.ndarray, width: int, height: int) -> np.ndarray:
    """Reverse the columns of each bitboard (column ``c`` goes to ``width - 1 - c``).

    Works on ``first``, ``mask`` and on :func:`position_keys` alike, because all
    of them keep each column's bits inside that column's ``height + 1`` bits.

    >>> mirror_bits(np.array([0b1], np.uint64), 7, 6).tolist() == [1 << 42]
    True
    """
    bits = _as_u64(bits)
    kernels = _kernels_for(bits)
    if kernels is not None:
        return kernels.mirror_many(_flat(bits), width, height).reshape(bits.shape)
    h1 = height + 1
    column = _U64((1 << h1) - 1)
    out = np.zeros(bits.shape, dtype=np.uint64)
    for col in range(width):
        out |= ((bits >> _U64(col * h1)) & column) << _U64((width - 1 - col) * h1)
    return out


def position_keys(
    first: np.ndarray,
    mask: np.ndarray,
    width: int,
    height: int,
) -> np.ndarray:
    """Pons' unique key ``current + mask + bottom`` of each position (never 0).

    Equal to :meth:`openingbook.solver.Position.key`.
    """
    first = _as_u64(first)
    mask = _as_u64(mask)
    return current_bits(first, mask) + mask + _U64(bottom_mask(width, height))


def canonical_keys(first: np.ndarray, mask: np.ndarray, width: int, height: int) -> np.ndarray:
    """One key per mirror pair: the smaller :func:`position_keys` key of the position and
    its mirror image, which is the key of the variant :func:`canonical_bits` picks (a
    key keeps each column's bits in the column, so mirroring the key mirrors the
    position). What books merge mirror pairs by and compact books store values under.

    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("7", 7, 6)
    >>> f, m = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    >>> int(canonical_keys(f, m, 7, 6)[0]) == p.canonical().key()
    True
    """
    keys = position_keys(first, mask, width, height)
    return np.minimum(keys, mirror_bits(keys, width, height))


def canonical_bits(
    first: np.ndarray,
    mask: np.ndarray,
    width: int,
    height: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The variant of each mirror pair with the smaller :func:`position_keys` key.

    This is the variant :meth:`openingbook.solver.Position.canonical` picks, and the one
    :func:`openingbook.solver.enumerate_positions` returns. Symmetric positions are unchanged.

    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("7")
    >>> f, m = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    >>> f, m = canonical_bits(f, m, 7, 6)
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


def cells_bitboards(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, mask)`` of boards given cell by
    cell: :meth:`openingbook.solver.Position.from_array`
    for arrays of boards at once.

    ``cells``: integers of shape ``(..., width, height)`` indexed ``[..., col, row]``,
    row 0 at the bottom; 0 empty, 1 first player, 2 second player. Returns two uint64
    arrays of shape ``cells.shape[:-2]``. Nothing is checked beyond the cell values
    (:class:`~openingbook.solver.errors.InvalidArgument` for another value): floating stones,
    stone counts and fours are the caller's to check
    (:func:`openingbook.solver.book_position_status`).

    >>> from openingbook.solver import Position
    >>> p = Position.from_moves("4453")
    >>> first, mask = cells_bitboards(np.array([p.to_array()]))
    >>> (int(first[0]), int(mask[0])) == (p.first_stones, p.mask)
    True
    """
    cells = np.asarray(cells)
    if cells.ndim < 2:
        raise InvalidArgument(f"expected boards of shape (..., width, height), got {cells.shape}")
    width, height = cells.shape[-2:]
    if width * (height + 1) > 64:
        raise InvalidArgument(f"a {width}x{height} board does not fit 64 bits")
    if cells.size and not np.isin(cells, (0, 1, 2)).all():
        raise InvalidArgument("a cell is not 0 (empty), 1 (first player) or 2 (second player)")
    col = np.arange(width, dtype=np.uint64)[:, None] * _U64(height + 1)
    bits = _U64(1) << (col + np.arange(height, dtype=np.uint64)[None, :])
    axes = (-2, -1)
    first = np.where(cells == 1, bits, _U64(0)).sum(axis=axes, dtype=np.uint64)
    mask = np.where(cells != 0, bits, _U64(0)).sum(axis=axes, dtype=np.uint64)
    return first, mask
