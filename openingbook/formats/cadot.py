"""Sidney Cadot's lookup-table format: sorted 7-byte records, base-111 column keys.

Each record is a 6-byte big-endian position key followed by one outcome byte.

* **Columns.** A column of the 7x6 board is read as a base-3 number, bottom
  cell least significant, digit 0 empty, 1 first player (A), 2 second player
  (B). Of the 3^6 = 729 numbers only 111 can occur in a game: no stone floats
  above an empty cell, and a column that still holds four of a kind after its
  top stone is removed is past the end of a game. Their index in ascending
  order (0..110) is the column's digit, see :func:`cadot_columns`.
* **Key.** ``v1 = sum(111**k * c[k])`` reads the board left to right,
  ``v2 = sum(111**k * c[6 - k])`` right to left; the key is ``min(v1, v2)``, so
  both variants of a mirror pair have the same key and a file holds the pair
  once. ``111**7 < 2**48``: six bytes.
* **Outcome.** ``o & 0xC0``: ``0x00`` draw, ``0x40`` A wins, ``0x80`` B wins;
  ``o & 0x3F``: half-moves (plies) from the position to that result: to the
  winning stone, or to the full board for a draw.

Cadot's own table holds every reachable position (2.27e12 records); an export
of one of our books holds what the book holds (one ply, one record per mirror
pair). Books without distances export with a half-move count of 0 ("unknown")
only on request (``export --no-distance``).

>>> from openingbook.solver import Position
>>> cadot_columns()[:8]
[0, 1, 2, 4, 5, 7, 8, 13]
>>> cadot_key(Position.from_moves("4"))  # column 3 holds one A stone: digit 1
1367631
>>> 111**3
1367631
"""

from __future__ import annotations

import contextlib
import itertools
import mmap
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.answers import BookReader, bulk_values
from openingbook.atomicio import atomic_output
from openingbook.errors import BookFileError, InvalidArgument, reads_book
from openingbook.formats.base import Format, require_7x6
from openingbook.solver import DEFAULT_BOARD, BoardSize, Position
from openingbook.values import (
    UNKNOWN,
    WINNERS,
    BookValue,
    BulkValues,
    value_from_plies,
)

if TYPE_CHECKING:
    from openingbook.model import BookModel, Scope

__all__ = [
    "CADOT_RECORD_BYTES",
    "CadotBook",
    "CadotFormat",
    "cadot_columns",
    "cadot_key",
    "cadot_keys",
    "write_cadot",
]

#: Cadot's keys are of the 7x6 board: the format's own board, not a default.
CADOT_BOARD = BoardSize(7, 6)
WIDTH, HEIGHT = CADOT_BOARD
CADOT_RECORD_BYTES = 7
#: File name endings that mark a Cadot table.
CADOT_SUFFIXES = (".cadot", ".c4db")
KEY_BYTES = 6
BASE = 111
OUTCOME_DRAW, OUTCOME_FIRST, OUTCOME_SECOND = 0x00, 0x40, 0x80
_WINNER_BITS = 0xC0
#: A Cadot table's values cannot be checked: the format has no checksum.
CADOT_UNCHECKED = (
    "a Cadot table has no checksum: its values are unchecked (a damaged file can answer "
    "wrong values)"
)
_HALF_MOVES = 0x3F
_U64 = np.uint64


def _column_is_reachable(value: int, height: int) -> bool:
    """Can the base-3 column ``value`` (bottom digit least significant) occur in a game?"""
    digits = [(value // 3**r) % 3 for r in range(height)]
    stones = 0
    while stones < height and digits[stones]:
        stones += 1
    if any(digits[stones:]):
        return False  # a stone above an empty cell
    below_top = digits[: max(stones - 1, 0)]
    # the game ends with the stone that completes four: four of a kind may only
    # be completed by the top stone
    return all(len(set(below_top[i : i + 4])) != 1 for i in range(len(below_top) - 3))


def cadot_columns(height: int = HEIGHT) -> list[int]:
    """The base-3 values of the reachable columns, ascending; a column's digit is its index.

    >>> len(cadot_columns())
    111
    >>> cadot_columns()[-1]  # BBBBAB from the top: 2,2,2,2,1,2 in base 3
    725
    """
    return [v for v in range(3**height) if _column_is_reachable(v, height)]


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Digit of every base-3 column value (-1 when unreachable); per digit the
    column's first-player and occupied bits (column 0 of the bitboard layout)."""
    columns = cadot_columns()
    digit_of = np.full(3**HEIGHT, -1, dtype=np.int16)
    digit_of[columns] = np.arange(len(columns), dtype=np.int16)
    first_bits = np.zeros(len(columns), dtype=np.uint64)
    mask_bits = np.zeros(len(columns), dtype=np.uint64)
    for d, value in enumerate(columns):
        for row in range(HEIGHT):
            cell = (value // 3**row) % 3
            if cell:
                mask_bits[d] |= _U64(1 << row)
            if cell == 1:
                first_bits[d] |= _U64(1 << row)
    return digit_of, first_bits, mask_bits


_DIGIT_OF, _FIRST_BITS, _MASK_BITS = _tables()
_POWERS = np.array([BASE**k for k in range(WIDTH)], dtype=np.uint64)


def _digits_by_bits() -> np.ndarray:
    """Cadot digit of a column from its occupied and first-player bits (``m << 6 | f``)."""
    table = np.full(1 << (2 * HEIGHT), -1, dtype=np.int16)
    for index in range(table.size):
        occupied, first = index >> HEIGHT, index & ((1 << HEIGHT) - 1)
        if first & ~occupied:
            continue
        value = sum((1 if first >> r & 1 else 2) * 3**r for r in range(HEIGHT) if occupied >> r & 1)
        table[index] = _DIGIT_OF[value]
    return table


_DIGIT_BY_BITS = _digits_by_bits()


def _column_digits(first: np.ndarray, mask: np.ndarray, offset: int = 0) -> np.ndarray:
    """Cadot digit of every column, shape ``(n, 7)``; ``ValueError`` on an impossible column
    (naming the position by its index plus ``offset``)."""
    first = np.asarray(first, dtype=np.uint64).reshape(-1)
    mask = np.asarray(mask, dtype=np.uint64).reshape(-1)
    bits = _U64((1 << HEIGHT) - 1)
    digits = np.empty((first.size, WIDTH), dtype=np.int16)
    for col in range(WIDTH):
        shift = _U64(col * (HEIGHT + 1))
        index = (((mask >> shift) & bits) << _U64(HEIGHT)) | ((first >> shift) & bits)
        digits[:, col] = _DIGIT_BY_BITS[index.astype(np.int64)]
    bad = np.flatnonzero((digits < 0).any(axis=1))
    if bad.size:
        raise InvalidArgument(
            f"position {int(bad[0]) + offset} has a column that cannot occur in a game "
            "(floating stone or four of a kind below the top)"
        )
    return digits


def cadot_keys(first: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Cadot's key ``min(v1, v2)`` of each position (7x6 ``first``/``mask`` arrays), uint64.

    >>> p = Position.from_moves("4453")
    >>> int(cadot_keys(np.array([p.first_stones], np.uint64),
    ...                np.array([p.mask], np.uint64))[0]) == cadot_key(p)
    True
    """
    first = np.asarray(first, dtype=np.uint64).reshape(-1)
    mask = np.asarray(mask, dtype=np.uint64).reshape(-1)
    keys = np.empty(first.size, np.uint64)
    for start in range(0, first.size, _KEY_BLOCK):  # 7 digits of 8 bytes a position
        block = slice(start, start + _KEY_BLOCK)
        digits = _column_digits(first[block], mask[block], start).astype(np.uint64)
        keys[block] = np.minimum(digits @ _POWERS, digits[:, ::-1] @ _POWERS)
    return keys


#: positions whose digits :func:`cadot_keys` holds at once (about 60 MB)
_KEY_BLOCK = 1 << 20


def cadot_key(pos: Position) -> int:
    """Cadot's key of one position (plain integers, the definition read literally).

    >>> cadot_key(Position.from_moves("1")) == cadot_key(Position.from_moves("7"))
    True
    """
    if (pos.width, pos.height) != (WIDTH, HEIGHT):
        raise InvalidArgument("Cadot keys are defined for the 7x6 board only")
    columns = cadot_columns()
    c = []
    for col in range(WIDTH):
        value = sum(pos.cell(col, row) * 3**row for row in range(HEIGHT))
        if value not in columns:
            raise InvalidArgument(f"column {col + 1} cannot occur in a game")
        c.append(columns.index(value))
    v1 = sum(BASE**k * c[k] for k in range(WIDTH))
    v2 = sum(BASE**k * c[WIDTH - 1 - k] for k in range(WIDTH))
    return min(v1, v2)


def decode_cadot_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, mask)`` of each key, reading the digits as ``v1`` (columns 0..6).

    A key is the smaller reading, so this gives one variant of the mirror pair.
    Raises ``ValueError`` for a key of ``111**7`` or more.
    """
    keys = np.asarray(keys, dtype=np.uint64)
    if keys.size and int(keys.max()) >= BASE**WIDTH:
        bad = int(np.flatnonzero(keys >= _U64(BASE**WIDTH))[0])
        raise InvalidArgument(f"key {bad} ({int(keys[bad])}) is not a Cadot key (>= 111**7)")
    first = np.zeros(keys.size, dtype=np.uint64)
    mask = np.zeros(keys.size, dtype=np.uint64)
    rest = keys.copy()
    for col in range(WIDTH):
        d = (rest % _U64(BASE)).astype(np.int64)
        rest //= _U64(BASE)
        shift = _U64(col * (HEIGHT + 1))
        first |= _FIRST_BITS[d] << shift
        mask |= _MASK_BITS[d] << shift
    return first, mask


def encode_outcomes(winner: np.ndarray, half_moves: np.ndarray) -> np.ndarray:
    """Outcome bytes from first-player results (+1 A wins, -1 B wins, 0 draw) and half-moves.

    >>> encode_outcomes(np.array([1, -1, 0]), np.array([7, 12, 34])).tolist()
    [71, 140, 34]
    """
    winner = np.asarray(winner)
    half = np.asarray(half_moves).astype(np.int64)
    if half.size and (half.min() < 0 or half.max() > WIDTH * HEIGHT):
        raise InvalidArgument("half-move counts must be between 0 and 42")
    bits = np.where(winner > 0, OUTCOME_FIRST, np.where(winner < 0, OUTCOME_SECOND, OUTCOME_DRAW))
    return (bits | half).astype(np.uint8)


def decode_outcomes(outcomes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(winner, half_moves)`` from outcome bytes; ``ValueError`` on the unused ``0xC0`` bits.

    >>> [a.tolist() for a in decode_outcomes(np.array([71, 140, 34], np.uint8))]
    [[1, -1, 0], [7, 12, 34]]
    """
    o = np.asarray(outcomes, dtype=np.uint8)
    bits = o & np.uint8(_WINNER_BITS)
    if (bits == _WINNER_BITS).any():
        bad = int(np.flatnonzero(bits == _WINNER_BITS)[0])
        raise BookFileError(f"record {bad}: outcome byte 0x{int(o[bad]):02x} has both winner bits")
    winner = np.where(bits == OUTCOME_FIRST, 1, np.where(bits == OUTCOME_SECOND, -1, 0))
    return winner.astype(np.int8), (o & np.uint8(_HALF_MOVES)).astype(np.int8)


def _records(keys: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
    """Sorted ``(n, 7)`` byte records; equal keys must carry equal outcomes (kept once)."""
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    outcomes = outcomes[order]
    same = keys[1:] == keys[:-1]
    if same.any():
        clash = np.flatnonzero(same & (outcomes[1:] != outcomes[:-1]))
        if clash.size:
            raise BookFileError(
                f"the book gives two different values to one mirror pair (Cadot key "
                f"{int(keys[clash[0]])})"
            )
        keep = np.concatenate(([True], ~same))
        keys, outcomes = keys[keep], outcomes[keep]
    return _record_bytes(keys, outcomes)


def _record_bytes(keys: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
    """``(n, 7)`` byte records of keys and outcome bytes, in the order given."""
    records = np.empty((keys.size, CADOT_RECORD_BYTES), dtype=np.uint8)
    records[:, :KEY_BYTES] = keys.astype(">u8").view(np.uint8).reshape(-1, 8)[:, 8 - KEY_BYTES :]
    records[:, KEY_BYTES] = outcomes
    return records


def write_cadot(
    path: str | os.PathLike[str],
    first: np.ndarray,
    mask: np.ndarray,
    winner: np.ndarray,
    half_moves: np.ndarray,
) -> int:
    """Write a Cadot file (sorted, one record per mirror pair, atomically); return the count.

    ``winner``: +1 first player wins, -1 second, 0 draw; ``half_moves``: plies
    to the result (0 = unknown). Raises ``ValueError`` when both variants of a
    pair are given different values.

    >>> import tempfile, os
    >>> p = Position.from_moves("44")
    >>> out = os.path.join(tempfile.mkdtemp(), "two.cadot")
    >>> write_cadot(out, np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64),
    ...             np.array([1]), np.array([39]))
    1
    >>> CadotBook(out).get(p)
    BookValue(winner=<Winner.FIRST: 'first'>, plies=39, score=1)
    """
    keys = cadot_keys(first, mask)
    records = _records(keys, encode_outcomes(winner, half_moves))
    with atomic_output(path) as fh:
        for start in range(0, records.shape[0], 1 << 20):
            fh.write(records[start : start + (1 << 20)].tobytes())
    return int(records.shape[0])


class CadotBook(BookReader):
    """Read a Cadot-format file by memory-mapped binary search (works beyond RAM size).

    The file is never loaded: a lookup reads about ``log2(n)`` records, so
    Cadot's complete 14 TiB table can be queried like a small export. The
    interface is :class:`openingbook.formats.thill.Book`'s: ``get``, ``in``, iteration
    over ``(Position, BookValue)``, ``len``, ``lookup_many`` and use as a context
    manager, with the same rules for missing positions (see
    :mod:`openingbook.formats._values`). A record's half-move count of 0 on a
    position that is not over means "unknown" (``plies`` and ``score`` are
    ``None``). Any stone count can be asked.

    >>> import tempfile, os
    >>> p = Position.from_moves("4444")
    >>> path = os.path.join(tempfile.mkdtemp(), "b.cadot")
    >>> _ = write_cadot(path, np.array([p.first_stones], np.uint64), np.array([p.mask], np.uint64),
    ...                 np.array([0]), np.array([0]))
    >>> with CadotBook(path) as book:
    ...     len(book), p in book, Position.from_moves("44") in book, book.get(p).winner
    (1, True, False, <Winner.DRAW: 'draw'>)
    """

    format_name = "cadot"
    records_scope = False

    @reads_book
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        size = self.path.stat().st_size
        if size % CADOT_RECORD_BYTES:
            raise BookFileError(
                f"{self.path}: {size} bytes is not a whole number of 7-byte Cadot records"
            )
        self._n = size // CADOT_RECORD_BYTES
        self._plies: int | None = None
        self._plies_read = False
        self._held: object = _UNREAD
        self._first: int | None = None
        self._kind: str | None = None
        self._data = _EMPTY
        self._map: mmap.mmap | None = None
        if self._n:
            with open(self.path, "rb") as fh:
                self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            self._data = np.frombuffer(self._map, dtype=np.uint8).reshape(
                self._n, CADOT_RECORD_BYTES
            )

    # ------------------------------------------------------------ container
    def _count(self) -> int:
        return self._n

    def _records(self) -> int:
        return self._n

    def _stones_held(self) -> None:
        return None  # decided by _holds: reading every record only when it must

    def _holds(self, stones: int) -> bool:
        """Record 0's stone count; any other only in a table of several plies (read
        through, once, when such a position is asked)."""
        if self._n == 0:
            return True  # nothing stored: every position is absent
        if stones == self._first_stones():
            return True
        if self._held is _UNREAD:
            if self._stones_at(self._n - 1) != self._first_stones():
                self._held = None  # records of several plies (Cadot's own table)
            else:
                try:
                    self._held = self.plies
                except BookFileError:
                    self._held = None
        return self._held is None

    def _first_stones(self) -> int:
        if self._first is None:
            self._first = self._stones_at(0)
        return self._first

    def _stones_at(self, index: int) -> int:
        """The stones of record ``index``'s position."""
        try:
            mask = decode_cadot_keys(_keys_of(np.asarray(self._data[index : index + 1])))[1]
        except InvalidArgument as exc:
            raise BookFileError(f"{self.path}: record {index}: {exc} (damaged file)") from None
        return int(np.bitwise_count(mask)[0])

    @property
    def board(self) -> BoardSize:
        return DEFAULT_BOARD  # Cadot's keys are of the 7x6 board

    @property
    def plies(self) -> int | None:
        """The stones of the table's positions (None for an empty table), read from every
        record on first use: a table whose records differ in stones (Cadot's own table of
        every ply) is refused here, with one line, for what needs a book's one ply
        (``info``, iteration into another format); ``get`` answers any stone count."""
        if not self._plies_read:
            self._require_open()
            self._plies, self._plies_read = self._common_stones(), True
        return self._plies

    def _common_stones(self) -> int | None:
        """The one stone count of every record's key (streamed over the file)."""
        plies, start = None, 0
        for keys, _ in self.iter_records():
            try:
                stones = np.bitwise_count(decode_cadot_keys(keys)[1])
            except InvalidArgument as exc:
                raise BookFileError(f"{self.path}: {exc} (damaged file)") from None
            if plies is None:
                plies = int(stones[0])
            other = np.flatnonzero(stones != plies)
            if other.size:
                i = int(other[0])
                raise BookFileError(
                    f"{self.path}: record {start + i} holds a {int(stones[i])}-stone position, "
                    f"record 0 a {plies}-stone one: a book holds positions of one ply"
                )
            start += keys.size
        return plies

    @property
    def kind(self) -> str:
        """``"distance"`` (half-moves to the result), or ``"wdl"`` for a table without them
        (``export --no-distance``: 0, unknown, on every record). Read from the first record
        of a position still in play; a record with 0 half-moves answers no distance
        whatever the kind."""
        if self._kind is None:
            self._require_open()
            self._kind = "distance" if self._first_live_half_moves() else "wdl"
        return self._kind

    def _first_live_half_moves(self) -> int | None:
        """The half-move count of the first record whose position is still in play (None:
        the table has none)."""
        for keys, outcomes in self.iter_records(chunk=1 << 12):
            try:
                first, mask = decode_cadot_keys(keys)
            except InvalidArgument as exc:
                raise BookFileError(f"{self.path}: {exc} (damaged file)") from None
            for f, m, outcome in zip(first.tolist(), mask.tolist(), outcomes.tolist(), strict=True):
                pos = Position.from_bitboards(f, m)
                if not (pos.is_full() or pos.winner() is not None):
                    return int(outcome) & _HALF_MOVES
        return None

    @property
    def scope(self) -> Scope:
        from openingbook.model import Scope

        return Scope(
            known=False, unknown_why="a Cadot table does not record its scope", board=self.board
        )

    @property
    def unchecked(self) -> str:
        return CADOT_UNCHECKED

    def __repr__(self) -> str:
        return f"CadotBook({str(self.path)!r})"

    def _release(self) -> None:
        """Drop the memory map (the object is unusable afterwards)."""
        self._data = _EMPTY
        self._n = 0
        if self._map is not None:
            with contextlib.suppress(BufferError):  # arrays still viewing it keep it alive
                self._map.close()
            self._map = None

    def _stored(self, pos: Position) -> BookValue | None:
        index = self._find_one(_key_of(pos))
        if index < 0:
            return None
        assert self._map is not None
        try:
            return _book_value(pos, self._map[index * CADOT_RECORD_BYTES + KEY_BYTES])
        except InvalidArgument as exc:  # a result no game can have: damage
            raise BookFileError(f"{self.path}: record {index}: {exc}") from None

    def _answered_positions(self) -> tuple[np.ndarray, np.ndarray]:
        parts = [decode_cadot_keys(keys) for keys, _ in self.iter_records()]
        if not parts:
            return np.zeros(0, np.uint64), np.zeros(0, np.uint64)
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def _stored_many(self, first: np.ndarray, mask: np.ndarray) -> BulkValues:
        index, outcome = self._search(cadot_keys(first, mask))
        winner, half = decode_outcomes(outcome)
        plies = np.where((half == 0) & (mask != _FULL), UNKNOWN, half)
        return bulk_values(mask, index, winner, plies, self.path.name, CADOT_BOARD)

    def _stored_sample(self) -> tuple[np.ndarray, np.ndarray]:
        """64 records spread over the file, read where they lie (never the whole file)."""
        at = np.unique(np.linspace(0, max(0, self._n - 1), min(self._n, 64)).astype(np.int64))
        return self._decoded(self._keys_at(at))

    def _stored_pieces(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The file's positions, a million records at a time."""
        for keys, _ in self.iter_records():
            yield self._decoded(keys)

    def _decoded(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        try:
            return decode_cadot_keys(keys)
        except InvalidArgument as exc:
            raise BookFileError(f"{self.path}: {exc} (damaged file)") from None

    def iter_records(self, chunk: int = 1 << 20) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The file in order, as ``(keys, outcome bytes)`` arrays of up to ``chunk`` records."""
        for start in range(0, self._n, chunk):
            block = np.asarray(self._data[start : start + chunk])
            yield _keys_of(block), block[:, KEY_BYTES].copy()

    # --------------------------------------------------------------- search
    def _find_one(self, key: int) -> int:
        """Binary search for one key on plain integers: the record index, or -1."""
        data, size = self._map, CADOT_RECORD_BYTES
        lo, hi = 0, self._n
        while lo < hi:
            mid = (lo + hi) // 2
            if int.from_bytes(data[mid * size : mid * size + KEY_BYTES], "big") < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < self._n and int.from_bytes(data[lo * size : lo * size + KEY_BYTES], "big") == key:
            return lo
        return -1

    def _keys_at(self, index: np.ndarray) -> np.ndarray:
        return _keys_of(np.asarray(self._data[index]))

    def _search(self, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized binary search: ``(record index or -1, outcome byte)`` per key."""
        targets = np.asarray(targets, dtype=np.uint64)
        lo = np.zeros(targets.size, dtype=np.int64)
        hi = np.full(targets.size, self._n, dtype=np.int64)
        active = np.flatnonzero(lo < hi)
        while active.size:
            mid = (lo[active] + hi[active]) // 2
            below = self._keys_at(mid) < targets[active]
            lo[active] = np.where(below, mid + 1, lo[active])
            hi[active] = np.where(below, hi[active], mid)
            active = active[lo[active] < hi[active]]
        index = np.full(targets.size, -1, dtype=np.int64)
        outcome = np.zeros(targets.size, dtype=np.uint8)
        inside = np.flatnonzero(lo < self._n)
        if inside.size:
            rows = np.asarray(self._data[lo[inside]])
            hit = _keys_of(rows) == targets[inside]
            index[inside[hit]] = lo[inside[hit]]
            outcome[inside[hit]] = rows[hit, KEY_BYTES]
        return index, outcome


_EMPTY = np.zeros((0, CADOT_RECORD_BYTES), dtype=np.uint8)
_UNREAD = object()
_FULL = np.uint64(sum(((1 << HEIGHT) - 1) << (c * (HEIGHT + 1)) for c in range(WIDTH)))


def _keys_of(rows: np.ndarray) -> np.ndarray:
    """Big-endian 6-byte keys of ``(n, 7)`` records."""
    padded = np.zeros((rows.shape[0], 8), dtype=np.uint8)
    padded[:, 8 - KEY_BYTES :] = rows[:, :KEY_BYTES]
    return padded.view(">u8").reshape(-1).astype(np.uint64)


_DIGITS = _DIGIT_BY_BITS.tolist()


def _key_of(pos: Position) -> int:
    """:func:`cadot_key` through the column table (the single-lookup path)."""
    if (pos.width, pos.height) != (WIDTH, HEIGHT):
        raise InvalidArgument("Cadot books are for the 7x6 board only")
    first, mask, full = pos.first_stones, pos.mask, (1 << HEIGHT) - 1
    digits = []
    for col in range(WIDTH):
        shift = col * (HEIGHT + 1)
        d = _DIGITS[(((mask >> shift) & full) << HEIGHT) | ((first >> shift) & full)]
        if d < 0:
            raise InvalidArgument(f"column {col + 1} cannot occur in a game")
        digits.append(d)
    v1 = v2 = 0
    for d, e in zip(reversed(digits), digits, strict=True):
        v1, v2 = v1 * BASE + d, v2 * BASE + e
    return min(v1, v2)


def _book_value(pos: Position, outcome: int) -> BookValue:
    """BookValue of a record: half-moves become plies; 0 on a live position is unknown."""
    winner, half = (int(a[0]) for a in decode_outcomes(np.array([outcome], np.uint8)))
    over = pos.is_full() or pos.winner() is not None
    if over:
        return BookValue(WINNERS[winner], half, None)
    return value_from_plies(winner, half if half else None, pos.stone_count, CADOT_BOARD)


def _looks_like_cadot(path: Path, size: int) -> bool:
    """Whole 7-byte records; a spread sample of up to 64 of them strictly ascending,
    each key a position (legal columns, the smaller of its two readings) and each
    outcome byte possible for it (one winner bit at most, half-moves that fit). The one
    check of detection and of :meth:`CadotFormat.open`."""
    if size == 0 or size % CADOT_RECORD_BYTES:
        return False
    n = size // CADOT_RECORD_BYTES
    picks = sorted(set(np.linspace(0, n - 1, min(n, 64)).astype(int).tolist()))
    rows = []
    with open(path, "rb") as fh:
        for i in picks:
            fh.seek(i * CADOT_RECORD_BYTES)
            rows.append(fh.read(CADOT_RECORD_BYTES))
    keys = [int.from_bytes(r[:KEY_BYTES], "big") for r in rows]
    if any(b <= a for a, b in itertools.pairwise(keys)) or keys[-1] >= BASE**WIDTH:
        return False
    for key in keys:
        digits = [(key // BASE**k) % BASE for k in range(WIDTH)]
        if sum(BASE**k * digits[WIDTH - 1 - k] for k in range(WIDTH)) < key:
            return False  # not the smaller reading of the position
    try:
        first, mask = decode_cadot_keys(np.array(keys, dtype=np.uint64))
    except InvalidArgument:
        return False
    first_stones = np.bitwise_count(first).astype(int)
    stones = np.bitwise_count(mask).astype(int)
    if not np.isin(2 * first_stones - stones, (0, 1)).all():
        return False  # the players' stone counts differ by more than a move
    room = CADOT_BOARD.cells - stones
    outcome = np.array([r[KEY_BYTES] for r in rows])
    return bool(((outcome & 0xC0) != 0xC0).all() and ((outcome & 0x3F) <= room).all())


class CadotFormat(Format):
    name = "cadot"
    description = "Sidney Cadot's 7-byte records (base-111 column key, outcome byte)"
    suffixes = CADOT_SUFFIXES
    export_options = frozenset({"no_distance"})
    no_checksum = CADOT_UNCHECKED

    def sniff(self, path: Path, head: bytes, size: int) -> bool:
        return _looks_like_cadot(path, size)

    def open(self, path: Path, **options: Any) -> CadotBook:
        if not _looks_like_cadot(path, path.stat().st_size):
            raise BookFileError(
                f"{path}: not a Cadot table (7-byte records with valid, ascending keys "
                "and outcome bytes)"
            )
        return CadotBook(path)

    exports_pieces = True

    def export(
        self, model: BookModel, out: str | os.PathLike[str], **options: Any
    ) -> tuple[int, dict[str, Any]]:
        no_distance = bool(options.get("no_distance"))
        half_moves = "unknown (0)" if no_distance else "exact"
        return self.write(model, out, no_distance=no_distance), {"half_moves": half_moves}

    def export_pieces(
        self, book: Any, out: str | os.PathLike[str], **options: Any
    ) -> tuple[int, dict[str, Any], int]:
        """The records of ``book``'s positions, a piece at a time: each position's key and
        outcome byte as one uint64 (``key << 8 | outcome``: 8 bytes a position, the book
        never loaded), sorted in place (by key: the keys of an enumeration differ) and
        written a million records at a time. The same file as :meth:`write` of the model."""
        require_7x6(book, self.name)
        no_distance = bool(options.get("no_distance"))
        if not no_distance and not book.has_distances:
            raise _no_distances(book.path)
        packed = np.empty(len(book), np.uint64)
        filled = first_wins = 0
        for first, mask in book.position_pieces():
            answers = book.lookup_many(first, mask)
            half = np.zeros(len(first), np.int8) if no_distance else answers.plies
            if (half == UNKNOWN).any():
                raise BookFileError(f"{book.path}: a position answered without its distance")
            outcomes = encode_outcomes(answers.winner, half).astype(np.uint64)
            if filled + len(first) > packed.size:
                raise BookFileError(f"{book.path}: more positions than its {len(book):,}")
            packed[filled : filled + len(first)] = (cadot_keys(first, mask) << 8) | outcomes
            filled += len(first)
            first_wins += int((answers.winner == 1).sum())
        if filled != packed.size:
            raise BookFileError(f"{book.path}: {filled:,} positions, not its {len(book):,}")
        packed.sort()
        with atomic_output(out) as fh:
            for start in range(0, filled, 1 << 20):
                chunk = packed[start : start + (1 << 20)]
                keys = chunk >> np.uint64(8)
                if np.any(keys[1:] == keys[:-1]) or (
                    start and keys[0] == packed[start - 1] >> np.uint64(8)
                ):
                    raise BookFileError(f"{book.path}: a mirror pair given twice")
                outcomes = (chunk & np.uint64(0xFF)).astype(np.uint8)
                fh.write(_record_bytes(keys, outcomes).tobytes())
        half_moves = "unknown (0)" if no_distance else "exact"
        return filled, {"half_moves": half_moves}, first_wins

    def refuse_export(self, book: Any, **options: Any) -> None:
        super().refuse_export(book, **options)
        if book.kind == "wdl" and not options.get("no_distance"):
            raise _no_distances(book.path)

    def write(self, model: BookModel, out: str | os.PathLike[str], **options: Any) -> int:
        """Options: ``no_distance``: half-move counts of 0 (unknown) for a book without
        distances, which is otherwise refused."""
        require_7x6(model, self.name)
        if options.get("no_distance"):
            half = np.zeros(len(model), np.int8)
        elif not model.has_distances:
            raise _no_distances(model.source)
        else:
            half = model.plies_to_end
        return write_cadot(out, model.first, model.mask, model.winner, half)


def _no_distances(book: str | os.PathLike[str]) -> BookFileError:
    """The refusal of a book without distances, unless half-moves of 0 are asked for."""
    return BookFileError(
        f"{book}: Cadot records carry the half-moves to the result, and this "
        "book has no distances: export a book built with --distances, or pass "
        "--no-distance to write 0 (unknown) half-moves"
    )
