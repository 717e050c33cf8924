"""Pascal Pons' opening-book file (``7x6.book``), written and read.

Pons' solver looks every position with at most ``depth`` stones up in a fixed
hash table before searching it; a hit returns the exact score at once.

File layout (one byte each, then two arrays, little-endian):

====== =====================================================================
byte   meaning
====== =====================================================================
0      board width (7)
1      board height (6)
2      depth: the largest stone count stored; deeper positions are not looked up
3      bytes per partial key (1, 2 or 4)
4      bytes per value (always 1)
5      ``log_size``: the table has ``size`` = the smallest prime >= 2**log_size slots
6..    ``size`` partial keys, then ``size`` values
====== =====================================================================

* **Key** (``key3``): walk the columns, each from the bottom up, writing one
  base-3 digit per stone (1 for the side to move, 2 for the other player) and a
  0 after every column. Do it left to right and right to left, keep the smaller
  number, and divide it by 3 (the last digit is always 0). Mirror variants get
  the same key.
* **Slot** ``key3 % size``; the slot's partial key is ``key3`` truncated to the
  key width and its value ``score - MIN_SCORE + 1`` with ``MIN_SCORE = -(w*h)/2 + 3``
  (-18 on 7x6), so a value is 1..37 and 0 marks an empty slot. Because ``size``
  is odd and prime, (slot, truncated key) determines ``key3`` whenever
  ``key3 < size * 256**key_bytes`` (Chinese remainder theorem), which the
  writer guarantees by its choice of the key width.
* One slot holds one position: when two positions of a book share a slot, only
  one can be stored (Pons' loader accepts ``log_size`` 21..27 only). The
  writer keeps the first in book order and reports how many were dropped; the
  solver simply searches a dropped position, so its answers stay exact.

Scores are exact Pons scores, so only books with distances can be exported.

>>> from openingbook.solver import Position
>>> key3(Position.from_moves("45"))  # A on column 4, B on 5: 000 1 0 2 000 in base 3
99
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.answers import BookReader, bulk_values
from openingbook.atomicio import atomic_output
from openingbook.errors import BookFileError, InvalidArgument, reads_book
from openingbook.formats.base import Format
from openingbook.solver import BoardSize, Position, current_bits, score_bounds, stone_counts
from openingbook.values import (
    UNKNOWN,
    BookValue,
    BulkValues,
    score_tables,
    value_from_score,
)

if TYPE_CHECKING:
    from openingbook.model import BookModel, Scope

__all__ = [
    "PONS_LOG_SIZES",
    "PonsBook",
    "PonsExport",
    "PonsFormat",
    "key3",
    "write_pons",
]

HEADER_BYTES = 6
#: A Pons book cannot be checked: the format has no checksum, and a header whose board
#: is changed to another one the table also fits is read as that board.
PONS_UNCHECKED = (
    "a Pons book has no checksum: its values, and the board its header gives, are "
    "unchecked (a damaged file can answer wrong values)"
)
#: The table sizes Pons' solver can load (``OpeningBook::load``).
PONS_LOG_SIZES = range(21, 28)
_KEY_DTYPES = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<u8")}
_U64 = np.uint64
#: The file name ending of Pons books.
PONS_SUFFIXES = (".book",)


def min_score(width: int, height: int) -> int:
    """Pons' ``MIN_SCORE``: the worst score a side to move can have (-18 on 7x6).

    >>> min_score(7, 6)
    -18
    """
    return -(width * height) // 2 + 3


def next_prime(n: int) -> int:
    """The smallest prime ``>= n`` (``n >= 2``).

    >>> next_prime(2**21), next_prime(2**23)
    (2097169, 8388617)
    """
    if n <= 2:
        return 2
    candidate = n if n % 2 else n + 1
    while any(candidate % d == 0 for d in range(3, math.isqrt(candidate) + 1, 2)):
        candidate += 2
    return candidate


def key3(pos: Position) -> int:
    """Pons' symmetric base-3 key of one position (plain integers).

    >>> key3(Position.from_moves("1")) == key3(Position.from_moves("7"))
    True
    """

    def reading(columns: range) -> int:
        key = 0
        for col in columns:
            for row in range(pos.height):
                cell = pos.cell(col, row)
                if not cell:
                    break
                key = key * 3 + (1 if cell == pos.side_to_move else 2)
            key *= 3
        return key

    forward = reading(range(pos.width))
    backward = reading(range(pos.width - 1, -1, -1))
    return min(forward, backward) // 3


@functools.cache
def _column_tables(height: int) -> tuple[np.ndarray, np.ndarray]:
    """For a column's occupied bits ``m`` and side-to-move bits ``c`` (index ``m << h | c``):
    its base-3 digits bottom up as a number, and ``3 ** stones``."""
    size = 1 << (2 * height)
    value = np.zeros(size, dtype=np.uint64)
    scale = np.ones(size, dtype=np.uint64)
    for index in range(size):
        occupied, current = index >> height, index & ((1 << height) - 1)
        v, n = 0, 0
        while n < height and occupied >> n & 1:
            v = v * 3 + (1 if current >> n & 1 else 2)
            n += 1
        value[index], scale[index] = v, 3**n
    return value, scale


def key3_many(first: np.ndarray, mask: np.ndarray, width: int, height: int) -> np.ndarray:
    """:func:`key3` of every position of ``first``/``mask`` arrays (uint64).

    Each column's digits come from a table indexed by its occupied and
    side-to-move bits; a walk multiplies by ``3 ** stones`` of the column, adds
    its digits, then appends the column's 0.

    >>> p = Position.from_moves("4453")
    >>> f, m = np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64)
    >>> key3_many(f, m, 7, 6).tolist()
    [2610]
    >>> key3(p)
    2610
    """
    first = np.asarray(first, dtype=np.uint64).reshape(-1)
    mask = np.asarray(mask, dtype=np.uint64).reshape(-1)
    step = 1 << 20  # bounded temporaries: about 15 arrays of this many keys
    if first.size > step:
        return np.concatenate(
            [
                key3_many(first[i : i + step], mask[i : i + step], width, height)
                for i in range(0, first.size, step)
            ]
        )
    current = current_bits(first, mask)
    value_of, scale_of = _column_tables(height)
    bits = _U64((1 << height) - 1)
    values, scales = [], []
    for col in range(width):
        shift = _U64(col * (height + 1))
        index = (((mask >> shift) & bits) << _U64(height)) | ((current >> shift) & bits)
        index = index.astype(np.int64)
        values.append(value_of[index])
        scales.append(scale_of[index])
    keys = []
    for columns in (range(width), range(width - 1, -1, -1)):
        key = np.zeros(first.shape, dtype=np.uint64)
        for col in columns:
            key = (key * scales[col] + values[col]) * _U64(3)
        keys.append(key)
    return np.minimum(keys[0], keys[1]) // _U64(3)


@functools.cache
def _column_lists(height: int) -> tuple[list[int], list[int]]:
    value, scale = _column_tables(height)
    return value.tolist(), scale.tolist()


def _key3_one(pos: Position) -> int:
    """:func:`key3` through the column tables (the single-lookup path)."""
    values, scales = _column_lists(pos.height)
    h, full = pos.height, (1 << pos.height) - 1
    columns = []
    for col in range(pos.width):
        shift = col * (h + 1)
        index = (((pos.mask >> shift) & full) << h) | ((pos.current >> shift) & full)
        columns.append((values[index], scales[index]))
    forward = backward = 0
    for (value, scale), (value_b, scale_b) in zip(columns, reversed(columns), strict=True):
        forward = (forward * scale + value) * 3
        backward = (backward * scale_b + value_b) * 3
    return min(forward, backward) // 3


def partial_key_bytes(depth: int, size: int, width: int) -> int:
    """The narrowest key width (1, 2 or 4 bytes) making (slot, partial key) unique.

    Every ``key3`` of a position with at most ``depth`` stones is below
    ``3**(depth + width - 1)``; the pair determines it when that bound is at
    most ``size * 256**bytes``.

    >>> partial_key_bytes(12, next_prime(2**21), 7), partial_key_bytes(14, next_prime(2**23), 7)
    (1, 2)
    """
    bound = 3 ** (depth + width - 1)
    for nbytes in (1, 2, 4, 8):
        if bound <= size * 256**nbytes:
            return nbytes
    raise InvalidArgument(f"depth {depth} is too deep for a Pons book")


def choose_log_size(positions: int) -> int:
    """The smallest loadable ``log_size`` with at least 8 slots per position (at most 27).

    A load factor of 1/8 keeps about 94% of the positions (each slot holds one).

    >>> choose_log_size(1000), choose_log_size(4_200_899)
    (21, 26)
    """
    for log_size in PONS_LOG_SIZES:
        if next_prime(1 << log_size) >= 8 * positions:
            return log_size
    return PONS_LOG_SIZES[-1]


@dataclass(frozen=True)
class PonsExport:
    """What :func:`write_pons` wrote: ``stored`` of ``positions``, ``lost`` to slot clashes."""

    positions: int
    stored: int
    lost: int
    depth: int
    log_size: int
    size: int
    key_bytes: int


def write_pons(
    path: str | os.PathLike[str],
    first: np.ndarray,
    mask: np.ndarray,
    scores: np.ndarray,
    *,
    log_size: int | None = None,
    depth: int | None = None,
    width: int,
    height: int,
) -> PonsExport:
    """Write positions and their exact Pons scores as a Pons book (atomically).

    ``depth`` defaults to the largest stone count given; ``log_size`` to
    :func:`choose_log_size`. When positions share a slot, the first one given
    keeps it. Raises ``ValueError`` for a score outside Pons' range, a
    ``log_size`` Pons' solver cannot load, or an empty input.

    >>> import tempfile, os
    >>> p = Position.from_moves("4444")
    >>> out = os.path.join(tempfile.mkdtemp(), "t.book")
    >>> write_pons(out, np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64),
    ...            np.array([1]), width=7, height=6).stored
    1
    >>> PonsBook(out).get(p).score
    1
    """
    first = np.asarray(first, dtype=np.uint64)
    mask = np.asarray(mask, dtype=np.uint64)
    if first.size == 0:
        raise InvalidArgument("there are no positions to write")
    stones = stone_counts(mask)
    depth = int(stones.max()) if depth is None else depth
    if int(stones.max()) > depth:
        raise InvalidArgument(f"a position has more than depth={depth} stones")
    table = PonsTable(first.size, depth, log_size, width, height)
    table.add(first, mask, scores)
    return table.write(path)


class PonsTable:
    """A Pons book's table, filled with positions and their scores a piece at a time
    (:func:`write_pons` gives them all at once; ``export`` of a compact book gives its
    pieces, never loading it): when positions share a slot, the first one given keeps
    it. ``positions``: how many will be given (the table's size follows from it unless
    ``log_size``); ``depth``: the most stones of any."""

    def __init__(
        self, positions: int, depth: int, log_size: int | None, width: int, height: int
    ) -> None:
        if log_size is None:
            log_size = choose_log_size(positions)
        if log_size not in PONS_LOG_SIZES:
            raise InvalidArgument(
                f"log size {log_size} cannot be loaded by Pons' solver "
                f"(it accepts {PONS_LOG_SIZES[0]}..{PONS_LOG_SIZES[-1]})"
            )
        self.width, self.height, self.depth, self.log_size = width, height, depth, log_size
        self.low = min_score(width, height)
        self.size = next_prime(1 << log_size)
        self.nbytes = partial_key_bytes(depth, self.size, width)
        # zeros from the system: a page is in memory once a slot of it is written
        self.keys = np.zeros(self.size, dtype=_KEY_DTYPES[self.nbytes])
        self.values = np.zeros(self.size, dtype=np.uint8)  # 0: an empty slot
        self.given = self.stored = 0

    def add(self, first: np.ndarray, mask: np.ndarray, scores: np.ndarray) -> None:
        """Positions (of at most ``depth`` stones) and their exact Pons scores."""
        scores = np.asarray(scores)
        if scores.dtype.kind not in "iu":
            scores = scores.astype(np.int64)
        if scores.size and (scores.min() < self.low or scores.max() > -self.low):
            raise InvalidArgument(f"Pons scores must lie in {self.low}..{-self.low}")
        keys = key3_many(first, mask, self.width, self.height)
        slots = (keys % _U64(self.size)).astype(np.uint32)  # size < 2**28: half of int64
        _, keep = np.unique(slots, return_index=True)  # first occurrence in input order
        keep = keep[self.values[slots[keep]] == 0]  # and no earlier piece's there
        low_bytes = _U64((1 << (8 * self.nbytes)) - 1)
        self.keys[slots[keep]] = (keys[keep] & low_bytes).astype(self.keys.dtype)
        self.values[slots[keep]] = (scores[keep].astype(np.int64) - self.low + 1).astype(np.uint8)
        self.given += int(keys.size)
        self.stored += int(keep.size)

    def write(self, path: str | os.PathLike[str]) -> PonsExport:
        """The book at ``path`` (atomically), and what it holds."""
        header = bytes([self.width, self.height, self.depth, self.nbytes, 1, self.log_size])
        with atomic_output(path) as fh:
            fh.write(header)
            fh.write(self.keys.tobytes())
            fh.write(self.values.tobytes())
        return PonsExport(
            positions=self.given,
            stored=self.stored,
            lost=self.given - self.stored,
            depth=self.depth,
            log_size=self.log_size,
            size=self.size,
            key_bytes=self.nbytes,
        )


def pons_problem(path: Path, header: bytes, file_size: int) -> str | None:
    """Why the file at ``path`` (its first bytes ``header``, ``file_size`` bytes long) is
    not a Pons book (None: it is one): :func:`header_problem`, then
    :func:`table_problem`. The one check of both detection and the reader."""
    return header_problem(header, file_size) or table_problem(path, header)


#: the stored entries :func:`table_problem` checks: the first ones of the table
_SAMPLE_SLOTS = 1024


def table_problem(path: Path, header: bytes) -> str | None:
    """Why the table does not fit its (well-formed) header: among its first
    :data:`_SAMPLE_SLOTS` stored entries, a value above the board's best score, or,
    where the partial keys identify positions, a key that is no position of the
    announced board and depth in its smaller reading (a smaller width or height byte
    reads the keys as walks of another board). Reads the value table until it has found
    them: a few pages of a full table, the whole of a sparse one."""
    width, height, depth, nbytes, _, log_size = header[:HEADER_BYTES]
    size = next_prime(1 << log_size)
    values = np.memmap(path, np.uint8, "r", offset=HEADER_BYTES + size * nbytes, shape=(size,))
    found = []
    count = 0
    for start in range(0, size, 1 << 16):
        block = np.flatnonzero(np.asarray(values[start : start + (1 << 16)])) + start
        found.append(block[: _SAMPLE_SLOTS - count])
        count += found[-1].size
        if count == _SAMPLE_SLOTS:
            break
    slots = np.concatenate(found)
    stored = np.asarray(values[slots])
    top = score_bounds(0, width, height)[1] - min_score(width, height) + 1  # the best score
    if (stored > top).any():
        return f"a stored value is larger than {top}, the largest of a {width}x{height} book"
    if not slots.size or partial_key_bytes(depth, size, width) > nbytes:
        return None
    table = np.memmap(path, _KEY_DTYPES[nbytes], "r", offset=HEADER_BYTES, shape=(size,))
    partial = np.asarray(table[slots]).astype(np.uint64)
    keys = _crt(slots.astype(np.uint64), partial, size, 8 * nbytes)
    try:
        first, mask = _decode_key3(keys, depth, width, height)
    except BookFileError as exc:
        return f"{exc} (the header does not describe the table)"
    if (key3_many(first, mask, width, height) != keys).any():
        return "a stored key is not a position of the header's board (the header does not fit)"
    return None


def header_problem(header: bytes, file_size: int) -> str | None:
    """Why a file with this 6-byte header and size is not a Pons book, judging by the
    header alone (None: it may be one)."""
    if len(header) < HEADER_BYTES:
        return "too short for a Pons book header"
    width, height, depth, nbytes, value_bytes, log_size = header[:HEADER_BYTES]
    if not (1 <= width <= 9 and height >= 1 and width * (height + 1) <= 64):
        return f"board {width}x{height} in the header is not supported"
    if depth > width * height:
        return f"depth {depth} is larger than the board"
    if nbytes not in _KEY_DTYPES or value_bytes != 1:
        return f"key size {nbytes} / value size {value_bytes} bytes: not a Pons book"
    if not 1 <= log_size <= 32:
        return f"log2 table size {log_size} is out of range"
    expected = HEADER_BYTES + next_prime(1 << log_size) * (nbytes + 1)
    if file_size != expected:
        return (
            f"{file_size} bytes, a Pons book with log size {log_size} and "
            f"{nbytes}-byte keys has {expected}"
        )
    return None


class PonsBook(BookReader):
    """Load a Pons book and answer queries like :class:`openingbook.formats.thill.Book`.

    The tables are memory-mapped. ``get`` raises ``KeyError`` for a position the
    book does not answer (deeper than its depth, never stored, or dropped in a
    slot clash); iteration rebuilds every stored position from its slot and
    partial key.

    >>> import tempfile, os
    >>> p = Position.from_moves("44")
    >>> out = os.path.join(tempfile.mkdtemp(), "t.book")
    >>> _ = write_pons(out, np.array([p.first_stones], np.uint64),
    ...                np.array([p.mask], np.uint64), np.array([-2]), width=7, height=6)
    >>> with PonsBook(out) as book:
    ...     book.depth, len(book), [(q.to_moves() or q.some_moves(), v) for q, v in book]
    (2, 1, [('44', BookValue(winner=<Winner.SECOND: 'second'>, plies=38, score=-2))])
    """

    format_name = "pons"
    records_scope = False

    @reads_book
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        with open(self.path, "rb") as fh:
            header = fh.read(HEADER_BYTES)
        if len(header) < HEADER_BYTES:
            raise BookFileError(f"{self.path}: too short for a Pons book header")
        problem = pons_problem(self.path, header, self.path.stat().st_size)
        if problem is not None:
            raise BookFileError(f"{self.path}: {problem}")
        width, height, depth, nbytes, _, log_size = header
        size = next_prime(1 << log_size)
        self.width, self.height, self.depth = width, height, depth
        self.key_bytes, self.log_size, self.size = nbytes, log_size, size
        self._keys = np.memmap(
            self.path, dtype=_KEY_DTYPES[nbytes], mode="r", offset=HEADER_BYTES, shape=(size,)
        )
        self._values = np.memmap(
            self.path, dtype=np.uint8, mode="r", offset=HEADER_BYTES + size * nbytes, shape=(size,)
        )
        self._min = min_score(width, height)

    @property
    def unchecked(self) -> str:
        return PONS_UNCHECKED

    # ------------------------------------------------------------ container
    def _release(self) -> None:
        """Drop the memory maps (the object is unusable afterwards)."""
        self._keys = np.zeros(0, dtype=self._keys.dtype)
        self._values = np.zeros(0, dtype=np.uint8)

    def _count(self) -> int:
        return int(np.count_nonzero(self._values))

    def _records(self) -> int:
        return len(self)

    def _stones_held(self) -> tuple[int, int]:
        return 0, self.depth

    @property
    def board(self) -> BoardSize:
        return BoardSize(self.width, self.height)

    @property
    def plies(self) -> int:
        """The depth: the book holds positions of at most this many stones."""
        return self.depth

    @property
    def kind(self) -> str:
        return "score"

    @property
    def scope(self) -> Scope:
        from openingbook.model import Scope

        return Scope(
            known=False, unknown_why="a Pons book does not record its scope", board=self.board
        )

    def _answered_positions(self) -> tuple[np.ndarray, np.ndarray]:
        first, mask, _ = self.arrays()
        return first, mask

    def _stored(self, pos: Position) -> BookValue | None:
        score = self._score_of(pos)
        return None if score is None else value_from_score(score, pos.stone_count, self.board)

    def _score_of(self, pos: Position) -> int | None:
        """One lookup on plain integers, as Pons' solver does it: the score or None."""
        if pos.stone_count > self.depth:
            return None
        key = _key3_one(pos)
        slot = key % self.size
        value = int(self._values[slot])
        if value == 0 or int(self._keys[slot]) != key & ((1 << (8 * self.key_bytes)) - 1):
            return None
        score = value + self._min - 1
        low, high = score_bounds(pos.stone_count, self.width, self.height)
        if not low <= score <= high:  # a value byte no game can have: damage
            raise BookFileError(
                f"{self.path}: slot {slot} holds score {score}, impossible for a position "
                f"of {pos.stone_count} stones on {self.width}x{self.height} (damaged file)"
            )
        return score

    def _stored_many(self, first: np.ndarray, mask: np.ndarray) -> BulkValues:
        """``index`` is the table slot, -1 where not stored."""
        slots, scores = self._find(first, mask)
        stones = stone_counts(mask).astype(np.int64)
        a_to_move = stones % 2 == 0
        winner = np.where(scores == 0, 0, np.where((scores > 0) == a_to_move, 1, -1))
        plies_of = score_tables(self.board)[1]
        column = np.clip(scores.astype(np.int64) + self.board.cells // 2, 0, plies_of.shape[1] - 1)
        plies = plies_of[np.minimum(stones, self.board.cells), column]
        impossible = (slots >= 0) & (plies == UNKNOWN)
        if impossible.any():
            slot = int(slots[np.argmax(impossible)])
            raise BookFileError(f"{self.path}: slot {slot} holds an impossible score")
        return bulk_values(mask, slots, winner, plies, self.path.name, self.board, scores)

    def _find(self, first: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Look up as Pons' solver does: ``(slot or -1, score or 0)`` per position."""
        keys = key3_many(first, mask, self.width, self.height)
        slots = (keys % _U64(self.size)).astype(np.int64)
        partial = (keys & _U64((1 << (8 * self.key_bytes)) - 1)).astype(self._keys.dtype)
        values = np.asarray(self._values[slots])
        found = (
            (np.asarray(self._keys[slots]) == partial)
            & (values != 0)
            & (stone_counts(mask) <= self.depth)
        )
        scores = np.where(found, values.astype(np.int16) + self._min - 1, 0)
        cells = self.width * self.height
        stones = stone_counts(mask).astype(np.int16)
        impossible = found & (
            (scores < -((cells - stones) // 2)) | (scores > (cells + 1 - stones) // 2)
        )
        if impossible.any():  # score_bounds, element-wise: a value byte no game can have
            i = int(np.argmax(impossible))
            raise BookFileError(
                f"{self.path}: slot {int(slots[i])} holds score {int(scores[i])}, impossible "
                f"for a position of {int(stones[i])} stones (damaged file)"
            )
        return np.where(found, slots, -1), scores.astype(np.int8)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every stored position (one variant per pair) as ``(first, mask, scores)``.

        Raises :class:`BookFileError` when the partial keys are too short to rebuild
        the positions unambiguously (then the book still answers lookups).
        """
        return self._stored_at(np.flatnonzero(np.asarray(self._values)))

    def _stored_sample(self) -> tuple[np.ndarray, np.ndarray]:
        """64 stored positions spread over the table (only those are rebuilt)."""
        slots = np.flatnonzero(np.asarray(self._values))
        pick = np.unique(np.linspace(0, max(0, slots.size - 1), min(slots.size, 64)).astype(int))
        return self._stored_at(slots[pick])[:2]

    def _stored_at(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(first, mask, scores)`` of the positions stored in ``slots``."""
        if partial_key_bytes(self.depth, self.size, self.width) > self.key_bytes:
            raise BookFileError(
                f"{self.path}: {self.key_bytes}-byte partial keys cannot identify positions "
                f"of depth {self.depth}; the book can be queried but not listed"
            )
        partial = np.asarray(self._keys[slots]).astype(np.uint64)
        keys = _crt(slots.astype(np.uint64), partial, self.size, 8 * self.key_bytes)
        first, mask = _decode_key3(keys, self.depth, self.width, self.height)
        scores = np.asarray(self._values[slots]).astype(np.int16) + self._min - 1
        return first, mask, scores.astype(np.int8)


def _crt(slots: np.ndarray, partial: np.ndarray, size: int, bits: int) -> np.ndarray:
    """The key ``x < size * 2**bits`` with ``x % size == slot`` and ``x % 2**bits == partial``."""
    if bits >= 64:
        return partial
    modulus = 1 << bits
    inverse = _U64(pow(size, -1, modulus))
    t = ((partial - slots) & _U64(modulus - 1)) * inverse & _U64(modulus - 1)
    return slots + _U64(size) * t


def _decode_key3(
    keys: np.ndarray, depth: int, width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """Positions from ``key3`` values, read as the left-to-right walk."""
    ndigits = depth + width - 1
    digits = np.empty((keys.size, ndigits), dtype=np.uint8)
    rest = keys.copy()
    for i in range(ndigits):  # least significant digit first
        digits[:, i] = (rest % _U64(3)).astype(np.uint8)
        rest //= _U64(3)
    if (rest != 0).any():
        raise BookFileError("a stored key is too large for the book's depth")
    stones = np.count_nonzero(digits, axis=1)
    used = stones + width - 1  # digits of the walk: stones plus one 0 between columns
    col = np.zeros(keys.size, dtype=np.int64)
    row = np.zeros(keys.size, dtype=np.int64)
    current = np.zeros(keys.size, dtype=np.uint64)
    mask = np.zeros(keys.size, dtype=np.uint64)
    for i in range(ndigits - 1, -1, -1):  # most significant first: column 0 bottom up
        active = i < used
        d = digits[:, i]
        stone = active & (d != 0)
        if (stone & (row >= height)).any():
            raise BookFileError("a stored key has a column taller than the board")
        bit = np.where(stone, _U64(1) << (col * (height + 1) + row).astype(np.uint64), _U64(0))
        mask |= bit
        current |= np.where(d == 1, bit, _U64(0))
        row = np.where(stone, row + 1, np.where(active, 0, row))
        col = np.where(active & (d == 0), col + 1, col)
    first = np.where(stones % 2 == 0, current, current ^ mask)
    return first, mask


class PonsFormat(Format):
    name = "pons"
    description = "Pascal Pons' solver opening book (prime-sized table, key3, score + 19)"
    suffixes = (".book",)
    any_board = True
    export_options = frozenset({"log_size"})
    no_checksum = PONS_UNCHECKED

    def sniff(self, path: Path, head: bytes, size: int) -> bool:
        return pons_problem(path, head, size) is None

    def why_not(self, path: Path) -> str:
        with open(path, "rb") as fh:
            head = fh.read(HEADER_BYTES)
        return "Pons: " + (pons_problem(path, head, path.stat().st_size) or "fits")

    def open(self, path: Path, **options: Any) -> PonsBook:
        return PonsBook(path)

    exports_pieces = True

    def export(
        self, model: BookModel, out: str | os.PathLike[str], **options: Any
    ) -> tuple[int, dict[str, Any]]:
        return _export_summary(self.write(model, out, log_size=options.get("log_size")))

    def export_pieces(
        self, book: Any, out: str | os.PathLike[str], **options: Any
    ) -> tuple[int, dict[str, Any], int]:
        """The table filled with ``book``'s positions a piece at a time, in the order of
        its model (the same file as :meth:`write` of it), the book never loaded."""
        if not book.has_distances:
            raise _no_scores(book.path)
        width, height = book.board
        table = PonsTable(len(book), int(book.plies), options.get("log_size"), width, height)
        first_wins = 0
        for first, mask in book.position_pieces():
            answers = book.lookup_many(first, mask)
            if (answers.score == UNKNOWN).any():
                raise BookFileError(f"{book.path}: a position answered without its score")
            # the side to move's score, as the model's (Pons' own convention)
            table.add(first, mask, answers.score)
            first_wins += int((answers.winner == 1).sum())
        if table.given == 0:
            raise InvalidArgument("there are no positions to write")
        stored, details = _export_summary(table.write(out))
        return stored, details, first_wins

    def refuse_export(self, book: Any, **options: Any) -> None:
        super().refuse_export(book, **options)
        if book.kind == "wdl":
            raise _no_scores(book.path)

    def write(self, model: BookModel, out: str | os.PathLike[str], **options: Any) -> PonsExport:
        """Options: ``log_size``: log2 of the table size (:data:`PONS_LOG_SIZES`)."""
        if not model.has_distances:
            raise _no_scores(model.source)
        return write_pons(
            out,
            model.first,
            model.mask,
            model.score,
            log_size=options.get("log_size"),
            width=model.board.width,
            height=model.board.height,
        )


def _export_summary(result: PonsExport) -> tuple[int, dict[str, Any]]:
    """What ``export`` says of a Pons book written: the positions stored, the details."""
    return result.stored, {
        "depth": result.depth,
        "log_size": result.log_size,
        "table_size": result.size,
        "key_bytes": result.key_bytes,
        "lost_to_slot_clashes": result.lost,
    }


def _no_scores(book: str | os.PathLike[str]) -> BookFileError:
    """The refusal of a book without distances, which a Pons book cannot hold."""
    return BookFileError(
        f"{book}: a Pons book stores exact scores, and this book has no "
        "distances: export a book built with --distances"
    )
