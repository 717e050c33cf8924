"""Answer positions from a book file without loading it.

:class:`Book` memory-maps the file. A single lookup (:meth:`Book.get`) runs
the mirrored dual binary search of Thill's reader: one loop, two searches
side by side (the column code and the mirrored code) with the step sequence
``step = size - 1``, then ``(step + (step & 1)) >> 1`` down to 0, so it reads
about 2 x log2(records) records and nothing else. A bulk lookup
(:meth:`Book.lookup_many`) encodes numpy arrays of positions and runs
``np.searchsorted`` over the file's keys.

Two deliberate differences from the original Java reader, both about
correctness: a probe outside the array compares as "past the end" (the
original compares with the previously read code, so its search for a code
never reaches records 0-3 of the 8-ply file; it still answers those positions
because that file happens to store their mirror images too), and when the
step sequence cannot reach record 0 (sizes ``2^k + 1``) one extra probe reads it.

Answers (:class:`BookValue`): the winner, the plies to the end of the game
under perfect play (``None`` in a book without distances), and the Pons score
of the side to move (``None`` when only win/draw/loss is known; 0 for every
draw). A position that is not stored is

* in a pruned book: a first-player win (the pruning rule), except that the side
  to move wins when it can complete four at once (such positions are never
  stored);
* in a distance book: a win in 1 ply for the side to move when it can complete
  four at once, otherwise an error (:class:`PositionNotInBook`).

>>> from solver import Position
>>> with Book(REFERENCE / "thill-original-book8.dat") as book:
...     book.format.name, len(book), book.get(Position.from_moves("44444455")).winner
('8-ply', 34286, <Winner.FIRST: 'first'>)
"""

from __future__ import annotations

import mmap
import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np

from openingbook.bookfile import (
    CELLS,
    VALUE_DRAW,
    VALUE_FIRST,
    VALUE_SECOND,
    BookFormat,
    Records,
    check_records,
    check_size,
    detect_format,
    parse_records,
)
from openingbook.codec import decode_keys, encode_key_pairs, legal_mask, position_key_pair
from openingbook.errors import InvalidArgument
from solver import (
    DEFAULT_HEIGHT,
    DEFAULT_WIDTH,
    Position,
    Winner,
    can_win_next_bits,
    score_from_plies,
)

__all__ = [
    "UNKNOWN",
    "WINNER_CODES",
    "Book",
    "BookValue",
    "BulkValues",
    "PositionNotInBook",
    "search_steps",
]

_BIG_ENDIAN_U64 = struct.Struct(">Q")

#: Marks "not known" in the arrays of :class:`BulkValues`.
UNKNOWN = -128
#: Winner codes of :class:`BulkValues`: +1 first player, -1 second, 0 draw.
WINNER_CODES = {Winner.FIRST: 1, Winner.SECOND: -1, Winner.DRAW: 0}
_WINNERS = {1: Winner.FIRST, -1: Winner.SECOND, 0: Winner.DRAW}


class BookValue(NamedTuple):
    """A book's answer for one position."""

    winner: Winner
    plies: int | None
    score: int | None


class BulkValues(NamedTuple):
    """Answers for arrays of positions (one element per position).

    ``index``: the record that answered (-1 where nothing is stored);
    ``winner``: +1 first player, -1 second, 0 draw (:data:`UNKNOWN` where not
    known); ``plies`` and ``score`` as in :class:`BookValue`, :data:`UNKNOWN`
    for ``None``.
    """

    index: np.ndarray
    winner: np.ndarray
    plies: np.ndarray
    score: np.ndarray


class PositionNotInBook(ValueError):
    """A position of the book's ply that a distance book does not hold."""


def search_steps(size: int) -> list[int]:
    """The step sequence of the dual binary search over ``size`` records.

    >>> search_steps(10)
    [5, 3, 2, 1, 0]
    """
    steps = []
    step = size - 1
    while step > 0:
        step = (step + (step & 1)) >> 1 if step != 1 else 0
        steps.append(step)
    return steps


class Book:
    """A memory-mapped book file: ``get``, ``in``, iteration, bulk lookups.

    ``fmt`` defaults to :func:`openingbook.bookfile.detect_format`. With
    ``check`` the whole file is verified first (order, values, positions).
    The file's size is always checked; reading answers never parses more
    than the probed records.
    """

    def __init__(
        self, path: str | os.PathLike[str], fmt: BookFormat | None = None, check: bool = False
    ) -> None:
        self.path = Path(path)
        self.format = fmt if fmt is not None else detect_format(self.path)
        size = self.path.stat().st_size
        check_size(self.path, size, self.format)
        self._size = size // self.format.record_bytes
        self._fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        try:
            # an empty book (its manifest says 0 records) cannot be mapped: no probe reads it
            self._mm = mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        except BaseException:
            self._fh.close()
            raise
        self._order: np.ndarray | None = None
        self._values: np.ndarray | None = None
        self._luts = _value_tables(self.format)
        if check:
            check_records(self.format, self.records(), str(self.path))

    # ------------------------------------------------------------- lifecycle
    def close(self) -> None:
        self._order = self._values = None
        if self._mm is not None and not self._mm.closed:
            self._mm.close()
        self._fh.close()

    def __enter__(self) -> Book:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        return self._size

    def __repr__(self) -> str:
        return f"Book({str(self.path)!r}, {self.format.name}, {self._size} records)"

    # --------------------------------------------------------------- records
    def records(self) -> Records:
        """All records as arrays (no Python object per record)."""
        data = self._file_bytes()
        try:
            return parse_records(data, self.format)
        finally:
            del data

    def _file_bytes(self) -> np.ndarray:
        """The file as a read-only byte array (memory-mapped; empty for an empty book)."""
        if self._size == 0:
            return np.empty(0, dtype=np.uint8)
        return np.memmap(self.path, dtype=np.uint8, mode="r")

    def record(self, index: int) -> tuple[int, int]:
        """``(key, value)`` of one record, read from the map."""
        if not 0 <= index < self._size:
            raise IndexError(f"record {index} outside 0..{self._size - 1}")
        return self._read(index)

    def _read(self, index: int) -> tuple[int, int]:
        fmt = self.format
        start = index * fmt.record_bytes
        field = int.from_bytes(self._mm[start : start + fmt.key_bytes], "big")
        if fmt.distances:
            byte = self._mm[start + fmt.key_bytes]
            return field, byte - 256 if byte > 127 else byte
        return field & ~3, field & 3

    # --------------------------------------------------------- single lookup
    def dual_search(self, key: int, mirrored: int) -> tuple[int | None, int]:
        """Find ``key`` or ``mirrored`` (column-code keys): ``(record index or None, probes)``."""
        fmt = self.format
        size = self._size
        mm = self._mm
        rb, kb = fmt.record_bytes, fmt.key_bytes
        # compare in file order: flip the sign bit of signed keys (offset binary)
        flip = 1 << (fmt.key_bits - 1) if fmt.signed_order else 0
        # read 8 bytes ending with the key (one C call, no slice), keep the key bits;
        # pruned books also drop the two value bits
        keep = ((1 << fmt.key_bits) - 1) & (-1 if fmt.distances else ~3)
        unpack = _BIG_ENDIAN_U64.unpack_from
        target, target_m = key ^ flip, mirrored ^ flip
        past_end = 1 << 64
        probes = 0

        def code_at(p: int) -> int:
            """The key of record ``p`` in file order; outside the file: past that end."""
            nonlocal probes
            if not 0 <= p < size:
                return past_end if p >= size else -1
            probes += 1
            start = p * rb + kb - 8
            if start >= 0:
                return (unpack(mm, start)[0] & keep) ^ flip
            return (int.from_bytes(mm[start + 8 - kb : start + 8], "big") & keep) ^ flip

        pos = pos_m = step = size - 1
        while step > 0:
            step = (step + (step & 1)) >> 1 if step != 1 else 0
            code = code_at(pos)
            if target < code:
                pos -= step
            elif target > code:
                pos += step
            else:
                return pos, probes
            code = code_at(pos_m)
            if target_m < code:
                pos_m -= step
            elif target_m > code:
                pos_m += step
            else:
                return pos_m, probes
        # the steps add up to one short of record 0 when size - 1 is a power of two
        if (size == 1 or pos == 1 or pos_m == 1) and code_at(0) in (target, target_m):
            return 0, probes
        return None, probes

    def find(self, pos: Position) -> int | None:
        """The index of the record holding ``pos`` or its mirror image, else None."""
        self._check_position(pos)
        return self.dual_search(*position_key_pair(pos, self.format.key_bits))[0]

    def __contains__(self, pos: object) -> bool:
        if not isinstance(pos, Position):
            return False
        if pos.stone_count != self.format.plies:
            return False
        return self.find(pos) is not None

    def get(self, pos: Position) -> BookValue:
        """The book's answer for ``pos`` (see the module docstring for missing positions).

        Raises ``ValueError`` for a position with the wrong stone count and
        :class:`PositionNotInBook` for a missing one in a distance book.
        """
        return self.lookup(pos)[0]

    def lookup(self, pos: Position) -> tuple[BookValue, int | None]:
        """:meth:`get` plus the index of the record that answered (None: not stored)."""
        index = self.find(pos)
        if index is not None:
            return self._value(self._read(index)[1], index), index
        return self._missing(pos), None

    def _check_position(self, pos: Position) -> None:
        if (pos.width, pos.height) != (DEFAULT_WIDTH, DEFAULT_HEIGHT):
            raise InvalidArgument(f"the book is for 7x6 boards, not {pos.width}x{pos.height}")
        n = pos.stone_count
        if n != self.format.plies:
            raise InvalidArgument(
                f"the position has {n} stones; {self.path.name} holds "
                f"{self.format.plies}-stone positions"
            )

    def _value(self, raw: int, index: int | None = None) -> BookValue:
        winner_lut, plies_lut, score_lut, valid_lut = self._luts
        b = raw & 0xFF
        if not valid_lut[b]:
            where = f"record {index}" if index is not None else "a record"
            raise ValueError(f"{self.path}: {where} has the impossible value {raw}")
        plies, score = int(plies_lut[b]), int(score_lut[b])
        return BookValue(
            _WINNERS[int(winner_lut[b])],
            None if plies == UNKNOWN else plies,
            None if score == UNKNOWN else score,
        )

    def _missing(self, pos: Position) -> BookValue:
        n = pos.stone_count
        if not self.format.distances and n % 2 == 0:
            return BookValue(Winner.FIRST, None, None)  # the pruning rule (A to move)
        if pos.can_win_next():
            mover = Winner.FIRST if n % 2 == 0 else Winner.SECOND
            if self.format.distances:
                return BookValue(mover, 1, score_from_plies(1, n))
            return BookValue(mover, None, None)
        if self.format.distances:
            raise PositionNotInBook(
                f"position not in {self.path.name}: a {self.format.name} book stores every "
                f"{n}-stone position where the side to move cannot win at once"
            )
        return BookValue(Winner.FIRST, None, None)

    # ------------------------------------------------------------ iteration
    def __iter__(self) -> Iterator[tuple[Position, BookValue]]:
        """``(Position, BookValue)`` for every record, in file order."""
        fmt = self.format
        chunk = 1 << 16
        data = self._file_bytes()
        for start in range(0, self._size, chunk):
            stop = min(self._size, start + chunk)
            recs = parse_records(data[start * fmt.record_bytes : stop * fmt.record_bytes], fmt)
            first, mask = decode_keys(recs.keys, fmt.key_bits, fmt.plies, check_legal=False)
            for i in range(len(recs)):
                pos = Position.from_bitboards(int(first[i]), int(mask[i]), check=False)
                yield pos, self._value(int(recs.values[i]), start + i)

    # ---------------------------------------------------------- bulk lookup
    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._order is None or self._values is None:
            recs = self.records()
            self._order = self.format.order_keys(recs.keys)
            self._values = recs.values
        return self._order, self._values

    def find_many(self, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Record index of each position or its mirror image (-1 where not stored).

        Raises ``ValueError`` naming the first position with the wrong stone
        count or an illegal board.
        """
        first = np.asarray(first, dtype=np.uint64)
        mask = np.asarray(mask, dtype=np.uint64)
        fmt = self.format
        counts = np.bitwise_count(mask)
        wrong = counts != fmt.plies
        if wrong.any():
            i = int(np.argmax(wrong))
            raise InvalidArgument(
                f"position {i} has {int(counts.flat[i])} stones; {self.path.name} holds "
                f"{fmt.plies}-stone positions"
            )
        keys, mirrored = encode_key_pairs(first, mask, fmt.key_bits)
        illegal = ~legal_mask(first, mask)
        if illegal.any():
            i = int(np.argmax(illegal))
            raise InvalidArgument(f"position {i} is not legal (stone counts or four in a row)")
        order, _ = self._arrays()
        index = _search_sorted(order, fmt.order_keys(keys))
        # the mirror image only where the position itself is not stored
        missing = np.flatnonzero(index < 0)
        if len(missing):
            index[missing] = _search_sorted(order, fmt.order_keys(mirrored[missing]))
        return index

    def lookup_many(self, first: np.ndarray, mask: np.ndarray, strict: bool = True) -> BulkValues:
        """Bulk :meth:`get` over ``first``/``mask`` uint64 arrays.

        Missing positions follow the same rules as :meth:`get`. In a distance
        book a missing position where the side to move cannot win at once
        raises :class:`PositionNotInBook` (naming the first one), or with
        ``strict=False`` gets :data:`UNKNOWN` in all three value arrays.
        """
        first = np.asarray(first, dtype=np.uint64)
        mask = np.asarray(mask, dtype=np.uint64)
        index = self.find_many(first, mask)
        _, values = self._arrays()
        winner_lut, plies_lut, score_lut, valid_lut = self._luts
        # value bytes as intp indices into the per-byte tables (fast gathers)
        raw = values.take(np.maximum(index, 0)).view(np.uint8).astype(np.intp)
        found = index >= 0
        valid = valid_lut.take(raw)
        if not valid[found].all():
            bad = int(index[found][np.argmax(~valid[found])])
            raise ValueError(f"{self.path}: record {bad} has an impossible value")
        winner = np.where(found, winner_lut.take(raw), UNKNOWN).astype(np.int8)
        plies = np.where(found, plies_lut.take(raw), UNKNOWN).astype(np.int16)
        score = np.where(found, score_lut.take(raw), UNKNOWN).astype(np.int16)
        missing = np.flatnonzero(~found)
        if len(missing):
            n = self.format.plies
            wins_now = can_win_next_bits(first[missing], mask[missing])
            mover = 1 if n % 2 == 0 else -1
            if self.format.distances:
                if strict and not wins_now.all():
                    i = int(missing[np.argmax(~wins_now)])
                    raise PositionNotInBook(f"position {i} is not in {self.path.name}")
                win_idx = missing[wins_now]
                winner[win_idx] = mover
                plies[win_idx] = 1
                score[win_idx] = score_from_plies(1, n)
            else:
                winner[missing] = np.where(wins_now, mover, 1)
        return BulkValues(index, winner, plies, score)


def _search_sorted(order: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Index of each target in the ascending ``order`` array, -1 where absent.

    The targets are searched in ascending order: consecutive binary searches then
    walk nearby memory, several times faster than random queries on a large book.
    """
    if len(order) == 0 or len(targets) == 0:
        return np.full(len(targets), -1, dtype=np.int64)
    perm = np.argsort(targets)
    ascending = targets[perm]
    at = np.searchsorted(order, ascending)
    np.minimum(at, len(order) - 1, out=at)
    hit = order[at] == ascending
    out = np.empty(len(targets), dtype=np.int64)
    out[perm] = np.where(hit, at, -1)
    return out


def _value_tables(fmt: BookFormat) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Winner code, plies, score and validity for each raw value byte (as uint8)."""
    winner = np.full(256, UNKNOWN, dtype=np.int16)
    plies = np.full(256, UNKNOWN, dtype=np.int16)
    score = np.full(256, UNKNOWN, dtype=np.int16)
    valid = np.zeros(256, dtype=bool)
    n = fmt.plies
    if not fmt.distances:
        for v, w in ((VALUE_DRAW, 0), (VALUE_SECOND, -1), (VALUE_FIRST, 1)):
            winner[v] = w
            valid[v] = True
        score[VALUE_DRAW] = 0
        return winner, plies, score, valid
    winner[0], plies[0], score[0], valid[0] = 0, CELLS - n, 0, True
    for d in range(1, CELLS - n + 1):
        # the player who places stone n + d wins: the first player on odd stone numbers
        first_places_last = (n + d) % 2 == 1
        for first_wins in (True, False):
            b = (100 - d) if first_wins else (256 - (100 - d))
            winner[b] = 1 if first_wins else -1
            plies[b] = d
            valid[b] = True
            if first_wins == first_places_last:
                score[b] = score_from_plies(d, n)
            # else: a faulty distance (the winner cannot play the last stone): the
            # stored winner and distance are answered, the score stays unknown
    return winner, plies, score, valid
