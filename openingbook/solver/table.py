"""Transposition table: numpy arrays of packed 64-bit entries, kept across solves.

Each entry stores, for one position, a lower and an upper bound on its score
(a null-window search proves one of them; the bisection on the score range
searches a position again with other windows, and then both count) and the
move that last produced a cut-off there. The position key (``current + mask + bottom``,
``key_bits = width * (height + 1)`` bits) is mixed by an odd multiplier modulo
``2**key_bits``; that map is a bijection, so the top ``log2`` bits of the mix
choose the slot and the remaining low bits, stored in the entry, identify the
position exactly: there are no false hits, whatever the table size.

Entry layout (uint64): ``tag << 16 | move << 12 | lower << 6 | upper`` (packed
and read by the search kernel, :mod:`openingbook.solver.search`: numba compiles them into it).

* ``lower``: ``score + 32`` of a lower bound, or 0 (none);
* ``upper``: ``32 - score`` of an upper bound, or 0 (none). Both fields read
  "none" as 0, so an empty slot (a zero entry), which looks like a position whose
  tag is 0 (on boards whose key fits the table, every position's), holds no bound
  for it. A stored entry always holds a bound, so it is never zero;
* ``move``: 1 + the column of the cut-off move, or 0 (4 bits: on boards of 16
  or more columns, the columns from 15 on store a hint that is only a move
  ordering, never wrong in result).
* ``tag``: the low ``key_bits - log2`` bits of the mixed key.

A store for the position a slot holds keeps the bound it does not replace;
a store for another position replaces the entry.

Two arrays make the table: a big one for positions with few stones (large
subtrees, worth remembering for long) and a small one, 512 KiB, for deep
positions: those are probed most often, and a table that fits the core's L2
cache answers them several times faster than one in main memory or the shared
L3 cache.

>>> t = TranspositionTable(log2=16, small_log2=12)
>>> t.nbytes == (2**16 + 2**12) * 8
True
>>> t.used()
0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openingbook.solver.errors import InvalidArgument
from openingbook.solver.settings import QUERY_EMPTY, QUERY_TABLE_LOG2, SMALL_TABLE_LOG2, TABLE_LOG2

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "TranspositionTable",
    "default_table_log2",
    "min_table_log2",
    "query_table_log2",
    "table_bytes",
]

_MIX = 0x9E3779B97F4A7C15  # odd: multiplication by it is a bijection mod 2**k
#: the bound fields' offset. Every bound the search stores at a position with n
#: stones lies in -((cells - n) // 2) .. (cells - 1 - n) // 2 (a loss to the
#: opponent's next stone .. a win with our next-but-one: positions are searched only
#: when the side to move cannot win at once), so on every board that fits 64 bits
#: (at most 63 cells) in -31..31: codes 1..63 in either 6-bit field. 7x6: -18..18.
_BOUND_OFFSET = 32
_MAX_LOG2 = 32


def default_table_log2() -> int:
    """The default size of the big table, as a power of two (entries)."""
    return TABLE_LOG2


def query_table_log2(empty_cells: int) -> int:
    """The table size (log2 of its entries) for searches of positions with at most
    ``empty_cells`` empty cells: :data:`~openingbook.solver.settings.QUERY_TABLE_LOG2` (32 MiB) up
    to :data:`~openingbook.solver.settings.QUERY_EMPTY`, else the default (256 MiB).

    >>> query_table_log2(30), query_table_log2(42)  # 7x6: 12 stones, the empty board
    (22, 25)
    """
    return QUERY_TABLE_LOG2 if empty_cells <= QUERY_EMPTY else TABLE_LOG2


def min_table_log2(key_bits: int) -> int:
    """The smallest table (log2 of its entries) for keys of ``key_bits`` bits
    (``width * (height + 1)``): the tag, the key bits the slot does not give, must fit
    the entry's 48 bits above the bounds and the move, or positions would be confused.

    >>> min_table_log2(49), min_table_log2(64)  # 7x6, 8x7
    (1, 16)
    """
    return max(1, key_bits - 48)


def tiny_table_log2(width: int, height: int) -> int:
    """The table of a solver that only loads the kernels (a warm-up solves a position a
    few cells from the end): the smallest that takes the board's keys, at least 2^10.

    >>> tiny_table_log2(7, 6), tiny_table_log2(8, 7)
    (10, 16)
    """
    return max(10, min_table_log2(width * (height + 1)))


def table_bytes(log2: int = TABLE_LOG2, small_log2: int = SMALL_TABLE_LOG2) -> int:
    """Bytes a :class:`TranspositionTable` of these sizes allocates (8 per entry).

    >>> table_bytes(25) // 2**20
    256
    """
    return 8 * ((1 << log2) + (1 << small_log2))


#: Arrays this large or larger ask the kernel for 2 MiB pages (see huge_page_zeros).
_HUGE_PAGE = 2 << 20


def huge_page_zeros(entries: int) -> np.ndarray:
    """A zeroed ``uint64`` array of ``entries``, on 2 MiB pages where the system allows.

    The search probes the big table at random: with 4 KiB pages nearly every probe
    also misses the TLB (a 256 MiB table spans 65,536 pages; the core's TLB holds a
    few thousand), a page walk on top of the cache miss. Anonymous memory asked for
    with ``madvise(MADV_HUGEPAGE)`` gets transparent huge pages on Linux systems set
    to ``madvise`` or ``always`` (a 256 MiB table: 128 pages). Elsewhere (or for
    small arrays) this is a plain ``numpy.zeros``; the contents are the same.
    """
    import contextlib
    import mmap

    import numpy as np

    nbytes = 8 * entries
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if nbytes < _HUGE_PAGE or advice is None:
        return np.zeros(entries, dtype=np.uint64)
    # one extra huge page so the array can start on a 2 MiB boundary
    # private: shared anonymous memory is shmem, which has its own (usually off) setting
    memory = mmap.mmap(-1, nbytes + _HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    with contextlib.suppress(OSError):  # no huge pages here: ordinary pages, same array
        memory.madvise(advice)
    whole = np.frombuffer(memory, dtype=np.uint8)
    skip = (-whole.ctypes.data) % _HUGE_PAGE
    return whole[skip : skip + nbytes].view(np.uint64)


class TranspositionTable:
    """The two arrays of a solver's table plus their parameters.

    ``log2`` / ``small_log2``: number of entries (powers of two) of the big and
    the small array; ``key_bits``: bits of a position key for the board size.
    Memory is ``8 * (2**log2 + 2**small_log2)`` bytes.
    """

    def __init__(
        self,
        log2: int = TABLE_LOG2,
        small_log2: int = SMALL_TABLE_LOG2,
        key_bits: int = 49,
    ) -> None:
        for name, value in (("log2", log2), ("small_log2", small_log2)):
            if not isinstance(value, int) or not 1 <= value <= _MAX_LOG2:
                raise InvalidArgument(
                    f"table {name} must be an integer 1-{_MAX_LOG2}, got {value!r}"
                )
        if not 1 <= key_bits <= 64:
            raise InvalidArgument(f"key_bits must be 1-64, got {key_bits}")
        if min(log2, small_log2) < min_table_log2(key_bits):
            raise InvalidArgument(
                f"table too small for {key_bits}-bit keys: use log2 >= {min_table_log2(key_bits)}"
            )
        self.log2 = min(log2, key_bits)
        self.small_log2 = min(small_log2, key_bits)
        self.key_bits = key_bits
        import numpy as np  # here, not above: `openingbook --help` reads TABLE_LOG2

        self.big = huge_page_zeros(1 << self.log2)
        self.small = huge_page_zeros(1 << self.small_log2)
        #: (log2, small_log2, key_bits) as the search kernel reads them
        self.params = np.array([self.log2, self.small_log2, key_bits], dtype=np.int64)

    @property
    def nbytes(self) -> int:
        return int(self.big.nbytes + self.small.nbytes)

    def clear(self) -> None:
        """Forget every entry."""
        self.big.fill(0)
        self.small.fill(0)

    def used(self) -> int:
        """Number of occupied slots (both arrays)."""
        import numpy as np

        return int(np.count_nonzero(self.big) + np.count_nonzero(self.small))

    def __repr__(self) -> str:
        return (
            f"TranspositionTable(log2={self.log2}, small_log2={self.small_log2}, "
            f"key_bits={self.key_bits})"
        )
