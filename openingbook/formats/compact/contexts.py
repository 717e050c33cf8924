"""The context of a position: a small number computed from the position alone that
makes some values likelier (``docs/FORMATS.md``, "Version 3").

The compact format's version 3 keeps one prefix code of the values per context, so a
value costs about its entropy given the context. Context functions, by their code in
the header:

* ``0`` (:data:`CONTEXT_NONE`): every position has context 0;
* ``1`` (:data:`CONTEXT_THREATS_CENTRE`): the opponent's playable winning cells (0, 1,
  2 or more), each player's winning cells (0 to 3 or more each), the first player's
  winning cells on odd rows and the second player's on even rows (0 to 2 or more each),
  and each player's stones in the centre column (the two middle columns on a board of
  even width). The same for both variants of a mirror pair.

>>> import numpy as np
>>> from openingbook.solver import Position
>>> p = Position.from_moves("4444")
>>> position_contexts(np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64),
...                   7, 6, CONTEXT_THREATS_CENTRE).tolist()  # two stones each in the centre
[16]
>>> context_space(CONTEXT_THREATS_CENTRE, 7, 6)
21168
"""

from __future__ import annotations

import numpy as np

from openingbook.errors import InvalidArgument
from openingbook.solver import nb_winning_cells, njit

__all__ = [
    "CONTEXT_FUNCTIONS",
    "CONTEXT_NONE",
    "CONTEXT_THREATS_CENTRE",
    "context_constants",
    "context_space",
    "nb_context",
    "nb_context_of_cells",
    "position_contexts",
]

CONTEXT_NONE = 0
CONTEXT_THREATS_CENTRE = 1
#: The context functions, by their code in the header, with what each one holds.
CONTEXT_FUNCTIONS = {
    CONTEXT_NONE: "none",
    CONTEXT_THREATS_CENTRE: "threats and centre",
}


def _base(width: int, height: int) -> int:
    """How many stone counts one player can have in the centre column(s), plus one."""
    return height + 1 if width % 2 else 2 * height + 1


def context_space(function: int, width: int, height: int) -> int:
    """How many contexts ``function`` can give on a ``width`` x ``height`` board."""
    if function == CONTEXT_NONE:
        return 1
    if function == CONTEXT_THREATS_CENTRE:
        return 432 * _base(width, height) ** 2
    raise InvalidArgument(f"unknown context function {function}")


def context_constants(width: int, height: int) -> tuple[np.uint64, ...]:
    """The board's masks :func:`nb_context` takes: bottom row, every cell, the odd rows
    (counted from 1), the centre column(s), and the base of the centre counts."""

    def col(c: int) -> int:
        return ((1 << height) - 1) << (c * (height + 1))

    bottom = sum(1 << (c * (height + 1)) for c in range(width))
    full = sum(col(c) for c in range(width))
    odd = sum(bottom << r for r in range(0, height, 2))
    centre = col((width - 1) // 2) | col(width // 2)
    return (
        np.uint64(bottom),
        np.uint64(full),
        np.uint64(odd),
        np.uint64(centre),
        np.uint64(_base(width, height)),
    )


@njit(cache=True, inline="always")
def _at_least(x, k):
    """``min(popcount(x), k)`` for ``k`` of 2 or 3, without a popcount instruction (so
    that a loop of contexts vectorizes on processors without a vector popcount)."""
    zero = np.uint64(0)
    one = np.uint64(1)
    x1 = x & (x - one)
    n = np.int64(x != zero) + np.int64(x1 != zero)
    if k == 3:
        n += np.int64((x1 & (x1 - one)) != zero)
    return n


@njit(cache=True, inline="always")
def _count(x):
    """``popcount(x)`` of a 64-bit ``x`` by shifts and masks (vectorizes)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def nb_context(first, mask, function, height, masks):
    """The context (int64) of one position under context ``function`` (0 or 1;
    ``masks``: the board's, the tuple :func:`context_constants` gives)."""
    full = masks[1]
    a = nb_winning_cells(first, mask, full, height)
    b = nb_winning_cells(first ^ mask, mask, full, height)
    odd_stones = _count(mask) & 1
    return nb_context_of_cells(first, mask, a, b, odd_stones, function, masks)


@njit(cache=True, inline="always")
def nb_context_of_cells(first, mask, a, b, odd_stones, function, masks):
    """:func:`nb_context` given the first player's winning cells ``a``, the second
    player's ``b`` (``nb_winning_cells``) and the parity of the stone count, for a
    caller that knows them already."""
    bottom, full, odd, centre, base = masks
    second = first ^ mask
    threat = b if odd_stones == 0 else a
    f = _at_least(threat & ((mask + bottom) & full), 2)
    t = 4 * _at_least(a, 3) + _at_least(b, 3)
    o = 3 * _at_least(a & odd, 2) + _at_least(b & (full ^ odd), 2)
    k = np.int64(base)
    c = ((f * 16 + t) * 9 + o) * k * k + _count(first & centre) * k + _count(second & centre)
    return c if function != 0 else np.int64(0)


@njit(cache=True, nogil=True)  # a second a call: a signal acts meanwhile
def _contexts(first, mask, function, height, masks):
    out = np.empty(first.size, np.int64)
    for i in range(first.size):
        out[i] = nb_context(first[i], mask[i], function, height, masks)
    return out


def position_contexts(
    first: np.ndarray, mask: np.ndarray, width: int, height: int, function: int
) -> np.ndarray:
    """The context (int64) of each position under context ``function``."""
    context_space(function, width, height)  # a known function
    return _contexts(
        np.ascontiguousarray(first, np.uint64).reshape(-1),
        np.ascontiguousarray(mask, np.uint64).reshape(-1),
        function,
        height,
        context_constants(width, height),
    )
