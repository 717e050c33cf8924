"""Markus Thill's book layout, the one home of the format: record layouts, the file's
checks, detection, the manifest, the reader, the writer and the registry's entry.

**Records.** A book is a headerless array of fixed-size big-endian records sorted by
key, one record per stored position (see docs/FORMATS.md):

* **pruned** books (win/draw/loss, first-player wins dropped): the column code
  left-aligned in the whole record, the value in the low two bits
  (0 draw, 1 second player wins; 2 first player wins is never written by the
  pruning rule but is accepted when present);
* **distance** books: the column code left-aligned in a key of 4 (or 5) bytes,
  then one signed byte ``v``: 0 draw, ``v > 0`` first player wins in
  ``100 - v`` plies, ``v < 0`` second player wins in ``100 + v`` plies.

Thill's three files are :data:`BOOK8` (``book.dat``), :data:`BOOK12`
(``bookDeep.dat``) and :data:`BOOK12_DIST` (``bookDeepDist.dat``).
:meth:`BookFormat.for_plies` extends the same rules to other plies:

============  ==========================================  =====================
book          record                                      order
============  ==========================================  =====================
pruned        ``max(3, ceil((6 + 2n + 2) / 8))`` bytes:    unsigned for 3-byte
              plies 1-8: 3, 9-12: 4, 13-16: 5              keys, else signed
distance      key ``max(4, ceil((6 + 2n) / 8))`` bytes     signed (two's
              (plies 1-13: 4, 14-17: 5) + 1 value byte     complement of the key)
============  ==========================================  =====================

Signed order is Thill's: his reader compares the first four bytes as a Java
``int``, so codes starting with bit 1 (first column non-empty) sort first.

**The manifest.** A book we write has a JSON manifest beside it, named by one rule
(:func:`manifest_path`): the book's file name plus ``.json``
(``book12.dat`` -> ``book12.dat.json``). No other name is a manifest: a
``data.json`` beside ``data.dat`` is an unrelated file and is ignored. It says what the
book is: its record layout (``format``: ply, distances or pruned), its file (``book``:
record count, byte size, sha256), its **scope** (``selection``: every position of the
ply, those under a line, a sample or a shard) and its provenance (``command``,
``version``, ``created``). :func:`read_manifest` reads it strictly (types, finite
integers where counts are expected): a manifest we cannot trust is a one-line
:class:`BookFileError`.

**Identity.** :func:`identify` is the one way into a book file, for detection
(:meth:`ThillFormat.sniff`) and the reader (:class:`Book`) alike, so that both accept
exactly the same files: it decides the layout (an explicit one, else the manifest's,
else Thill's file names, else the content; content that fits more than one layout is
refused: pass the layout), and compares the file with it, cheaply: byte size and
record count against the manifest, and a spread sample of records (64 plus the first
and the last) must decode to legal positions of the layout's ply. The reader then
compares the file's sha256 with the manifest's before its first answer
(:meth:`BookIdentity.verify_sha256`), unless opened with ``verify=False``.
The scope (:class:`openingbook.model.Scope`) is known from the manifest; without one,
a pruned book is taken as complete only when it is recognisably so
(:func:`scope_without_manifest`), else its scope is unknown and a missing position is
not answered.

**Writing.** The writers (build, merge, derive, convert) write book and manifest as one
unit (:func:`write_book_and_manifest`): both go to temporary files first, then the old
book (if ``force`` replaces one) is removed, the manifest renamed into place and the
book last. Every intermediate state is either the previous pair or a manifest without
its book, which no reader answers from ("interrupted write"); a rerun of the command
replaces such an orphaned manifest without ``force`` (:func:`check_output`).

**Reading.** :class:`Book` memory-maps the file. A single lookup (:meth:`Book.get`)
runs the mirrored dual binary search of Thill's reader: one loop, two searches side by
side (the column code and the mirrored code) with the step sequence ``step = size -
1``, then ``(step + (step & 1)) >> 1`` down to 0, so it reads about 2 x log2(records)
records and nothing else. A bulk lookup (:meth:`Book.lookup_many`) encodes numpy arrays
of positions and runs ``np.searchsorted`` over the file's keys. Two deliberate
differences from the original Java reader, both about correctness: a probe outside the
array compares as "past the end" (the original compares with the previously read code,
so its search for a code never reaches records 0-3 of the 8-ply file; it still answers
those positions because that file happens to store their mirror images too), and when
the step sequence cannot reach record 0 (sizes ``2^k + 1``) one extra probe reads it.
What a position not stored answers (a win at once, the pruning rule of a pruned book
whose scope is known, or nothing) is the rule of
:class:`openingbook.answers.BookReader`, the same for every format. Opening a book with
a manifest compares the mapped file's sha256 with the manifest's (one pass, about 40 ms
for 21 MB): a value damaged into another value a book can hold is refused there, which
no record check could notice. Whenever a reader reads the whole file (``check``,
``verify``, bulk lookups, :func:`openingbook.formats.load_book`, :func:`describe_book`)
every record is checked too. A book without a manifest cannot be compared:
:attr:`Book.unchecked` says so.

>>> BOOK8.record_bytes, BOOK12.signed_order, BOOK12_DIST.record_bytes
(3, True, 5)
>>> BookFormat.for_plies(8, False, *THILL_BOARD) == BOOK8
True
>>> BookFormat.for_plies(14, True, *THILL_BOARD).record_bytes
6
>>> from openingbook.solver import Position
>>> with Book(REFERENCE / "thill-original-book8.dat") as book:
...     book.format.name, book.records, len(book), book.get(Position.from_moves("44444455")).winner
('8-ply', 34286, 77715, <Winner.FIRST: 'first'>)
"""

from __future__ import annotations

import json
import math
import mmap
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from openingbook.answers import BookReader
from openingbook.atomicio import (
    atomic_write_bytes,
    check_writable,
    refuse_existing,
    write_together,
)
from openingbook.checks.booksizes import complete_positions
from openingbook.codec import (
    decode_keys,
    decode_keys_raw,
    encodable,
    encode_key_pairs,
    encode_keys,
    key_field_bits,
    legal_mask,
    position_key_pair,
)
from openingbook.errors import (
    BookFileError,
    InvalidArgument,
    OutputError,
    PositionNotInBook,
    reads_book,
)
from openingbook.formats.base import Format, WrittenBook, require_writable
from openingbook.inputs import MAX_MANIFEST_BYTES, read_bounded, require_regular_file
from openingbook.provenance import file_sha256, manifest_provenance
from openingbook.solver import (
    DEFAULT_BOARD,
    STATUS_OK,
    BoardSize,
    Position,
    parse_board_size,
)
from openingbook.values import (
    UNKNOWN,
    VALUE_DRAW,
    VALUE_FIRST,
    VALUE_SECOND,
    WINNER_CODES,
    BookValue,
    BulkValues,
    book_value,
    distance_plies,
    invalid_values,
    pruned_values,
    value_tables,
)

# hashlib, shlex, the model and the memory check are imported where used: the format
# registry imports this module, and a lookup in a book of another format needs none
if TYPE_CHECKING:
    from openingbook.model import BookModel, Scope

__all__ = [
    "BOOK8",
    "BOOK12",
    "BOOK12_DIST",
    "COMPLETE_AT_LEAST",
    "COMPLETE_RECORDS",
    "LAYOUT_VERSION",
    "MANIFEST_MARK",
    "MAX_PLIES",
    "THILL_BOARD",
    "THILL_NAMES",
    "UNKNOWN",
    "VALUE_DRAW",
    "VALUE_FIRST",
    "VALUE_SECOND",
    "WINNER_CODES",
    "Book",
    "BookFileError",
    "BookFormat",
    "BookIdentity",
    "BookValue",
    "BulkValues",
    "Manifest",
    "PositionNotInBook",
    "Records",
    "ThillFormat",
    "book_bytes",
    "check_distances",
    "check_order",
    "check_output",
    "check_positions",
    "check_records",
    "check_sample",
    "check_size",
    "check_values",
    "content_formats",
    "describe_book",
    "detect_format",
    "identify",
    "load_manifest",
    "manifest_book_entry",
    "manifest_path",
    "max_plies",
    "parity_faults",
    "parse_records",
    "read_manifest",
    "records_to_bytes",
    "refuse_thill_layout",
    "scan_book",
    "scope_without_manifest",
    "search_steps",
    "sort_records",
    "stored_model",
    "thill_records",
    "thill_values",
    "value_histogram",
    "write_book",
    "write_book_and_manifest",
]

_U64 = np.uint64


# ------------------------------------------------------------------ record layouts

#: Thill's record layout is of the 7x6 board only: a file does not say its board
#: (books of other sizes are written in the compact format, :func:`refuse_thill_layout`).
THILL_BOARD = BoardSize(7, 6)
#: Deepest 7x6 book whose pruned record still fits a 64-bit key field.
MAX_PLIES = 28


def max_plies(width: int, height: int) -> int:
    """Deepest book of a board: the pruned record (code and two value bits) fits 64 bits,
    and no more stones than cells.

    >>> max_plies(7, 6), max_plies(9, 6), max_plies(4, 4)
    (28, 27, 16)
    """
    return min(width * height, (64 - 2 - (width - 1)) // 2)


THILL_NAMES = {"book.dat": (8, False), "bookDeep.dat": (12, False), "bookDeepDist.dat": (12, True)}


@dataclass(frozen=True)
class BookFormat:
    """Record layout of a book of ``plies`` stones.

    ``key_bits`` is the width of the field the column code is left-aligned in
    (pruned books: the whole record, value bits included and zero in keys;
    distance books: the key bytes before the value byte).

    ``width`` x ``height`` is the board. The column code has ``width - 1``
    separators, so the same rules give a layout for every board; but only
    7x6 files are Thill's layout (readable without a manifest, by his
    readers). A book of another size is always written in the compact format
    (``docs/FORMATS.md``); this layout serves it only in memory and as the
    build's intermediate file, whose manifest carries the board.
    """

    plies: int
    distances: bool
    record_bytes: int
    key_bits: int
    value_bits: int
    signed_order: bool
    name: str
    width: int
    height: int

    @classmethod
    def for_plies(
        cls,
        plies: int,
        distances: bool,
        width: int,
        height: int,
    ) -> BookFormat:
        """The format of a ``plies``-stone book (Thill's for 8 and 12 on 7x6).

        >>> BookFormat.for_plies(10, False, 7, 6).record_bytes
        4
        >>> BookFormat.for_plies(8, False, width=6, height=5).name
        '6x5-8-ply'
        """
        most = max_plies(width, height)
        if not 0 <= plies <= most:
            raise InvalidArgument(f"book plies must be 0..{most}, got {plies}")
        key_bits = key_field_bits(plies, distances, width)
        board = "" if (width, height) == THILL_BOARD else f"{width}x{height}-"
        if distances:
            return cls(
                plies,
                True,
                key_bits // 8 + 1,
                key_bits,
                8,
                True,
                f"{board}{plies}-ply-dist",
                width,
                height,
            )
        record_bytes = key_bits // 8
        return cls(
            plies,
            False,
            record_bytes,
            key_bits,
            2,
            record_bytes >= 4,
            f"{board}{plies}-ply",
            width,
            height,
        )

    @property
    def board(self) -> BoardSize:
        """The board size of the book's positions."""
        return BoardSize(self.width, self.height)

    @classmethod
    def parse(cls, text: str) -> BookFormat:
        """A format from its name (``"8-ply"``, ``"12-ply-dist"``), a bare ply
        count (``"12"``, ``"12-dist"``) or one of Thill's file names.

        >>> BookFormat.parse("bookDeepDist.dat") == BookFormat.parse("12-dist") == BOOK12_DIST
        True
        """
        t = text.strip()
        if t in THILL_NAMES:
            return cls.for_plies(*THILL_NAMES[t], *THILL_BOARD)
        core = t.lower().replace("_", "-")
        distances = core.endswith("-dist")
        if distances:
            core = core[: -len("-dist")]
        core = core.removesuffix("-ply")
        if not core.isdigit():
            raise InvalidArgument(
                f"unknown book format {text!r}: use e.g. 8, 12, 12-dist, 12-ply-dist or book.dat"
            )
        refuse_thill_layout(THILL_BOARD, int(core))  # a named layout is Thill's: 1 ply or more
        return cls.for_plies(int(core), distances, *THILL_BOARD)

    @property
    def key_bytes(self) -> int:
        return self.key_bits // 8

    @property
    def file_name(self) -> str:
        """Thill's file name for his three books, else ``book<plies>[-dist].dat``."""
        for name, (plies, dist) in THILL_NAMES.items():
            if (plies, dist) == (self.plies, self.distances):
                return name
        board = "" if self.board == THILL_BOARD else f"-{self.board}"
        return f"book{self.plies}{'-dist' if self.distances else ''}{board}.dat"

    def order_keys(self, keys: np.ndarray) -> np.ndarray:
        """Keys mapped to uint64 so that unsigned comparison gives the file order.

        Signed order flips the key's sign bit (two's complement -> offset binary).
        """
        keys = np.asarray(keys, dtype=_U64)
        if self.signed_order:
            return keys ^ _U64(1 << (self.key_bits - 1))
        return keys

    def order_key(self, key: int) -> int:
        """:meth:`order_keys` for one key."""
        return key ^ (1 << (self.key_bits - 1)) if self.signed_order else key

    def describe(self) -> str:
        """One line, e.g. ``"8-ply, pruned, 3-byte records"``."""
        kind = "with distances" if self.distances else "pruned (win/draw/loss)"
        board = "" if self.board == THILL_BOARD else f" ({self.board} board)"
        return f"{self.plies}-ply{board}, {kind}, {self.record_bytes}-byte records"


def refuse_thill_layout(board: BoardSize | tuple[int, int], plies: int | None = None) -> None:
    """Thill's book layout is 7x6 only, of 1 or more plies: :class:`InvalidArgument`
    for any other board, or for ``plies`` 0.

    A file of this record layout does not say its board; without its manifest a
    book of another size would read as a 7x6 book. So books of other sizes are
    written in the compact format, whose header holds the board. A 0-ply book (the
    empty board alone) has no Thill form either: its one record would be the empty
    code, which no reader of the layout expects; it too is a compact book.

    >>> refuse_thill_layout(BoardSize(6, 5))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    openingbook.solver.errors.InvalidArgument: Thill's book layout is for 7x6 boards only: ...
    """
    board = BoardSize(*board)
    if board != THILL_BOARD:
        raise InvalidArgument(
            f"Thill's book layout is for 7x6 boards only: write the {board} book in the "
            "compact format (--format compact, a .c4b file)"
        )
    if plies == 0:
        raise InvalidArgument(
            "Thill's book layout has no 0-ply book: write the empty board's book in the "
            "compact format (--format compact, a .c4b file)"
        )


BOOK8 = BookFormat.for_plies(8, False, *THILL_BOARD)
BOOK12 = BookFormat.for_plies(12, False, *THILL_BOARD)
BOOK12_DIST = BookFormat.for_plies(12, True, *THILL_BOARD)


@dataclass
class Records:
    """The records of a book as arrays: ``keys`` (uint64, value bits cleared) and
    ``values`` (int8: pruned 0 draw, 1 second wins, 2 first wins; distance books
    the signed distance byte)."""

    keys: np.ndarray
    values: np.ndarray

    def __post_init__(self) -> None:
        self.keys = np.asarray(self.keys, dtype=_U64)
        self.values = np.asarray(self.values, dtype=np.int8)
        if self.keys.shape != self.values.shape or self.keys.ndim != 1:
            raise InvalidArgument(
                f"keys and values must be 1-d arrays of one length, "
                f"got {self.keys.shape} and {self.values.shape}"
            )

    def __len__(self) -> int:
        return len(self.keys)


# ------------------------------------------------------------- bytes <-> arrays
def parse_records(data: np.ndarray | bytes | memoryview, fmt: BookFormat) -> Records:
    """Records from raw file bytes (a whole number of records; a uint8 memmap works).

    >>> r = parse_records(bytes.fromhex("055cfc 055d02"), BOOK8)
    >>> [hex(k) for k in r.keys], r.values.tolist()
    (['0x55cfc', '0x55d00'], [0, 2])
    """
    raw = data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
    if raw.size % fmt.record_bytes:
        raise BookFileError(
            f"{raw.size} bytes is not a whole number of {fmt.record_bytes}-byte records"
        )
    rows = raw.reshape(-1, fmt.record_bytes)
    field = np.zeros(len(rows), dtype=_U64)
    for i in range(fmt.key_bytes):
        field = (field << _U64(8)) | rows[:, i].astype(_U64)
    if fmt.distances:
        return Records(field, np.ascontiguousarray(rows[:, fmt.key_bytes]).view(np.int8))
    value_mask = _U64((1 << fmt.value_bits) - 1)
    return Records(field & ~value_mask, (field & value_mask).astype(np.int8))


def records_to_bytes(fmt: BookFormat, records: Records) -> bytes:
    """The file bytes of ``records`` in their current order."""
    keys, values = records.keys, records.values
    # pruned books: the two value bits share the last byte with the code
    field = keys if fmt.distances else keys | values.astype(np.uint8).astype(_U64)
    out = np.empty((len(keys), fmt.record_bytes), dtype=np.uint8)
    for i in range(fmt.key_bytes):
        out[:, i] = (field >> _U64(8 * (fmt.key_bytes - 1 - i))) & _U64(0xFF)
    if fmt.distances:
        out[:, fmt.key_bytes] = values.view(np.uint8)
    return out.tobytes()


def sort_records(fmt: BookFormat, records: Records) -> Records:
    """The records in the format's order (stable; Thill's signed order for wide keys)."""
    order = np.argsort(fmt.order_keys(records.keys), kind="stable")
    return Records(records.keys[order], records.values[order])


# --------------------------------------------------------------------- checks
def check_records(
    fmt: BookFormat, records: Records, name: str = "book", decode: bool = True
) -> None:
    """Raise :class:`BookFileError` (``"<name>: <problem>"``) for the first problem.

    Checks values, order (strictly ascending: an exact duplicate key is an
    error), and with ``decode`` that every key is a legal position with
    ``fmt.plies`` stones. Mirror pairs stored twice are not a format error, nor
    are distances of the wrong parity (:func:`check_distances`, reported by
    :func:`describe_book`): the format can hold them and readers answer them.
    """
    # an empty file is refused by check_size unless its manifest declares 0 records
    check_values(fmt, records, name)
    check_order(fmt, records, name)
    if decode:
        check_positions(fmt, records, name)


def check_values(fmt: BookFormat, records: Records, name: str = "book", offset: int = 0) -> None:
    """Raise :class:`BookFileError` for the first value the format cannot hold (record
    numbers in messages count from ``offset``, for a piece of a file)."""
    bad = _bad_values(fmt, records.values)
    if bad.any():
        i = int(np.argmax(bad))
        v = int(records.values[i])
        raise BookFileError(f"{name}: record {i + offset} has value {v}, {_value_rule(fmt)}")


def check_order(fmt: BookFormat, records: Records, name: str = "book", offset: int = 0) -> None:
    """Raise :class:`BookFileError` unless the keys strictly ascend in the format's order."""
    order = fmt.order_keys(records.keys)
    step = order[1:] > order[:-1]
    if not step.all():
        i = int(np.argmax(~step)) + 1
        j = i + offset
        if order[i] == order[i - 1]:
            raise BookFileError(f"{name}: record {j} repeats the position of record {j - 1}")
        raise BookFileError(f"{name}: records not sorted (record {j} < record {j - 1})")


def check_positions(fmt: BookFormat, records: Records, name: str = "book", offset: int = 0) -> None:
    """Raise :class:`BookFileError` for the first key that is not a legal ``fmt.plies``-stone
    position (value bits, if any, must be zero)."""
    try:
        decode_keys(records.keys, fmt.key_bits, fmt.plies, fmt.width, fmt.height)
    except ValueError as exc:
        text = str(exc)
        if offset and text.startswith("key "):
            index, rest = text[4:].split(" ", 1)
            text = f"key {int(index) + offset} {rest}" if index.isdigit() else text
        raise BookFileError(f"{name}: {text.replace('key ', 'record ', 1)}") from None


def value_histogram(
    fmt: BookFormat, values: np.ndarray, weights: np.ndarray | None = None
) -> dict[str, object]:
    """Counts of the stored values: by winner, and for distance books by distance.

    ``weights``: how many times each entry of ``values`` occurs (default once).

    >>> value_histogram(BOOK8, np.array([0, 1, 1], np.int8))
    {'draw': 1, 'first': 0, 'second': 2}
    """
    v = np.asarray(values, dtype=np.int64)
    w = np.ones(len(v), np.int64) if weights is None else np.asarray(weights, np.int64)
    if not fmt.distances:
        return {
            "draw": int(w[v == VALUE_DRAW].sum()),
            "first": int(w[v == VALUE_FIRST].sum()),
            "second": int(w[v == VALUE_SECOND].sum()),
        }
    out: dict[str, object] = {
        "draw": int(w[v == 0].sum()),
        "first": int(w[v > 0].sum()),
        "second": int(w[v < 0].sum()),
    }
    for label, sel in (("first_by_plies", v > 0), ("second_by_plies", v < 0)):
        d, inverse = np.unique(distance_plies(v[sel]), return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=w[sel], minlength=len(d))
        out[label] = {int(a): int(c) for a, c in zip(d, counts, strict=True) if c}
    return out


def _bad_values(fmt: BookFormat, values: np.ndarray) -> np.ndarray:
    """Values the format cannot hold (:func:`openingbook.values.invalid_values`)."""
    return invalid_values(values, fmt.plies, fmt.distances, fmt.board)


def parity_faults(fmt: BookFormat, values: np.ndarray) -> np.ndarray:
    """Distance values whose winner cannot place the last stone.

    Stone number ``plies + d`` is the first player's when it is odd, so a first
    player win needs ``plies + d`` odd and a second player win even. Such a value
    fits the format (readers still answer it) but cannot be right.
    """
    if not fmt.distances:
        return np.zeros(len(values), dtype=bool)
    v = values.astype(np.int64)
    first_last = (fmt.plies + distance_plies(v)) % 2 == 1
    return (v != 0) & (first_last != (v > 0))


def check_distances(fmt: BookFormat, records: Records, name: str = "book", offset: int = 0) -> None:
    """Raise :class:`BookFileError` for the first distance whose winner cannot play the
    last stone (see :func:`parity_faults`); nothing to check in pruned books."""
    bad = parity_faults(fmt, records.values)
    if bad.any():
        i = int(np.argmax(bad))
        v = int(records.values[i])
        d = int(distance_plies(records.values[i : i + 1])[0])
        winner, other = ("first", "second") if v > 0 else ("second", "first")
        raise BookFileError(
            f"{name}: record {i + offset} says the {winner} player wins in {d} plies, but stone "
            f"{fmt.plies + d} is the {other} player's"
        )


def _value_rule(fmt: BookFormat) -> str:
    if fmt.distances:
        return (
            f"not a distance of a {fmt.plies}-stone position "
            "(0 draw, 100-d first player wins in d plies, d-100 second player wins)"
        )
    return "expected 0 (draw), 1 (second player wins) or 2 (first player wins)"


# ----------------------------------------------------------------- detection
def content_formats(path: Path, size: int) -> list[BookFormat]:
    """Every format whose record layout divides ``size`` and whose sampled records
    decode to legal positions of that format's ply."""
    layouts: dict[tuple[int, int, bool], list[BookFormat]] = {}
    for dist in (False, True):
        for plies in range(1, MAX_PLIES + 1):
            f = BookFormat.for_plies(plies, dist, *THILL_BOARD)
            layouts.setdefault((f.record_bytes, f.key_bits, dist), []).append(f)
    fits = []
    with open(path, "rb") as fh:
        for (record_bytes, _, _), formats in layouts.items():
            if size % record_bytes:
                continue
            sample = _sample_records(fh, size, record_bytes)
            fmt = _fitting_format(sample, formats)
            if fmt is not None:
                fits.append(fmt)
    return fits


def check_sample(path: Path, fmt: BookFormat, size: int, source: str, count: int = 64) -> None:
    """Raise :class:`BookFileError` unless a spread sample of the file's records (``count``
    of them, the first and the last included) are legal ``fmt.plies``-stone positions with
    values the format can hold: a layout that does not fit the file is refused, not obeyed.
    ``source`` says where the format came from, for the message."""
    if size == 0:
        return
    with open(path, "rb") as fh:
        sample, picks = _sample_records(fh, size, fmt.record_bytes, count, with_picks=True)
    records = parse_records(sample, fmt)
    good = _fitting_records(fmt, records)
    if not good.all():
        k = int(np.argmin(good))
        one = Records(records.keys[k : k + 1], records.values[k : k + 1])
        reason = f"{path}: record {picks[k]} is not a legal {fmt.plies}-stone position"
        try:
            check_values(fmt, one, str(path), picks[k])
            check_positions(fmt, one, str(path), picks[k])
        except BookFileError as exc:
            reason = str(exc)
        raise BookFileError(f"{reason} ({source}: the file does not fit it)")


def _sample_records(fh, size: int, record_bytes: int, count: int = 64, with_picks: bool = False):
    n = size // record_bytes
    picks = sorted(set(np.linspace(0, n - 1, min(n, count)).astype(int).tolist()))
    buf = bytearray()
    for i in picks:
        fh.seek(i * record_bytes)
        buf += fh.read(record_bytes)
    sample = np.frombuffer(bytes(buf), dtype=np.uint8)
    return (sample, picks) if with_picks else sample


def _fitting_format(sample: np.ndarray, formats: list[BookFormat]) -> BookFormat | None:
    """The one of ``formats`` (layouts of one record size and key field, of several plies)
    that every record of ``sample`` fits, else None: the stone count of the first record
    names the candidate."""
    records = parse_records(sample, formats[0])
    fmt0 = formats[0]
    _, mask, ok = decode_keys_raw(records.keys[:1], fmt0.key_bits, fmt0.width, fmt0.height)
    stones = int(np.bitwise_count(mask[0])) if ok.all() else -1
    fmt = next((f for f in formats if f.plies == stones), None)
    return fmt if fmt is not None and _fitting_records(fmt, records).all() else None


def _fitting_records(fmt: BookFormat, records: Records) -> np.ndarray:
    """Which of ``records`` are legal ``fmt.plies``-stone positions with values ``fmt``
    can hold."""
    first, mask, ok = decode_keys_raw(records.keys, fmt.key_bits, fmt.width, fmt.height)
    good = ok & legal_mask(first, mask, fmt.height) & (np.bitwise_count(mask) == fmt.plies)
    return good & ~_bad_values(fmt, records.values)


# ---------------------------------------------------------------- read/write
def check_size(
    path: str | os.PathLike[str], size: int, fmt: BookFormat, empty_ok: bool = False
) -> None:
    """Raise for an empty file or one that is not a whole number of records.

    An empty file is a book only with ``empty_ok`` (its manifest says it has 0
    records: a pruned book whose positions are all first-player wins).
    """
    if size == 0:
        if empty_ok:
            return
        raise BookFileError(f"{path}: empty file")
    if size % fmt.record_bytes:
        raise BookFileError(
            f"{path}: size {size} bytes is not a multiple of the {fmt.record_bytes}-byte "
            f"record of a {fmt.name} book"
        )


def write_book(
    path: str | os.PathLike[str], fmt: BookFormat, records: Records, check: bool = True
) -> int:
    """Write ``records`` sorted in the format's order, atomically, as a bare book file
    without a manifest (as Thill's files); return the record count.

    With ``check`` the records are verified first (values, duplicates, legal
    positions of ``fmt.plies`` stones), so a bad book is never written. The
    build, merge and derive write a book with its manifest instead
    (:func:`book_bytes`, then :func:`write_book_and_manifest`).
    """
    data = book_bytes(fmt, records, str(path), check)
    atomic_write_bytes(path, data)
    return len(data) // fmt.record_bytes


def book_bytes(fmt: BookFormat, records: Records, name: str = "book", check: bool = True) -> bytes:
    """The file bytes of a book of ``records``: sorted in the format's order and checked
    (values, duplicates, and with ``check`` legal positions of ``fmt.plies`` stones)."""
    path = name
    ordered = sort_records(fmt, records)
    too_wide = ordered.keys >> _U64(fmt.key_bits) if fmt.key_bits < 64 else None
    if too_wide is not None and too_wide.any():
        i = int(np.argmax(too_wide != 0))
        key = int(ordered.keys[i])
        raise BookFileError(f"{path}: key {key:#x} does not fit {fmt.key_bits} bits")
    check_records(fmt, ordered, str(path), decode=check)
    return records_to_bytes(fmt, ordered)


# ------------------------------------------------------------------ the manifest
#: The ``manifest`` entry of every manifest we write.
MANIFEST_MARK = "openingbook book manifest"
#: Version of the manifest layout.
LAYOUT_VERSION = 1

#: Record counts of complete books without a manifest, by (plies, distances): a
#: file with at least this many records is complete for its ply. Pruned: our
#: complete 8- and 12-ply books (one record per mirror pair); Thill's ``book.dat``
#: (34,286 records, 102,858 bytes) and ``bookDeep.dat`` (1,735,945) reach them.
#: Distance books: every position of the ply (:mod:`openingbook.checks.booksizes`).
COMPLETE_RECORDS = {
    (8, False): 28_922,
    (12, False): 1_735_945,
    **{(plies, True): complete_positions(DEFAULT_BOARD, plies) for plies in (8, 12)},
}

#: The fewest records a book whose manifest says it is complete may hold, by (plies,
#: distances): :data:`COMPLETE_RECORDS`, except that Thill's published 8-ply file read
#: without its 5,593 duplicate mirror pairs holds 28,693 (229 positions are missing from
#: it, a known fault its readers answer as first-player wins; docs/FORMATS.md).
COMPLETE_AT_LEAST = {**COMPLETE_RECORDS, (8, False): 28_693}


# ------------------------------------------------------------------ paths, hashes
def manifest_path(book: str | os.PathLike[str]) -> Path:
    """The manifest of a book: its file name plus ``.json`` (``b.dat`` -> ``b.dat.json``).

    >>> manifest_path("books/book12.dat").as_posix()
    'books/book12.dat.json'
    """
    book = Path(book)
    return book.with_name(book.name + ".json")


# ------------------------------------------------------------------ reading manifests
def _reject_constant(name: str) -> Any:
    raise BookFileError(f"{name} is not a number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BookFileError(f"{text} is not a finite number")
    return value


def _load_json(path: Path) -> Any:
    require_regular_file(path, "manifest")  # a FIFO would block the read forever
    try:
        with open(path, encoding="utf-8") as fh:
            text = read_bounded(fh, str(path), MAX_MANIFEST_BYTES, "a book manifest")
    except OSError as exc:
        raise BookFileError(f"{path}: cannot read the manifest ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise BookFileError(f"{path}: not a book manifest (not UTF-8 text)") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except (ValueError, RecursionError) as exc:
        raise BookFileError(f"{path}: not a valid JSON manifest ({exc})") from None


def _count(section: dict[str, Any], key: str, where: str, low: int = 0) -> int:
    value = section.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise BookFileError(f"{where}: '{key}' is {value!r}, expected an integer >= {low}")
    return value


def read_manifest(book: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of ``book``, validated (see :class:`Manifest`); raises
    :class:`BookFileError` when it is missing or not a valid manifest."""
    path = manifest_path(book)
    if not path.is_file():
        raise BookFileError(f"{book}: no manifest {path.name} beside it")
    data = _load_json(path)
    _parse(path, data)
    return data


def load_manifest(book: str | os.PathLike[str]) -> Manifest | None:
    """The parsed manifest of ``book``, or None when there is none."""
    path = manifest_path(book)
    if not path.exists():
        return None
    return _parse(path, _load_json(path))


@dataclass(frozen=True)
class Manifest:
    """What a book's manifest says: format, record count, size, sha256, scope.

    Required entries: ``format`` {``plies`` 1..28, ``distances`` bool; ``name``,
    ``record_bytes``, ``key_bits`` must agree when present}, ``book`` {``records``,
    ``bytes`` (integers, ``bytes`` = records x record size), ``sha256`` (64 hex
    digits)}, ``selection`` {``under`` a move string or null, ``sample`` an
    integer or null, ``shard`` ``"i/n"`` or null}.
    """

    path: Path
    fmt: BookFormat
    records: int
    size: int
    sha256: str
    scope: Scope
    data: dict[str, Any] = field(repr=False, compare=False)


def _parse(path: Path, data: Any) -> Manifest:
    where = str(path)
    if not isinstance(data, dict):
        raise BookFileError(f"{where}: not a book manifest (not a JSON object)")
    mark = data.get("manifest", MANIFEST_MARK)
    if mark != MANIFEST_MARK:
        raise BookFileError(f"{where}: not a book manifest ('manifest' is {mark!r})")
    sections = {}
    for key in ("format", "book", "selection"):
        section = data.get(key)
        if key not in data:
            raise BookFileError(f"{where}: not a book manifest (no '{key}' object)")
        if not isinstance(section, dict):
            raise BookFileError(f"{where}: '{key}' is not an object")
        sections[key] = section
    fmt_s, book_s, sel = sections["format"], sections["book"], sections["selection"]
    plies = _count(fmt_s, "plies", where, 1)
    distances = fmt_s.get("distances")
    board = _manifest_board(where, fmt_s)
    most = max_plies(*board)
    if not isinstance(distances, bool) or plies > most:
        raise BookFileError(
            f"{where}: format plies {plies} / distances {distances!r}: expected 1..{most} "
            "and true or false"
        )
    fmt = BookFormat.for_plies(plies, distances, *board)
    for key, want in (
        ("name", fmt.name),
        ("record_bytes", fmt.record_bytes),
        ("key_bits", fmt.key_bits),
    ):
        if key in fmt_s and fmt_s[key] != want:
            raise BookFileError(
                f"{where}: format {key} is {fmt_s[key]!r}, but a {fmt.name} book has {want!r}"
            )
    records = _count(book_s, "records", where)
    size = _count(book_s, "bytes", where)
    if size != records * fmt.record_bytes:
        raise BookFileError(
            f"{where}: {records} records of {fmt.record_bytes} bytes are not {size} bytes"
        )
    digest = book_s.get("sha256")
    if (
        not isinstance(digest, str)
        or len(digest) != 64
        or not all(c in "0123456789abcdef" for c in digest)
    ):
        raise BookFileError(f"{where}: 'sha256' is {digest!r}, expected 64 hex digits")
    return Manifest(path, fmt, records, size, digest, _scope_from_selection(where, sel, fmt), data)


def _manifest_board(where: str, fmt_s: dict[str, Any]) -> BoardSize:
    """The board of a manifest's ``format``: ``width`` and ``height``, absent = 7x6."""
    if "width" not in fmt_s and "height" not in fmt_s:
        return DEFAULT_BOARD
    width, height = fmt_s.get("width"), fmt_s.get("height")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (width, height)):
        raise BookFileError(f"{where}: format width {width!r} / height {height!r}: not integers")
    try:
        return parse_board_size(f"{width}x{height}")
    except ValueError as exc:
        raise BookFileError(f"{where}: {exc}") from None


def _scope_from_selection(where: str, sel: dict[str, Any], fmt: BookFormat) -> Scope:
    under = sel.get("under")
    if under is not None:
        if not isinstance(under, str):
            raise BookFileError(f"{where}: 'under' is {under!r}, not a 1-based move string")
        try:
            Position.from_moves(under, fmt.width, fmt.height)
        except ValueError as exc:
            raise BookFileError(f"{where}: 'under' {under!r}: {exc}") from None
        if len(under) > fmt.plies:
            raise BookFileError(
                f"{where}: 'under' {under!r} is longer than the book's {fmt.plies} plies"
            )
    for key, want in (("plies", fmt.plies), ("distances", fmt.distances)):
        if key in sel and sel[key] != want:
            raise BookFileError(f"{where}: selection {key} {sel[key]!r} disagrees with the format")
    sample, shard = sel.get("sample"), sel.get("shard")
    partial = None
    if sample is not None:
        partial = f"a sample of {_count(sel, 'sample', where)} positions"
    elif shard is not None:
        parts = shard.split("/") if isinstance(shard, str) else []
        if (
            len(parts) != 2
            or not all(p.isdigit() for p in parts)
            or not 1 <= int(parts[0]) <= int(parts[1])
        ):
            raise BookFileError(f"{where}: 'shard' is {shard!r}, expected \"i/n\"")
        partial = f"shard {shard}"
    from openingbook.model import Scope

    return Scope(under or None, partial, board=fmt.board)


def scope_without_manifest(path: str | os.PathLike[str], fmt: BookFormat, records: int) -> Scope:
    """The scope of a book that has no manifest.

    Complete when it has at least the records of a complete book of its ply
    (:data:`COMPLETE_RECORDS`: so Thill's three published files); otherwise
    unknown: a book built under a line, a sample or a shard looks the same.
    """
    from openingbook.model import Scope

    need = COMPLETE_RECORDS.get((fmt.plies, fmt.distances))
    if need is not None and records >= need:
        return Scope(board=fmt.board)
    name = Path(path).name
    return Scope(
        board=fmt.board,
        known=False,
        unknown_why=f"{name} has no manifest {manifest_path(name).name} and is not a "
        f"complete {fmt.name} book",
    )


# ------------------------------------------------------------------ identity
@dataclass(frozen=True)
class BookIdentity:
    """A book file as checked against what it claims to be (:func:`identify`)."""

    path: Path
    fmt: BookFormat
    size: int
    records: int
    manifest: Manifest | None
    scope: Scope
    #: where the format came from: "argument", "manifest", "file name" or "content"
    format_from: str

    def verify_sha256(self, digest: str | None = None) -> None:
        """Compare the file's sha256 (``digest`` when already computed) with the manifest's;
        :class:`BookFileError` when they differ. Nothing to compare without a manifest."""
        if self.manifest is None:
            return
        if digest is None:
            digest = file_sha256(self.path)
        if digest != self.manifest.sha256:
            raise BookFileError(
                f"{self.path.name}: contents differ from its manifest {self.manifest.path.name} "
                "(sha256): the file is damaged, or the manifest is another book's"
            )


def detect_format(path: str | os.PathLike[str]) -> BookFormat:
    """The format of a book file: from its manifest, Thill's file names, or its content.

    The content test keeps the record layouts whose sampled records decode to
    legal positions of one stone count matching the layout. A Thill file name is
    trusted unless the content clearly says otherwise (exactly one other format
    fits). Raises :class:`BookFileError` when no format fits, or when several do
    and nothing else decides (then the format must be given).
    """
    return _decide_format(Path(path), load_manifest(path))[0]


def _decide_format(p: Path, manifest: Manifest | None) -> tuple[BookFormat, str]:
    if manifest is not None:
        return manifest.fmt, "manifest"
    if p.is_dir():
        raise BookFileError(f"{p}: is a directory, not a book")
    size = p.stat().st_size
    if size == 0:
        raise BookFileError(f"{p}: empty file")
    fits = content_formats(p, size)
    if p.name in THILL_NAMES:
        named = BookFormat.parse(p.name)
        # a damaged file keeps its name's format, so that reading names the damage
        if len(fits) == 1 and named not in fits:
            return fits[0], "content"
        return named, "file name"
    if len(fits) == 1:
        return fits[0], "content"
    if not fits:
        raise BookFileError(
            f"{p}: not a book file: no record layout fits its {size} bytes "
            "(give the format if it is one)"
        )
    names = ", ".join(f.name for f in fits)
    raise BookFileError(f"{p}: the book format is ambiguous ({names} all fit): give the format")


def identify(path: str | os.PathLike[str], fmt: BookFormat | None = None) -> BookIdentity:
    """Decide a book file's format and check the file against it and its manifest.

    Cheap (reads the manifest and a few records, never the whole file). Raises
    :class:`BookFileError` naming the file and what disagrees: a given ``fmt``
    or the manifest's that the records do not fit, a size or record count other
    than the manifest's, a size that is not a whole number of records.
    """
    p = Path(path)
    if p.exists():  # a FIFO or a device is refused before anything opens it
        require_regular_file(p)
    manifest = load_manifest(p)
    if fmt is not None:
        if manifest is not None and manifest.fmt != fmt:
            raise BookFileError(
                f"{p.name}: format {fmt.name} was given, its manifest {manifest.path.name} "
                f"says {manifest.fmt.name}"
            )
        source = "argument" if manifest is None else "manifest"
    else:
        fmt, source = _decide_format(p, manifest)
    if p.is_dir():
        raise BookFileError(f"{p}: is a directory, not a book")
    if not p.exists() and manifest is not None:
        raise BookFileError(
            f"{p}: no such book, but its manifest {manifest.path.name} is there "
            "(an interrupted write? rerun the command that wrote it)"
        )
    size = p.stat().st_size
    check_size(p, size, fmt, empty_ok=manifest is not None and manifest.records == 0)
    records = size // fmt.record_bytes
    if manifest is not None and records != manifest.records:
        raise BookFileError(
            f"{p.name}: {records} records, its manifest {manifest.path.name} says "
            f"{manifest.records}"
        )
    check_sample(p, fmt, size, f"format {fmt.name} from the {source}")
    scope = manifest.scope if manifest is not None else scope_without_manifest(p, fmt, records)
    if manifest is not None and scope.complete:
        _refuse_short_complete_book(p, fmt, records, manifest)
    return BookIdentity(p, fmt, size, records, manifest, scope, source)


def _refuse_short_complete_book(p: Path, fmt: BookFormat, records: int, manifest: Manifest) -> None:
    """Refuse a book whose manifest says it is complete when it holds fewer records than
    a complete book of its ply and board (an edited manifest, or a partial book): a pruned
    book answers every absent position as a first-player win, so a partial book taken
    for a complete one would answer wrongly, never refuse.

    The floor: every position of the ply for a distance book
    (:func:`openingbook.checks.booksizes.complete_positions`); for a pruned book those its
    manifest does not count as first-player wins (its ``values``, which must then count
    every position of the ply), and on 7x6 at 8 and 12 plies at least
    :data:`COMPLETE_AT_LEAST` (the published books' records) whatever it says."""
    positions = complete_positions(fmt.board, fmt.plies)
    values = manifest.data.get("values")
    counts = None
    if isinstance(values, dict):
        counts = {k: values.get(k) for k in ("first", "second", "draw")}
        if not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts.values()
        ):
            counts = None
    if positions is not None and counts is not None and sum(counts.values()) != positions:
        raise BookFileError(
            f"{p.name}: its manifest {manifest.path.name} says the book is complete and "
            f"counts {sum(counts.values()):,} positions; a complete {fmt.name} book has "
            f"{positions:,} (an edited manifest, or a partial book)"
        )
    floors = []
    if fmt.board == DEFAULT_BOARD and (fmt.plies, fmt.distances) in COMPLETE_AT_LEAST:
        floors.append(COMPLETE_AT_LEAST[(fmt.plies, fmt.distances)])
    if positions is not None and fmt.distances:
        floors.append(positions)
    elif positions is not None and counts is not None:
        floors.append(positions - counts["first"])  # the first-player wins are left out
    need = max(floors, default=0)
    if records < need:
        raise BookFileError(
            f"{p.name}: its manifest {manifest.path.name} says the book is complete, but it "
            f"holds {records:,} records and a complete {fmt.name} book at least {need:,} "
            "(an edited manifest, or a partial book)"
        )


# ------------------------------------------------------------------ writing
def manifest_book_entry(out: Path, fmt: BookFormat, records: int, data: bytes) -> dict[str, Any]:
    """The ``format`` and ``book`` parts of a manifest for the bytes ``data`` of ``out``."""
    from hashlib import sha256

    board = {} if fmt.board == DEFAULT_BOARD else {"width": fmt.width, "height": fmt.height}
    return {
        "manifest": MANIFEST_MARK,
        "layout": LAYOUT_VERSION,
        "format": {
            "name": fmt.name,
            "plies": fmt.plies,
            "distances": fmt.distances,
            "record_bytes": fmt.record_bytes,
            "key_bits": fmt.key_bits,
            "pruned": not fmt.distances,
            **board,  # absent: 7x6
        },
        "book": {
            "file": out.name,
            "records": records,
            "bytes": len(data),
            "sha256": sha256(data).hexdigest(),
        },
    }


def _orphaned_manifest(out: Path) -> bool:
    """Is there a manifest of ours for ``out`` while ``out`` itself is missing (the
    trace of a write interrupted between its renames)?"""
    mpath = manifest_path(out)
    if os.path.lexists(out) or not mpath.is_file():
        return False
    try:
        data = _load_json(mpath)
    except BookFileError:
        return False
    return isinstance(data, dict) and data.get("manifest") == MANIFEST_MARK


def check_output(output: str | os.PathLike[str], force: bool) -> Path:
    """Refuse an output book that exists (without ``force``) or cannot be written.

    Checked before any work, so that a long build does not fail at the end. The
    book and its manifest both count; a manifest of ours whose book is missing
    (a write interrupted between its renames) is replaced without ``force``.
    """
    out = Path(output)
    if out.is_dir():
        raise OutputError(f"output {out} is a directory")
    refuse_existing(out, force)
    if not _orphaned_manifest(out):
        refuse_existing(manifest_path(out), force)
    parent = out.parent
    if not parent.is_dir():
        raise OutputError(f"cannot write {out}: directory {parent} does not exist")
    check_writable(out)
    return out


def write_book_and_manifest(
    out: str | os.PathLike[str],
    fmt: BookFormat,
    data: bytes,
    records: int,
    content: dict[str, Any],
) -> dict[str, Any]:
    """Write the book bytes ``data`` to ``out`` and its manifest, as one unit.

    The manifest is :func:`manifest_book_entry` followed by ``content``. Both are
    written to temporary files beside ``out`` first (a failure there, a full
    disk say, leaves everything as it was); then an old ``out`` is removed, the
    manifest renamed into place, and the book last. So a reader finds either
    the previous pair or a manifest without its book (refused by
    :func:`identify`, replaced by a rerun: :func:`check_output`), never a book
    without its manifest or with another book's. Returns the manifest.
    """
    out = Path(out)
    mpath = manifest_path(out)
    manifest = {**manifest_book_entry(out, fmt, records, data), **content}
    text = (json.dumps(manifest, indent=2) + "\n").encode()
    write_together([(mpath, text), (out, data)])
    return manifest


# ------------------------------------------------------------------ the reader
_BIG_ENDIAN_U64 = struct.Struct(">Q")


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


class Book(BookReader):
    """A memory-mapped book file in Thill's layout: the reader contract of
    :class:`openingbook.answers.BookReader` (``get``, ``in``, iteration, bulk
    lookups), plus record access (``record``, ``records``, ``find``, ``lookup``).

    ``fmt`` forces a layout (else :func:`detect_format`);
    either way :func:`identify` checks the file against it
    and against its manifest (size, record count, a sample of records). A book
    with a manifest is then compared with the manifest's sha256 before it answers
    anything (about 40 ms for a 21 MB book): a damaged file is refused with
    :class:`BookFileError`, never answered. With ``check`` or ``verify`` the whole
    file is verified instead (order, values, positions, and the sha256);
    ``verify=False`` skips the sha256 (a book opened only for its header), and
    :attr:`unchecked` then says so, as it does for a book without a manifest.
    Answering a single lookup never parses more than the probed records.
    """

    @reads_book
    def __init__(
        self,
        path: str | os.PathLike[str],
        fmt: BookFormat | None = None,
        check: bool = False,
        verify: bool | None = None,
    ) -> None:
        self.identity: BookIdentity = identify(path, fmt)
        self.path = self.identity.path
        self.format = self.identity.fmt
        self._scope = self.identity.scope
        size = self.identity.size
        self._size = self.identity.records
        self._fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        try:
            # an empty book (its manifest says 0 records) cannot be mapped: no probe reads it
            self._mm = mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        except BaseException:
            self._fh.close()
            raise
        self._order: np.ndarray | None = None
        self._values: np.ndarray | None = None
        self._not_book: tuple[np.ndarray | None] | None = None
        fmt = self.format
        self._luts = value_tables(fmt.plies, fmt.distances, fmt.board)
        self._bulk_luts: tuple[np.ndarray, ...] | None = None
        self._verified = False
        #: the file's bytes are the manifest's (its sha256 compared)
        self._intact = False
        try:
            if check or verify:
                self.verify()
            elif verify is None:
                self._compare_with_manifest()
        except BaseException:
            self._release()
            raise

    format_name = "thill"

    def _compare_with_manifest(self) -> None:
        """The one check of a book's bytes before its first answer: the sha256 of the
        mapped file (the bytes every lookup reads) against its manifest's;
        :class:`BookFileError` naming the file and the manifest when they differ.
        Nothing to compare without a manifest (:attr:`unchecked` says so)."""
        if self.identity.manifest is None:
            return
        import hashlib

        digest = hashlib.sha256(self._mm if self._mm is not None else b"").hexdigest()
        self.identity.verify_sha256(digest)
        self._intact = True

    @property
    def unchecked(self) -> str | None:
        name = self.path.name
        if self.identity.manifest is None:  # whatever the record checks found: no sha256
            return (
                f"{name} has no manifest {manifest_path(name).name}: its values are unchecked "
                "(a damaged file can answer wrong values)"
            )
        if self._intact or self._verified:
            return None
        return f"{name} was not compared with its manifest (verify=False): its values are unchecked"

    # ------------------------------------------------------------- lifecycle
    def _release(self) -> None:
        self._order = self._values = None
        if self._mm is not None and not self._mm.closed:
            self._mm.close()
        self._fh.close()

    # ------------------------------------------------------- what it is
    @property
    def board(self) -> BoardSize:
        return self.format.board

    @property
    def plies(self) -> int:
        return self.format.plies

    @property
    def kind(self) -> str:
        return "distance" if self.format.distances else "wdl"

    @property
    def scope(self) -> Scope:
        return self._scope

    def _records(self) -> int:
        return self._size

    @property
    def provenance(self) -> dict[str, Any]:
        if self.identity.manifest is None:
            return {}
        data = self.identity.manifest.data
        out = {
            "built_by": data.get("command"),
            "built": data.get("created"),
            "version": data.get("version"),
        }
        out.update({k: data[k] for k in ("derived_from", "merged_from") if k in data})
        return out

    def _count(self) -> int:
        """Positions answered: the manifest's value counts where every solved position is
        answered, a complete book's count, else the distinct stored positions."""
        answers_all = self.format.distances or self._scope.answers_absent
        manifest = self.identity.manifest
        if answers_all and manifest is not None:
            values = manifest.data.get("values")
            if isinstance(values, dict) and all(isinstance(v, int) for v in values.values()):
                return sum(values.values())
        if answers_all and self._scope.complete:
            known = complete_positions(self.format.board, self.format.plies)
            if known is not None:
                return known  # every position of the ply
        return len(self._answered_positions()[0])

    def _answered_positions(self) -> tuple[np.ndarray, np.ndarray]:
        fmt = self.format
        if not fmt.distances and self._scope.answers_absent:
            # a pruned book answers every position of its scope: enumerate them
            from openingbook.solver import enumerate_positions

            return enumerate_positions(fmt.plies, self._scope.under, *fmt.board)
        from openingbook.solver import canonical_keys

        recs = self.records_array()
        first, mask = decode_keys(
            recs.keys, fmt.key_bits, fmt.plies, fmt.width, fmt.height, check_legal=False
        )
        _, once = np.unique(canonical_keys(first, mask, *fmt.board), return_index=True)
        once.sort()  # file order; a mirror pair stored twice once
        return first[once], mask[once]

    def __repr__(self) -> str:
        return f"Book({str(self.path)!r}, {self.format.name}, {self._size} records)"

    # --------------------------------------------------------------- records
    def verify(self) -> None:
        """Check every record (values, order, legal positions of the ply) and compare the
        file's sha256 with its manifest's; :class:`BookFileError` on the first problem."""
        self._verify()

    def _verify(self, keep: list[Records] | None = None) -> None:
        """:meth:`verify`; ``keep`` collects the records of the file, parsed on the way."""
        if self._verified:
            return
        # a parity fault is answerable (describe_book reports it): not checked here
        labels = ["values", "order", "positions"]
        # the sha256 once: not again where opening compared it
        problems, _, digest = scan_book(self.identity, labels, keep=keep, sha256=not self._intact)
        for label in labels:
            if label in problems:
                raise BookFileError(f"{self.path}: {problems[label]}")
        if not self._intact:
            self.identity.verify_sha256(digest)
        self._verified = True

    def check_order(self) -> None:
        """Raise :class:`BookFileError` unless the records ascend (streamed): a binary
        search, and so "not stored", is only right in a sorted file."""
        problems, _, _ = scan_book(self.identity, ["order"])
        if problems:
            raise BookFileError(f"{self.path}: {problems['order']}")

    def records_array(self) -> Records:
        """All records as arrays (no Python object per record); the whole file is read, so
        it is verified first (:meth:`verify`)."""
        if not self._verified:  # verified and parsed in one pass over the file
            chunks: list[Records] = []
            self._verify(keep=chunks)
            if len(chunks) == 1:
                return chunks[0]
            if chunks:
                return Records(
                    np.concatenate([c.keys for c in chunks]),
                    np.concatenate([c.values for c in chunks]),
                )
        data = self._file_bytes()
        try:
            return parse_records(data, self.format)
        finally:
            del data

    def require_memory(self) -> None:
        """Refuse, before reading, a book whose records and their decoded positions would
        not fit in the memory available (:func:`openingbook.memory.require_memory`)."""
        from openingbook.memory import require_memory

        require_memory(
            self._size * _BYTES_PER_RECORD, f"{self.path}: reading its {self._size:,} records"
        )

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

    def stores(self, pos: Position) -> bool:
        """Is ``pos`` (or its mirror image) one of the file's records?"""
        return self.find(pos) is not None

    def _stored(self, pos: Position) -> BookValue | None:
        index = self.find(pos)
        return None if index is None else self._value(self._read(index)[1], index)

    def lookup(self, pos: Position) -> tuple[BookValue, int | None]:
        """:meth:`get` plus the index of the record that answered (None: not stored).

        "Not stored" comes from a binary search, which is only right in a sorted file:
        unless the book was verified, or its bytes are those of its manifest (whose
        writer checked their order, :func:`book_bytes`), the order of its records is
        checked first (streamed; about 0.2 s for a 12-ply book)."""
        self._require_open()
        book = isinstance(pos, Position) and self.position_status(pos) == STATUS_OK
        index = self.find(pos) if book else None
        if book and index is None and not (self._verified or self._intact):
            self.check_order()
        return self.get(pos), index

    def _check_position(self, pos: Position) -> None:
        if (pos.width, pos.height) != self.format.board:
            raise PositionNotInBook(
                f"the book is for {self.format.board} boards, not {pos.width}x{pos.height}"
            )
        n = pos.stone_count
        if n != self.format.plies:
            raise PositionNotInBook(
                f"the position has {n} stones; {self.path.name} holds "
                f"{self.format.plies}-stone positions"
            )

    def _value(self, raw: int, index: int | None = None) -> BookValue:
        winner_lut, plies_lut, score_lut, valid_lut = self._luts
        b = raw & 0xFF
        if not valid_lut[b]:
            where = f"record {index}" if index is not None else "a record"
            raise BookFileError(f"{self.path}: {where} has the impossible value {raw}")
        return book_value(int(winner_lut[b]), int(plies_lut[b]), int(score_lut[b]))

    @property
    def pruned(self) -> bool:
        """A book without distances stores no first-player win (the pruning rule)."""
        return not self.format.distances

    # ---------------------------------------------------------- bulk lookup
    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._order is None or self._values is None:
            recs = self.records_array()  # the whole file is read anyway: verified
            self._order = self.format.order_keys(recs.keys)
            self._values = recs.values
        return self._order, self._values

    def find_many(self, first: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Record index of each position or its mirror image (-1 where not stored).

        Raises :class:`InvalidArgument` naming the first position with the wrong stone
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
        illegal = ~legal_mask(first, mask, fmt.height)
        if illegal.any():
            i = int(np.argmax(illegal))
            raise InvalidArgument(f"position {i} is not legal (stone counts or four in a row)")
        return self._find_sorted(first, mask)

    def _find_sorted(
        self, first: np.ndarray, mask: np.ndarray, checked: bool = False
    ) -> np.ndarray:
        fmt = self.format
        keys, mirrored = encode_key_pairs(
            first, mask, fmt.key_bits, fmt.width, fmt.height, checked=checked
        )
        order, _ = self._arrays()
        index = _search_sorted(order, fmt.order_keys(keys))
        # the mirror image only where the position itself is not stored
        missing = np.flatnonzero(index < 0)
        if len(missing):
            index[missing] = _search_sorted(order, fmt.order_keys(mirrored[missing]))
        return index

    def _records_not_book(self) -> np.ndarray | None:
        """The records whose position is not a position of the book
        (:data:`openingbook.solver.STATUS_OK`: legal, reachable, in scope, no win at once), as a
        lookup table by record index + 1 (entry 0: not stored); None when every record's
        is (a book as written). Checked once, when the records are first searched in bulk."""
        if self._not_book is None:
            fmt = self.format
            keys = self.records_array().keys
            first, mask = decode_keys(
                keys, fmt.key_bits, fmt.plies, fmt.width, fmt.height, check_legal=False
            )
            not_book = self.statuses(first, mask) != STATUS_OK
            self._not_book = (np.concatenate(([False], not_book)),) if not_book.any() else (None,)
        return self._not_book[0]

    def _stored_checked_many(self, first: np.ndarray, mask: np.ndarray) -> BulkValues:
        """The records are checked positions of the book (:meth:`_records_not_book`): a
        position found among them is one, with no check of its own beyond its stone count
        and the bitboards a key encodes."""
        fmt = self.format
        n = first.size
        searchable = (np.bitwise_count(mask) == fmt.plies) & encodable(first, mask, *fmt.board)
        if searchable.all():
            stored = self._stored_many(first, mask, checked=True)
        else:
            rows = np.flatnonzero(searchable)
            stored = BulkValues(
                np.full(n, -1, np.int64),
                np.full(n, UNKNOWN, np.int8),
                np.full(n, UNKNOWN, np.int16),
                np.full(n, UNKNOWN, np.int16),
            )
            part = self._stored_many(first[rows], mask[rows], checked=True)
            for whole, a in zip(stored, part, strict=True):
                whole[rows] = a
        not_book = self._records_not_book()
        if not_book is not None:  # those records' positions are left to the full check
            unchecked = not_book[stored.index + 1]
            stored.index[unchecked] = -1
            for a in stored[1:]:
                a[unchecked] = UNKNOWN
        return stored

    def _stored_many(
        self, first: np.ndarray, mask: np.ndarray, checked: bool = False
    ) -> BulkValues:
        """``checked``: every position is of the book's ply with bitboards a key encodes."""
        index = self._find_sorted(first, mask, checked)
        _, values = self._arrays()
        winner_lut, plies_lut, score_lut, valid_lut = self._bulk_tables()
        # value bytes as intp indices into the tables (fast gathers); not stored: entry 256
        if values.size:
            raw = values.view(np.uint8).take(np.maximum(index, 0)).astype(np.intp)
            raw[index < 0] = _NOT_STORED
        else:  # an empty book: nothing stored, every index -1
            raw = np.full(index.shape, _NOT_STORED, np.intp)
        valid = valid_lut.take(raw)
        if not valid.all():
            bad = int(index[np.argmax(~valid)])
            raise BookFileError(f"{self.path}: record {bad} has an impossible value")
        return BulkValues(index, winner_lut.take(raw), plies_lut.take(raw), score_lut.take(raw))

    def _bulk_tables(self) -> tuple[np.ndarray, ...]:
        """The value tables (:func:`openingbook.values.value_tables`) in the dtypes of
        :class:`BulkValues`, with one entry more, :data:`_NOT_STORED`: ``UNKNOWN``, valid."""
        if self._bulk_luts is None:
            tables = []
            for table, dtype, extra in zip(
                self._luts,
                (np.int8, np.int16, np.int16, bool),
                (UNKNOWN, UNKNOWN, UNKNOWN, True),
                strict=True,
            ):
                tables.append(np.append(table, extra).astype(dtype))
            self._bulk_luts = tuple(tables)
        return self._bulk_luts


#: the bulk value tables' entry of a position not stored (after the 256 value bytes)
_NOT_STORED = 256


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


# ------------------------------------------------------------------ whole books
#: Memory per record of a whole book in arrays (keys, values, decoded positions,
#: sort orders and the temporaries of checking them), bytes.
_BYTES_PER_RECORD = 64


_CHECKS = {
    "values": check_values,
    "order": check_order,
    "positions": check_positions,
    "distances": check_distances,
}


def scan_book(
    identity: BookIdentity,
    labels: list[str],
    chunk_records: int = 1 << 20,
    keep: list[Records] | None = None,
    sha256: bool = True,
) -> tuple[dict[str, str], np.ndarray, str]:
    """Stream a whole book file (memory-mapped, ``chunk_records`` at a time) through the
    checks named in ``labels`` (``values``, ``order``, ``positions``, ``distances``).

    Returns ``(problems, counts, sha256)``: the first problem of each failing check
    (message without the file name), the count of each raw value byte, and the
    file's sha256 (``sha256=False``: not computed, an empty string). Memory stays small
    whatever the file size, unless ``keep`` (a list) collects the parsed records of
    every chunk.
    """
    fmt, rb, name = identity.fmt, identity.fmt.record_bytes, str(identity.path)
    problems: dict[str, str] = {}
    counts = np.zeros(256, np.int64)
    import hashlib

    digest = hashlib.sha256()
    if identity.size == 0:
        return problems, counts, digest.hexdigest()
    data = np.memmap(identity.path, dtype=np.uint8, mode="r")
    try:
        for start in range(0, identity.records, chunk_records):
            stop = min(identity.records, start + chunk_records)
            if sha256:
                digest.update(data[start * rb : stop * rb])
            # one record before the chunk, so that the order check spans the boundary
            lo = max(0, start - 1)
            records = parse_records(data[lo * rb : stop * rb], fmt)
            own = Records(records.keys[start - lo :], records.values[start - lo :])
            if keep is not None:
                keep.append(own)
            counts += np.bincount(own.values.view(np.uint8), minlength=256)
            for label in labels:
                if label in problems or (label == "distances" and not fmt.distances):
                    continue
                recs, offset = (records, lo) if label == "order" else (own, start)
                try:
                    _CHECKS[label](fmt, recs, name, offset)
                except BookFileError as exc:
                    problems[label] = str(exc).removeprefix(f"{name}: ")
    finally:
        del data
    return problems, counts, digest.hexdigest() if sha256 else ""


def describe_book(
    path: str | os.PathLike[str], fmt: BookFormat | None = None, chunk_records: int = 1 << 20
) -> dict[str, object]:
    """Format, scope, record count, value histogram and the file checks, as a JSON-ready dict.

    Streams the file (``chunk_records`` at a time, memory-mapped): memory stays
    small whatever the file size. Raises for a file that does not fit its
    format or manifest (:func:`identify`); the
    order/value/position/distance checks and the sha256 comparison are reported
    as ``"ok"`` or the problem.
    """
    identity = identify(path, fmt)
    fmt = identity.fmt
    labels = ["values", "order", "positions"] + (["distances"] if fmt.distances else [])
    problems, counts, digest = scan_book(identity, labels, chunk_records)
    checks = {label: problems.get(label, "ok") for label in labels}
    not_checked = {}
    if identity.manifest is not None:
        try:
            identity.verify_sha256(digest)
            checks["sha256"] = "ok"
        except BookFileError as exc:
            checks["sha256"] = str(exc).split(": ", 1)[-1]
    else:  # the checks above catch only what no book can hold
        not_checked["sha256"] = (
            f"not available: no manifest {manifest_path(identity.path).name} beside the "
            "book, so its values are unchecked (a damaged value a book can hold goes unnoticed)"
        )
    raw = np.arange(256, dtype=np.uint8).view(np.int8)
    return {
        "path": str(path),
        "format": fmt.name,
        "description": fmt.describe(),
        "format_from": identity.format_from,
        "manifest": None if identity.manifest is None else str(identity.manifest.path),
        "scope": identity.scope.describe(),
        "plies": fmt.plies,
        "distances": fmt.distances,
        "record_bytes": fmt.record_bytes,
        "key_bits": fmt.key_bits,
        "signed_order": fmt.signed_order,
        "records": identity.records,
        "bytes": identity.size,
        "values": value_histogram(fmt, raw, weights=counts),
        "checks": checks,
        "not_checked": not_checked,
        "ok": all(v == "ok" for v in checks.values()),
    }


# ------------------------------------------------------------------ a model as records
def thill_values(model: BookModel) -> tuple[BookFormat, np.ndarray]:
    """The model's values in Thill's layout of its ply and board: ``(fmt, values)``, one
    value per position of the model (nothing pruned yet): distance bytes where the
    plies are known (``100 - plies`` signed by the winner, 0 for a draw), else the pruned
    codes (2 first player wins, 1 second, 0 draw); a model loaded as stored: its
    records' layout and values."""
    if model.stored is not None:
        fmt, records = model.stored
        return fmt, records.values
    distances = model.has_distances
    fmt = BookFormat.for_plies(model.plies, distances, *model.board)
    if distances:
        signed = model.winner.astype(np.int16) * (100 - model.plies_to_end)
        return fmt, signed.astype(np.int8)
    return fmt, pruned_values(model.winner)


def thill_records(model: BookModel) -> tuple[BookFormat, Records]:
    """The model as the records of a Thill-layout book: the file's own where the model
    was loaded as stored, else sorted, a book without distances leaving its first-player
    wins out where its scope answers them by the pruning rule."""
    if model.stored is not None:
        return model.stored
    fmt, values = thill_values(model)
    records = _records(model, fmt, values, prune=model.scope.answers_absent)
    return fmt, sort_records(fmt, records)


def _records(model: BookModel, fmt: BookFormat, values: np.ndarray, prune: bool) -> Records:
    """The model's positions keyed in ``fmt`` with their ``values`` (:func:`thill_values`),
    in the model's order; ``prune``: a pruned layout leaves the first-player wins out."""
    first, mask = model.first, model.mask
    if prune and not fmt.distances:
        keep = values != VALUE_FIRST
        first, mask, values = first[keep], mask[keep], values[keep]
    keys = encode_keys(first, mask, fmt.key_bits, fmt.width, fmt.height)
    return Records(keys, values.astype(np.int8))


def stored_model(book: Book, pruned: bool, source: dict[str, Any]) -> BookModel:
    """The model of a Thill-layout file's records as stored
    (``openingbook.formats.load_book(complete=False)``): every record read and checked,
    the model's positions those of the records in file order, ``model.stored`` the layout
    and records."""
    from openingbook.model import model_from_values

    fmt = book.format
    book.require_memory()  # records, positions and the model's arrays
    records = book.records_array()  # the whole file: every record checked first
    # every key was checked a legal position of the ply: decoded without checking again
    first, mask = decode_keys(
        records.keys, fmt.key_bits, fmt.plies, fmt.width, fmt.height, check_legal=False
    )
    return model_from_values(
        "distance" if fmt.distances else "pruned",
        fmt.plies,
        first,
        mask,
        records.values,
        board=fmt.board,
        scope=book.scope,
        pruned=pruned,
        stored=(fmt, records),
        **source,
    )


# ------------------------------------------------------------------ the registry's entry
class ThillFormat(Format):
    """The registry's entry of Thill's layout: detection and the reader both take
    :func:`identify`'s verdict; the writer writes the book and its manifest as one unit."""

    name = "thill"
    description = "Markus Thill's layout (book.dat ...; our .dat books with a manifest)"
    suffixes = (".dat",)
    open_options = frozenset({"check", "verify"})
    checks_on_request = open_options
    own = True
    layouts = True
    holds_samples = True
    separate_manifest = True
    prunes = True

    def side_files(self, path: str | os.PathLike[str]) -> list[Path]:
        """The manifest beside the book (:func:`manifest_path`)."""
        return [manifest_path(path)]

    def record_of(
        self, path: str | os.PathLike[str], verify: bool = False
    ) -> dict[str, Any] | None:
        """The book's manifest (:func:`read_manifest`; None without one); ``verify``: the
        manifest is required, and the file's sha256 compared with it."""
        if not verify and not manifest_path(path).exists():
            return None
        manifest = read_manifest(path)
        if verify:
            identify(path).verify_sha256()
        return manifest

    def describe_file(self, path: Path, layout: Any = None, **options: Any) -> dict[str, Any]:
        """:func:`describe_book`: the layout, scope, records and checks of the file."""
        return describe_book(path, layout)

    def stored_model(self, book: Any, pruned: bool, source: dict[str, Any]) -> BookModel:
        """:func:`stored_model`: the file's records as stored."""
        return stored_model(book, pruned, source)

    def sniff(self, path: Path, head: bytes, size: int) -> bool:
        """What the reader accepts (:func:`identify`: the layout, size, record count and
        a sample of records against the manifest)."""
        return self._problem(path) is None

    def why_not(self, path: Path) -> str:
        return "Thill: " + (self._problem(path) or "fits")

    @staticmethod
    def _problem(path: Path) -> str | None:
        """Why :class:`Book` refuses the file at ``path`` (None: it opens it)."""
        try:
            identify(path)
        except BookFileError as exc:
            # the book's own path is the refusal's subject; another path (its manifest) stays
            return str(exc).removeprefix(f"{path}: ")
        return None

    def check_book(self, board: BoardSize, plies: int) -> None:
        """Thill's layout is of 7x6 books of 1 ply or more (:func:`refuse_thill_layout`)."""
        refuse_thill_layout(board, plies)

    def check_output(self, out: str | os.PathLike[str], force: bool) -> None:
        """The book and its manifest (:func:`check_output` of this module)."""
        check_output(out, force)

    def open(self, path: Path, **options: Any) -> Book:
        return Book(
            path,
            options.get("fmt"),
            check=options.get("check", False),
            verify=options.get("verify"),
        )

    def write(self, model: BookModel, out: str | os.PathLike[str], **options: Any) -> WrittenBook:
        """The book (first-player wins left out where it has no distances: Thill's pruned
        layout) and its manifest, as one unit. Options: ``force``; ``record``: the
        manifest's content after its ``format`` and ``book`` entries (a build's or a
        derivation's; a sample or shard says so there), or a function of those entries
        (with the book's sha256) that returns it, else one that records the model's
        source and ``command``."""
        refuse_thill_layout(model.board, model.plies)
        record = options.get("record")
        require_writable(model, self.name, scope=record is None)
        fmt, values = thill_values(model)  # distance bytes, or pruned codes
        path = check_output(out, options.get("force", False))
        if record is None:
            record = {
                "selection": {
                    "plies": fmt.plies,
                    "distances": fmt.distances,
                    "under": model.scope.under,
                    "sample": None,
                    "seed": None,
                    "shard": None,
                },
                "values": value_histogram(fmt, values),
                "converted_from": {"file": Path(model.source).name, "format": model.source_format},
                **manifest_provenance(options.get("command")),
            }
        records = _records(model, fmt, values, prune=True)
        data = book_bytes(fmt, records, str(path)) if len(records) else b""
        if callable(record):
            record = record(manifest_book_entry(path, fmt, len(records), data))
        write_book_and_manifest(path, fmt, data, len(records), record)
        return WrittenBook(path, len(records), manifest_path(path))
